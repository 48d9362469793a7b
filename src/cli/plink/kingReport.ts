// plink2's relatedness files from a `--metric king` run: the .kin0 table (plink2_matrix_calc.cc CalcKing's table
// writer: its columns, order, proportions and numbers), the sample ID files (.king.id, .king.cutoff.in.id/.out.id) and
// --king-cutoff's greedy removal (KinshipPruneDestructive).
import { kingKinship } from '../../analyses/index.js';
import { formatPlinkNumber, SampleMissingFile, type TextOutput } from '../../io/index.js';
import { LineBatch } from '../recordTableWriter.js';
import { pairCountsAt, PAIR_ROW_WORDS, type KingPairCounts } from './kingPairs.js';
import type { RowSorter } from '../../io/index.js';

/** A sample's PLINK IDs (FID null: the input had none, a VCF). */
export interface SampleIdPair {
  readonly fid: string | null;
  readonly iid: string;
}

/** plink2 prints the FID column when the input has FIDs (a .fam: always, even all `0`). */
function hasFids(samples: readonly SampleIdPair[]): boolean {
  return samples.some((sample) => sample.fid !== null);
}

/** A sample's ID columns as plink2 writes them (tab-separated FID and IID, or the IID). */
function idText(sample: SampleIdPair, withFid: boolean): string {
  return withFid ? `${sample.fid ?? '0'}\t${sample.iid}` : sample.iid;
}

/** plink2's WriteSampleIds: `#FID\tIID` (or `#IID`) and one line per sample. */
export function sampleIdFileText(samples: readonly SampleIdPair[], all: readonly SampleIdPair[] = samples): string {
  const withFid = hasFids(all);
  return `${withFid ? '#FID\tIID' : '#IID'}\n${samples.map((sample) => `${idText(sample, withFid)}\n`).join('')}`;
}

/** What the table shows and keeps. */
export interface KingTableOptions {
  /** HETHET and IBS0 as counts (`counts`) rather than proportions of NSNP. */
  readonly counts: boolean;
  /** Keep pairs whose kinship is not below this (--king-table-filter); null: every pair. */
  readonly filter: number | null;
}

/** The pairs of the table and of the cutoff, read once from a run's sorted pairs. */
export interface KingPairSource {
  readonly pairs: RowSorter;
  readonly samples: readonly SampleIdPair[];
  /** The run's `<stub>.sample-missing.bin` (NSNP comes from the samples' missing calls) and its SNPs. */
  readonly missingCallsPath: string;
  readonly numSnp: number;
}

/** What a pass over the pairs produced: table lines written, and the pairs above the cutoff. */
export interface KingPassResult {
  readonly numTableLines: number;
  readonly numFilteredOut: number;
  /** Pairs (ID1, ID2) whose kinship is above the cutoff, in table order. */
  readonly closePairs: readonly (readonly [number, number])[];
}

/**
 * One pass over the sorted pairs: the .kin0 table into `table` (when given) and the pairs above `cutoff` (when given).
 * Kinship is plink2's double from the exact counts; NSNP from the two samples' missing calls (read when first needed).
 */
export async function passOverKingPairs(
  source: KingPairSource, table: { readonly output: TextOutput; readonly options: KingTableOptions } | null, cutoff: number | null,
): Promise<KingPassResult> {
  const { samples } = source;
  const withFid = hasFids(samples);
  const ids = samples.map((sample) => idText(sample, withFid));
  const missing = table === null ? null : new SampleMissingFile(source.missingCallsPath, samples.length, source.numSnp);
  const lines = table === null ? null : new LineBatch(table.output);
  if (table !== null) {
    await table.output.write(`${withFid ? '#FID1\tIID1\tFID2\tIID2' : '#IID1\tIID2'}\tNSNP\tHETHET\tIBS0\tKINSHIP\n`);
  }
  try {
    return await passOverPairs(source, { ids, table, lines, missing }, cutoff);
  } finally {
    missing?.close();
  }
}

/** The loop of passOverKingPairs. */
async function passOverPairs(
  source: KingPairSource,
  out: {
    readonly ids: readonly string[]; readonly table: { readonly output: TextOutput; readonly options: KingTableOptions } | null;
    readonly lines: LineBatch | null; readonly missing: SampleMissingFile | null;
  },
  cutoff: number | null,
): Promise<KingPassResult> {
  const { ids, table, lines, missing } = out;
  const closePairs: [number, number][] = [];
  let numFilteredOut = 0;
  for (const batch of source.pairs.sorted()) {
    for (let r = 0; r < batch.numRows; r++) {
      const at = r * PAIR_ROW_WORDS;
      const id1 = batch.rows[at];
      const id2 = batch.rows[at + 1];
      const counts = pairCountsAt(batch.rows, at);
      const kinship = kingKinship(counts.hethet, counts.ibs0, counts.het1Hom2, counts.hom1Het2);
      if (cutoff !== null && kinship > cutoff) closePairs.push([id1, id2]);
      if (table === null || lines === null || missing === null) continue;
      if (table.options.filter !== null && kinship < table.options.filter) {
        numFilteredOut++;
        continue;
      }
      if (lines.add(tableLine(ids[id1], ids[id2], missing.calledByBoth(id1, id2), counts, { kinship, counts: table.options.counts }))) await lines.flush();
    }
  }
  await lines?.flush();
  return { numTableLines: lines?.numWritten ?? 0, numFilteredOut, closePairs };
}

/** One .kin0 line: IDs, NSNP, HETHET, IBS0 (counts, or proportions as 1/NSNP · count), KINSHIP. */
function tableLine(id1: string, id2: string, nsnp: number, counts: KingPairCounts, shown: { readonly kinship: number; readonly counts: boolean }): string {
  const share = 1 / nsnp;
  const hethet = shown.counts ? String(counts.hethet) : formatPlinkNumber(share * counts.hethet);
  const ibs0 = shown.counts ? String(counts.ibs0) : formatPlinkNumber(share * counts.ibs0);
  return `${id1}\t${id2}\t${nsnp}\t${hethet}\t${ibs0}\t${formatPlinkNumber(shown.kinship)}\n`;
}

/**
 * plink2's --king-cutoff (KinshipPruneDestructive): while pairs above the cutoff remain, remove the partner of the
 * first sample left with exactly one such pair, or else the first sample with the most; returns which are removed.
 */
export function kingCutoffRemoved(numSample: number, closePairs: readonly (readonly [number, number])[]): Uint8Array {
  const partners: Set<number>[] = Array.from({ length: numSample }, () => new Set<number>());
  for (const [a, b] of closePairs) {
    partners[a].add(b);
    partners[b].add(a);
  }
  const removed = new Uint8Array(numSample);
  const lowest = (set: ReadonlySet<number>): number => Math.min(...set);
  for (;;) {
    let pruned = -1;
    let firstMost = -1;
    for (let s = 0; s < numSample; s++) {
      const degree = partners[s].size;
      if (degree === 1) {
        pruned = lowest(partners[s]);
        break;
      }
      if (degree > 0 && (firstMost < 0 || degree > partners[firstMost].size)) firstMost = s;
    }
    if (pruned < 0) pruned = firstMost;
    if (pruned < 0) return removed;
    removed[pruned] = 1;
    for (const partner of partners[pruned]) partners[partner].delete(pruned);
    partners[pruned].clear();
  }
}
