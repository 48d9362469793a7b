// Shared by `prepare` and `run --input`: opens a genotype input, reports skipped sites, writes the packed file.
import { UserError } from '../core/errors.js';
import {
  autosomesOf, openGenotypeInput, orderByClass, plinkPathsOf, prepareGenotypes, readFamPhenotypes, readPhenotypeFile,
  selectGenotypes, selectsEverything, type BadSite, type BadSitePolicy, type GenotypeSelection, type GenotypeSource,
  type PreparedSidecar, type PrepareOptions,
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
  /**
   * Order samples [controls | cases] by their phenotypes, leaving out those without one (epistasis): from `pheno`
   * (PLINK's --pheno file, `phenoName` its column) or else the .fam's column 6; absent or null: source order.
   */
  readonly caseControl?: { readonly pheno: string | null; readonly phenoName: string | null } | null;
}

/**
 * Converts the PLINK fileset or VCF `inputPath` into `packedPath` (+ sidecar), keeping what `selection` selects.
 * Each skipped site is reported on stderr as `snptally: skipped FILE line N: reason`.
 * @throws UserError when the input is neither a fileset nor a VCF, or is malformed.
 */
export async function prepareGenotypeFile(
  inputPath: string, packedPath: string, options: GenotypePreparationOptions,
): Promise<PreparedSidecar> {
  const opened = await openSelectedGenotypes(inputPath, options);
  return prepareGenotypes(opened.source, packedPath, { ...opened.records, permuteSeed: options.permuteSeed, vectors: options.vectors });
}

/** A genotype input opened with its selection, autosomes and sample order applied, and what the sidecar records of them. */
export interface SelectedGenotypes {
  readonly source: GenotypeSource;
  readonly records: Pick<PrepareOptions, 'skippedSites' | 'selection' | 'caseControl'>;
}

/**
 * Opens the PLINK fileset or VCF `inputPath` as prepare reads it: the selection, then the autosomes, then the
 * case-control order; skipped sites reported on stderr as they are met.
 * @throws UserError when the input is neither a fileset nor a VCF, or is malformed.
 */
export async function openSelectedGenotypes(
  inputPath: string, options: Omit<GenotypePreparationOptions, 'permuteSeed' | 'vectors'>,
): Promise<SelectedGenotypes> {
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
  const selected = selectsEverything(options.selection) ? null : selectGenotypes(source, options.selection);
  const kept = options.autosomesOnly === true ? autosomesOf(selected?.source ?? source) : selected?.source ?? source;
  const caseControl = options.caseControl ?? null;
  const ordered = caseControl === null ? null : orderByClass(kept, await sampleClassesOf(inputPath, kept, caseControl));
  return {
    source: ordered?.source ?? kept,
    records: {
      skippedSites,
      ...(selected === null ? {} : { selection: selected.record }),
      ...(ordered === null ? {} : { caseControl: ordered.record }),
    },
  };
}

/** The phenotypes of `source`'s samples: a --pheno file, else the fileset's .fam column 6 (a VCF needs --pheno). */
async function sampleClassesOf(
  inputPath: string, source: GenotypeSource, caseControl: { readonly pheno: string | null; readonly phenoName: string | null },
): ReturnType<typeof readPhenotypeFile> {
  if (caseControl.pheno !== null) return readPhenotypeFile(caseControl.pheno, source.samples, caseControl.phenoName);
  if (caseControl.phenoName !== null) throw new UserError('--pheno-name names a column of a --pheno file: give --pheno too');
  const paths = plinkPathsOf(inputPath);
  if (paths === null) throw new UserError(`${inputPath}: a VCF has no phenotypes; give them with --pheno FILE`);
  return readFamPhenotypes(paths.fam, source.samples);
}
