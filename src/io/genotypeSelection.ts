// PLINK's selection of samples and variants, applied to a genotype source as it streams (`prepare`, `run --input`).
//
// Order as PLINK 1.9's: sample filters first (--keep, then --remove, then --filter-founders), then the variant filters
// known from the variant's description (--chr with --from-bp/--to-bp, --extract, --exclude), then those computed from
// its calls (--geno over the kept samples, then --maf over the kept founders, as PLINK counts allele frequencies). A
// variant removed by several is counted under the first.
import { UserError } from '../core/errors.js';
import { canonicalChromosome } from './chromosomeCodes.js';
import { bedRecordsOf, describeBedRecords, type GenotypeRow, type GenotypeSource, type SnpInfo } from './genotypeSource.js';
import { packedBytesPerVector } from './packedVectorFile.js';
import { sampleListNames, type SampleIdList } from './selectionLists.js';

/** What to keep; null members select everything. */
export interface GenotypeSelection {
  /** --chr: the option's text and the canonical chromosome names it selects (chromosomeCodes.ts). */
  readonly chromosomes: { readonly text: string; readonly names: ReadonlySet<string> } | null;
  /** --from-bp/--to-bp (inclusive; only with one chromosome). */
  readonly basePairRange: { readonly fromBp: number; readonly toBp: number } | null;
  readonly extract: { readonly path: string; readonly ids: ReadonlySet<string> } | null;
  readonly exclude: { readonly path: string; readonly ids: ReadonlySet<string> } | null;
  readonly keep: SampleIdList | null;
  readonly remove: SampleIdList | null;
  /** --filter-founders: keep only founders (father and mother IDs 0 in the .fam; every VCF sample is one). */
  readonly filterFounders: boolean;
  /** --nonfounders: --maf counts every kept sample's calls, not only the founders'. */
  readonly nonfounders: boolean;
  /** --geno: the largest missing-call rate kept. */
  readonly maxMissingRate: number | null;
  /** --maf: the smallest minor allele frequency kept (over non-missing calls of the kept founders). */
  readonly minMinorAlleleFrequency: number | null;
}

/** What a selection kept and why the rest went, as the sidecar records it. */
export interface SelectionRecord {
  readonly options: {
    readonly chr: string | null;
    readonly fromBp: number | null;
    readonly toBp: number | null;
    readonly extract: string | null;
    readonly exclude: string | null;
    readonly keep: string | null;
    readonly remove: string | null;
    /** Absent in sidecars written before the option existed. */
    readonly filterFounders?: boolean;
    readonly nonfounders?: boolean;
    readonly geno: number | null;
    readonly maf: number | null;
  };
  readonly numSampleInput: number;
  readonly numSampleKept: number;
  readonly samplesRemoved: { readonly keep: number; readonly remove: number; readonly filterFounders?: number };
  readonly numVariantInput: number;
  readonly numVariantKept: number;
  readonly variantsRemoved: {
    readonly chr: number; readonly bpRange: number; readonly extract: number; readonly exclude: number;
    readonly geno: number; readonly maf: number;
  };
}

/** A selection that selects everything. */
export const SELECT_ALL: GenotypeSelection = {
  chromosomes: null, basePairRange: null, extract: null, exclude: null, keep: null, remove: null, filterFounders: false,
  nonfounders: false, maxMissingRate: null, minMinorAlleleFrequency: null,
};

/**
 * PLINK compares thresholds with a relative slack of about 2^-44 so that a rate equal to the threshold in decimal
 * (10 of 100 calls missing against --geno 0.1) is kept although the binary doubles differ by an ulp.
 */
const THRESHOLD_SLACK = 2 ** -44;

/** Whether a selection removes anything at all. */
export function selectsEverything(selection: GenotypeSelection): boolean {
  return Object.values(selection).every((member) => member === null || member === false);
}

/** The source filtered by `selection`, and the record of what it kept (complete once its rows have been read). */
export interface SelectedSource {
  readonly source: GenotypeSource;
  record(): SelectionRecord;
}

/**
 * Wraps `source`: its samples are those kept, its rows the kept variants restricted to the kept samples.
 * @throws UserError when no sample is kept (here) or no variant (when the rows end).
 */
export function selectGenotypes(source: GenotypeSource, selection: GenotypeSelection): SelectedSource {
  const numSampleInput = source.samples.length;
  const keptSampleIdx: number[] = [];
  let removedByKeep = 0;
  let removedByRemove = 0;
  let removedAsNonfounder = 0;
  const isFounder = (sampleIdx: number): boolean => source.founders?.[sampleIdx] ?? true;
  source.samples.forEach((sample, sampleIdx) => {
    if (selection.keep !== null && !sampleListNames(selection.keep, sample)) removedByKeep++;
    else if (selection.remove !== null && sampleListNames(selection.remove, sample)) removedByRemove++;
    else if (selection.filterFounders && !isFounder(sampleIdx)) removedAsNonfounder++;
    else keptSampleIdx.push(sampleIdx);
  });
  if (keptSampleIdx.length === 0) {
    const files = [
      selection.keep && `--keep ${selection.keep.path}`, selection.remove && `--remove ${selection.remove.path}`,
      selection.filterFounders ? '--filter-founders' : null,
    ];
    throw new UserError(`${files.filter((file) => file !== null).join(' and ')} keep none of the ${numSampleInput} samples of ${source.path}`);
  }
  const removed = { chr: 0, bpRange: 0, extract: 0, exclude: 0, geno: 0, maf: 0 };
  let numVariantInput = 0;
  let numVariantKept = 0;
  const allSamplesKept = keptSampleIdx.length === numSampleInput;
  const numKept = keptSampleIdx.length;
  const keptPacked = new Uint8Array(packedBytesPerVector(numKept));
  // --maf counts the kept founders' calls: a row of their own when some kept samples are not founders.
  const keptFounderIdx = selection.nonfounders ? keptSampleIdx : keptSampleIdx.filter(isFounder);
  const foundersPacked = keptFounderIdx.length === numKept ? null : new Uint8Array(packedBytesPerVector(keptFounderIdx.length));
  // Without filters by calls the kept variants are known from their descriptions, before any row.
  const keptSnps = source.snps != null && selection.maxMissingRate === null && selection.minMinorAlleleFrequency === null
    ? source.snps.filter((snp) => reasonByDescription(snp, selection) === null) : null;
  // Then the record is known before any row (and holds for a reader that takes the rows from the .bed itself).
  const countedBeforehand = keptSnps !== null;
  const keptFlags: boolean[] = [];
  if (countedBeforehand) {
    for (const snp of source.snps ?? []) {
      const reason = reasonByDescription(snp, selection);
      if (reason !== null) removed[reason]++;
      keptFlags.push(reason === null);
    }
    numVariantInput = keptFlags.length;
    numVariantKept = keptSnps.length;
  }

  async function* rows(): AsyncGenerator<GenotypeRow> {
    for await (const row of source.rows()) {
      if (!countedBeforehand) numVariantInput++;
      const describedReason = reasonByDescription(row.snp, selection);
      if (describedReason !== null) {
        if (!countedBeforehand) removed[describedReason]++;
        continue;
      }
      const packed = allSamplesKept ? row.packed : gatherSamples(row.packed, keptSampleIdx, keptPacked);
      const counts = countCodes(packed, numKept);
      const founderCounts = foundersPacked === null ? counts : countCodes(gatherSamples(row.packed, keptFounderIdx, foundersPacked), keptFounderIdx.length);
      const callReason = reasonByCalls({ all: counts, founders: founderCounts }, { numSample: numKept, numFounder: keptFounderIdx.length }, selection);
      if (callReason !== null) {
        removed[callReason]++;
        continue;
      }
      if (!countedBeforehand) numVariantKept++;
      yield { snp: row.snp, packed, numMissing: counts.missing };
    }
    if (numVariantKept === 0) {
      const reasons = Object.entries(removed).filter(([, count]) => count > 0)
        .map(([reason, count]) => `${count} by ${OPTION_OF_REASON[reason as keyof typeof removed]}`);
      throw new UserError(
        `the selection keeps none of the ${numVariantInput} variants of ${source.path} (removed ${reasons.join(', ') || 'none'})`);
    }
  }

  const bedRecords = bedRecordsOf(source);
  if (bedRecords !== null && allSamplesKept && countedBeforehand) {
    describeBedRecords(rows, { ...bedRecords, snpIndices: bedRecords.snpIndices.filter((_, s) => keptFlags[s]) });
  }
  return {
    source: {
      kind: source.kind,
      path: source.path,
      sampleIds: keptSampleIdx.map((sampleIdx) => source.sampleIds[sampleIdx]),
      samples: keptSampleIdx.map((sampleIdx) => source.samples[sampleIdx]),
      ...(source.founders === undefined ? {} : { founders: keptSampleIdx.map(isFounder) }),
      numSnpKnown: keptSnps?.length ?? null,
      snps: keptSnps,
      rows,
    },
    record: () => ({
      options: {
        chr: selection.chromosomes?.text ?? null,
        fromBp: selection.basePairRange?.fromBp ?? null,
        toBp: selection.basePairRange?.toBp ?? null,
        extract: selection.extract?.path ?? null,
        exclude: selection.exclude?.path ?? null,
        keep: selection.keep?.path ?? null,
        remove: selection.remove?.path ?? null,
        filterFounders: selection.filterFounders,
        nonfounders: selection.nonfounders,
        geno: selection.maxMissingRate,
        maf: selection.minMinorAlleleFrequency,
      },
      numSampleInput,
      numSampleKept: numKept,
      samplesRemoved: { keep: removedByKeep, remove: removedByRemove, filterFounders: removedAsNonfounder },
      numVariantInput,
      numVariantKept,
      variantsRemoved: { ...removed },
    }),
  };
}

const OPTION_OF_REASON = {
  chr: '--chr', bpRange: '--from-bp/--to-bp', extract: '--extract', exclude: '--exclude', geno: '--geno', maf: '--maf',
} as const;

function reasonByDescription(snp: SnpInfo, selection: GenotypeSelection): 'chr' | 'bpRange' | 'extract' | 'exclude' | null {
  if (selection.chromosomes !== null && !selection.chromosomes.names.has(canonicalChromosome(snp.chrom))) return 'chr';
  const range = selection.basePairRange;
  if (range !== null && (snp.pos < range.fromBp || snp.pos > range.toBp)) return 'bpRange';
  if (selection.extract !== null && !selection.extract.ids.has(snp.id)) return 'extract';
  if (selection.exclude !== null && selection.exclude.ids.has(snp.id)) return 'exclude';
  return null;
}

/** Calls of one variant over the kept samples, by SPEC §1 code. */
interface CodeCounts {
  readonly het: number;
  readonly homAllele1: number;
  readonly missing: number;
}

/**
 * --geno over all kept samples' calls, --maf over the kept founders' (`counts.founders`; the same counts when every
 * kept sample is a founder).
 */
function reasonByCalls(
  counts: { readonly all: CodeCounts; readonly founders: CodeCounts }, sizes: { readonly numSample: number; readonly numFounder: number },
  selection: GenotypeSelection,
): 'geno' | 'maf' | null {
  const maxMissingRate = selection.maxMissingRate;
  if (maxMissingRate !== null && counts.all.missing > sizes.numSample * maxMissingRate * (1 + THRESHOLD_SLACK)) return 'geno';
  const minMaf = selection.minMinorAlleleFrequency;
  if (minMaf !== null) {
    const founders = counts.founders;
    const numAllele = 2 * (sizes.numFounder - founders.missing);
    const allele1 = founders.het + 2 * founders.homAllele1;
    // No called allele (or no founder): no frequency to compare, and plink1.9 and plink2 keep the variant (tested);
    // --geno removes one without calls.
    if (numAllele > 0 && Math.min(allele1, numAllele - allele1) / numAllele < minMaf * (1 - THRESHOLD_SLACK)) return 'maf';
  }
  return null;
}

/** Per byte value: its hets (code 01), allele-1 homozygotes (11) and missing calls (10), 8 bits each. */
const CODE_COUNTS_OF_BYTE = (() => {
  const table = new Uint32Array(256);
  for (let byte = 0; byte < 256; byte++) {
    let packedCounts = 0;
    for (let shift = 0; shift < 8; shift += 2) {
      const code = (byte >> shift) & 3;
      if (code === 0b01) packedCounts += 1;
      else if (code === 0b11) packedCounts += 1 << 8;
      else if (code === 0b10) packedCounts += 1 << 16;
    }
    table[byte] = packedCounts;
  }
  return table;
})();

/** Counts the codes of a packed row (pad bits are zero, code 00, so they count nowhere). */
function countCodes(packed: Uint8Array, numSample: number): CodeCounts {
  let het = 0, homAllele1 = 0, missing = 0;
  const numByte = packedBytesPerVector(numSample);
  for (let byteIdx = 0; byteIdx < numByte; byteIdx++) {
    const packedCounts = CODE_COUNTS_OF_BYTE[packed[byteIdx]];
    het += packedCounts & 0xff;
    homAllele1 += (packedCounts >> 8) & 0xff;
    missing += packedCounts >> 16;
  }
  return { het, homAllele1, missing };
}

/** Writes the codes of the samples `keptSampleIdx` of `packed` into `into`, in that order; returns `into`. */
function gatherSamples(packed: Uint8Array, keptSampleIdx: readonly number[], into: Uint8Array): Uint8Array {
  into.fill(0);
  for (let k = 0; k < keptSampleIdx.length; k++) {
    const sampleIdx = keptSampleIdx[k];
    const code = (packed[sampleIdx >> 2] >> ((sampleIdx & 3) * 2)) & 3;
    into[k >> 2] |= code << ((k & 3) * 2);
  }
  return into;
}
