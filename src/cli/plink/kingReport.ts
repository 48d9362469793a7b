// plink2's relatedness files from a `--metric king` run: the .kin0 table (plink2_matrix_calc.cc CalcKing's table
// writer: its columns, order, proportions and numbers), the sample ID files (.king.id, .king.cutoff.in.id/.out.id) and
// --king-cutoff's greedy removal (KinshipPruneDestructive).
import { kingKinship } from '../../analyses/king/index.js';
import { SampleMissingFile, type RowSorter } from '../../io/index.js';
import { KinTableWriter } from './kinTableBytes.js';
import { PAIR_ROW_WORDS } from './kingPairs.js';

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

/** Where a pass writes the .kin0 table: a new file `path`, renamed later to `finalPath` (named in errors). */
export interface KingTableTarget {
  readonly path: string;
  readonly finalPath: string;
  readonly options: KingTableOptions;
}

/**
 * One pass over the sorted pairs: the .kin0 table into `table` (when given) and the pairs above `cutoff` (when given).
 * Kinship is plink2's double from the exact counts; NSNP from the two samples' missing calls (read when first needed).
 * @throws UserError when the table cannot be written (the caller removes its file).
 */
export function passOverKingPairs(source: KingPairSource, table: KingTableTarget | null, cutoff: number | null): KingPassResult {
  const { samples } = source;
  const withFid = hasFids(samples);
  if (table === null) return passOverPairs(source, null, cutoff);
  const writer = new KinTableWriter(table.path, table.finalPath, samples.map((sample) => idText(sample, withFid)), table.options.counts);
  const missing = new SampleMissingFile(source.missingCallsPath, samples.length, source.numSnp);
  try {
    writer.writeText(`${withFid ? '#FID1\tIID1\tFID2\tIID2' : '#IID1\tIID2'}\tNSNP\tHETHET\tIBS0\tKINSHIP\n`);
    const result = passOverPairs(source, { writer, missing, filter: table.options.filter }, cutoff);
    writer.close();
    return result;
  } catch (error) {
    writer.discard();
    throw error;
  } finally {
    missing.close();
  }
}

/** The loop of passOverKingPairs. */
function passOverPairs(
  source: KingPairSource,
  table: { readonly writer: KinTableWriter; readonly missing: SampleMissingFile; readonly filter: number | null } | null,
  cutoff: number | null,
): KingPassResult {
  const closePairs: [number, number][] = [];
  let numFilteredOut = 0;
  for (const batch of source.pairs.sorted()) {
    const { rows } = batch;
    for (let at = 0, end = batch.numRows * PAIR_ROW_WORDS; at < end; at += PAIR_ROW_WORDS) {
      const id1 = rows[at];
      const id2 = rows[at + 1];
      const hethet = rows[at + 2];
      const ibs0 = rows[at + 5];
      const kinship = kingKinship(hethet, ibs0, rows[at + 3], rows[at + 4]);
      if (cutoff !== null && kinship > cutoff) closePairs.push([id1, id2]);
      if (table === null) continue;
      if (table.filter !== null && kinship < table.filter) {
        numFilteredOut++;
        continue;
      }
      table.writer.writeLine({ id1, id2, nsnp: table.missing.calledByBoth(id1, id2), hethet, ibs0, kinship });
    }
  }
  return { numTableLines: table?.writer.numLines ?? 0, numFilteredOut, closePairs };
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
