// Shared by `prepare` and `run --input`: opens a genotype input, reports skipped sites, writes the packed file.
import { UserError } from '../core/errors.js';
import {
  autosomesOf, openGenotypeInput, prepareGenotypes, selectGenotypes, selectsEverything, type BadSite, type BadSitePolicy,
  type GenotypeSelection, type GenotypeSource, type PreparedSidecar,
} from '../io/index.js';

/** Skipped sites kept in the sidecar (all are counted and reported on stderr). */
const MAX_RECORDED_SKIPS = 100;

/** Parses `--on-bad-site`. */
export function parseBadSitePolicy(text: string | undefined): BadSitePolicy {
  if (text === undefined || text === 'error') return 'error';
  if (text === 'skip') return 'skip';
  throw new UserError(`--on-bad-site must be skip or error, got "${text}"`);
}

/** Options of {@link prepareGenotypeFile}. */
export interface GenotypePreparationOptions {
  readonly onBadSite: BadSitePolicy;
  readonly permuteSeed: number | null;
  /** Samples and variants to keep (PLINK's --chr, --keep, --maf, …); recorded in the sidecar unless it keeps all. */
  readonly selection: GenotypeSelection;
  /** Vectors are samples (`prepare --individuals`, transposed) instead of SNPs; absent: SNPs. */
  readonly vectors?: 'snps' | 'samples';
  /** Keep only variants on chromosomes 1–22 (PLINK's --autosome), after the selection. */
  readonly autosomesOnly?: boolean;
}

/**
 * Converts the PLINK fileset or VCF `inputPath` into `packedPath` (+ sidecar), keeping what `selection` selects.
 * Each skipped site is reported on stderr as `snptally: skipped FILE line N: reason`.
 * @throws UserError when the input is neither a fileset nor a VCF, or is malformed.
 */
export async function prepareGenotypeFile(
  inputPath: string, packedPath: string, options: GenotypePreparationOptions,
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
  const skippedSites = (): { count: number; first: readonly BadSite[] } => ({ count: numSkipped, first: skipped });
  const { permuteSeed, vectors } = options;
  const restricted = (kept: GenotypeSource): GenotypeSource => (options.autosomesOnly === true ? autosomesOf(kept) : kept);
  if (selectsEverything(options.selection)) return prepareGenotypes(restricted(source), packedPath, { permuteSeed, skippedSites, vectors });
  const selected = selectGenotypes(source, options.selection);
  return prepareGenotypes(restricted(selected.source), packedPath, { permuteSeed, skippedSites, selection: selected.record, vectors });
}
