// Shared by `prepare` and `run --input`: opens a genotype input, reports skipped sites, writes the packed file.
import { UserError } from '../core/errors.js';
import {
  openGenotypeInput, prepareGenotypes, type BadSite, type BadSitePolicy, type PreparedSidecar,
} from '../io/index.js';

/** Skipped sites kept in the sidecar (all are counted and reported on stderr). */
const MAX_RECORDED_SKIPS = 100;

/** Parses `--on-bad-site`. */
export function parseBadSitePolicy(text: string | undefined): BadSitePolicy {
  if (text === undefined || text === 'error') return 'error';
  if (text === 'skip') return 'skip';
  throw new UserError(`--on-bad-site must be skip or error, got "${text}"`);
}

/**
 * Converts the PLINK fileset or VCF `inputPath` into `packedPath` (+ sidecar). Each skipped site is
 * reported on stderr as `snptally: skipped FILE line N: reason`.
 * @throws UserError when the input is neither a fileset nor a VCF, or is malformed.
 */
export async function prepareGenotypeFile(
  inputPath: string, packedPath: string, options: { onBadSite: BadSitePolicy; permuteSeed: number | null },
): Promise<PreparedSidecar> {
  const skipped: BadSite[] = [];
  let numSkipped = 0;
  const reportSkipped = (site: BadSite): void => {
    numSkipped++;
    if (skipped.length < MAX_RECORDED_SKIPS) skipped.push(site);
    process.stderr.write(`snptally: skipped ${site.path} line ${site.line}: ${site.reason}\n`);
  };
  const source = await openGenotypeInput(inputPath, { onBadSite: options.onBadSite, reportSkipped });
  if (source === null) {
    throw new UserError(
      `${inputPath} is neither a PLINK fileset (x.bed with .bim and .fam, or the prefix x) nor a VCF (.vcf, .vcf.gz, .vcf.bgz)`);
  }
  return prepareGenotypes(source, packedPath, {
    permuteSeed: options.permuteSeed,
    skippedSites: () => ({ count: numSkipped, first: skipped }),
  });
}
