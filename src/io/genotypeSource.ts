// What every genotype reader (PLINK .bed, VCF) produces: sample IDs, then SNP rows of SPEC-coded packed bytes.
//
// Readers know nothing of ranks or the engine: they yield plain packed vectors (ceil(numSample/4) bytes,
// SPEC §1 codes, allele 1 counted, pad bits zero) in file order; `prepare` writes them to a packed file.
import type { SampleName } from './selectionLists.js';

/** One SNP's description, as the input file gives it. */
export interface SnpInfo {
  readonly id: string;
  readonly chrom: string;
  readonly pos: number;
  /** The allele whose copies the codes count (PLINK A1; VCF ALT). */
  readonly allele1: string;
  /** The other allele (PLINK A2; VCF REF). */
  readonly allele2: string;
}

/** One SNP and its calls. `packed` is only valid until the next row is requested. */
export interface GenotypeRow {
  readonly snp: SnpInfo;
  readonly packed: Uint8Array;
  readonly numMissing: number;
}

/** A site that a reader refused, with where it is. */
export interface BadSite {
  readonly path: string;
  /** 1-based line of a text file. */
  readonly line: number;
  readonly reason: string;
}

/** What to do with a bad site: skip it (after reporting it) or stop with an error. */
export type BadSitePolicy = 'skip' | 'error';

/** Options every reader takes. */
export interface GenotypeReadOptions {
  readonly onBadSite: BadSitePolicy;
  /** Called for each skipped site (policy `skip`). */
  readonly reportSkipped?: (site: BadSite) => void;
}

/** An opened genotype input: its samples are known before the rows are read. */
export interface GenotypeSource {
  readonly kind: 'bed' | 'vcf';
  /** The main file (the .bed or the VCF). */
  readonly path: string;
  readonly sampleIds: readonly string[];
  /** The same samples by FID and IID (PLINK) or name (VCF), for --keep and --remove. */
  readonly samples: readonly SampleName[];
  /**
   * Per sample, whether it is a founder (a PLINK .fam line whose father and mother IDs are both 0); absent: every
   * sample is one (a VCF has no pedigree). PLINK counts allele frequencies (--maf) and LD over founders only.
   */
  readonly founders?: readonly boolean[];
  /** Number of SNPs when the file says so before reading (PLINK); null for VCF. */
  readonly numSnpKnown: number | null;
  /**
   * The rows' descriptions when they are known before the rows (PLINK's .bim; numSnpKnown is their number), so that a
   * filter by description (--chr, --autosome) knows its count too; absent or null otherwise.
   */
  readonly snps?: readonly SnpInfo[] | null;
  /** The rows in file order; a source can be iterated once. */
  rows(): AsyncGenerator<GenotypeRow>;
}

/**
 * Where a source's rows lie in a PLINK .bed when they are whole records of it (every sample, in its order): a reader may
 * then take them from the file itself (`run --individuals`'s transpose workers, bedSampleRows.ts) instead of through
 * `rows()`. Known by the rows function (bedRecordsOf), so that a wrapper which replaces `rows` never keeps a stale one.
 */
export interface BedRecords {
  readonly bedPath: string;
  /** Samples of the .bed (its .fam lines): each record holds ceil(numSample / 4) bytes. */
  readonly numSample: number;
  /** The .bim rows (0-based) of the source's rows, increasing. */
  readonly snpIndices: Uint32Array;
}

const BED_RECORDS = new WeakMap<GenotypeSource['rows'], BedRecords>();

/** Says that `rows` yields the .bed records `records` (openPlinkFileset, and selections by description). */
export function describeBedRecords(rows: GenotypeSource['rows'], records: BedRecords): void {
  BED_RECORDS.set(rows, records);
}

/** The .bed records `source`'s rows are, or null when they are not whole .bed records (or not known to be). */
export function bedRecordsOf(source: GenotypeSource): BedRecords | null {
  return BED_RECORDS.get(source.rows) ?? null;
}

/**
 * `source`'s rows as whole .bed records with their descriptions, when they are (bedRecordsOf, every sample of the .bed
 * kept, the descriptions known beforehand) and are some; else null.
 */
export function wholeBedRecordsOf(source: GenotypeSource): { readonly records: BedRecords; readonly snps: readonly SnpInfo[] } | null {
  const records = bedRecordsOf(source);
  const snps = source.snps ?? null;
  if (records === null || snps === null || snps.length === 0) return null;
  return records.numSample === source.sampleIds.length && records.snpIndices.length === snps.length ? { records, snps } : null;
}
