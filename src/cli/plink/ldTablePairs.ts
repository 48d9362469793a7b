// The pairs of PLINK's `.ld` table in its order (SNP A's position, then B's), in batches: straight from the LD window
// (same-chromosome windows: SNPs are in position order, so the window's pairs come in table order, no run and no
// sort), or from a run's records sorted by position (inter-chr: every pair the run kept).
import type { PairWindowLimits } from '../../core/pairWindow.js';
import { coordVectorIndex, readMetricsFileChunks, RowSorter, type PreparedSidecar } from '../../io/index.js';
import { positionRanks } from '../recordTable.js';

/** Pairs of a batch: SNP A, SNP B (global SNP indices) per pair, and the SNPs they lie in. */
export interface LdPairBatch {
  readonly pairs: Uint32Array;
  readonly numPairs: number;
  /** Every SNP of the batch is in [snpFirst, snpEnd). */
  readonly snpFirst: number;
  readonly snpEnd: number;
  /** Hands `pairs` back for a later batch (call once nothing reads it any more). */
  readonly release: () => void;
}

/** Gathers pairs into batches of at most `maxPairs`. */
class BatchBuilder {
  private pairs: Uint32Array;
  private numPairs = 0;
  private snpFirst = Infinity;
  private snpEnd = 0;
  /** Arrays of released batches (fresh megabytes per batch were page faults and garbage). */
  private readonly free: Uint32Array[] = [];

  constructor(private readonly maxPairs: number) {
    this.pairs = new Uint32Array(2 * maxPairs);
  }

  get full(): boolean {
    return this.numPairs === this.maxPairs;
  }

  add(snpA: number, snpB: number): void {
    this.pairs[2 * this.numPairs] = snpA;
    this.pairs[2 * this.numPairs + 1] = snpB;
    this.numPairs++;
    this.snpFirst = Math.min(this.snpFirst, snpA, snpB);
    this.snpEnd = Math.max(this.snpEnd, snpA + 1, snpB + 1);
  }

  /** Adds (a, b) for b = bFirst … bEnd − 1 while the batch has room; returns the first b not added. */
  addRun(a: number, bFirst: number, bEnd: number): number {
    const stop = Math.min(bEnd, bFirst + this.maxPairs - this.numPairs);
    if (stop <= bFirst) return bFirst;
    const pairs = this.pairs;
    let at = 2 * this.numPairs;
    for (let b = bFirst; b < stop; b++, at += 2) {
      pairs[at] = a;
      pairs[at + 1] = b;
    }
    this.numPairs += stop - bFirst;
    this.snpFirst = Math.min(this.snpFirst, a, bFirst);
    this.snpEnd = Math.max(this.snpEnd, a + 1, stop);
    return stop;
  }

  /** The batch so far (null when empty); a new one starts. */
  take(): LdPairBatch | null {
    if (this.numPairs === 0) return null;
    const pairs = this.pairs;
    const batch = { pairs, numPairs: this.numPairs, snpFirst: this.snpFirst, snpEnd: this.snpEnd, release: () => this.free.push(pairs) };
    // The batch keeps its array (a native job may still read it) until released.
    this.pairs = this.free.pop() ?? new Uint32Array(2 * this.maxPairs);
    this.numPairs = 0;
    this.snpFirst = Infinity;
    this.snpEnd = 0;
    return batch;
  }
}

/**
 * The pairs (i, j), i < j, of a same-chromosome window, i ascending then j: the table's order, since a window's SNPs
 * are in position order within each chromosome and chromosomes in first-seen order (pairWindowLimits checks it).
 */
export function* windowPairBatches(limits: PairWindowLimits, maxPairs: number): Generator<LdPairBatch> {
  const batch = new BatchBuilder(maxPairs);
  const numVector = limits.bandEnd.length;
  for (let i = 0; i < numVector; i++) {
    const end = limits.bandEnd[i];
    for (let j = i + 1; j < end;) {
      j = batch.addRun(i, j, end);
      if (batch.full) yield batch.take() as LdPairBatch;
    }
  }
  const last = batch.take();
  if (last !== null) yield last;
}

/** Where the run's records are. */
export interface RecordPairSource {
  /** The run's 2-way metrics files (any order; one record per pair). */
  readonly recordFiles: readonly string[];
  /** Where the sort's scratch runs go. */
  readonly scratchParent: string;
}

/** The records' pairs sorted by position (positionRanks: chromosome in first-seen order, position, file order). */
export function* recordPairBatches(source: RecordPairSource, sidecar: PreparedSidecar, maxPairs: number): Generator<LdPairBatch> {
  const { rankOfSnp, snpOfRank } = positionRanks(sidecar, sidecar.numVector);
  const sorter = new RowSorter({ rowWords: 2, numKeyWords: 2, scratchParent: source.scratchParent });
  try {
    const row = new Uint32Array(2);
    for (const file of source.recordFiles) {
      for (const chunk of readMetricsFileChunks(file, 2)) {
        for (let r = 0; r < chunk.numRecords; r++) {
          const rankA = rankOfSnp[coordVectorIndex(chunk.coords[2 * r])];
          const rankB = rankOfSnp[coordVectorIndex(chunk.coords[2 * r + 1])];
          row[0] = Math.min(rankA, rankB);
          row[1] = Math.max(rankA, rankB);
          sorter.add(row);
        }
      }
    }
    const batch = new BatchBuilder(maxPairs);
    for (const sorted of sorter.sorted()) {
      for (let r = 0; r < sorted.numRows; r++) {
        batch.add(snpOfRank[sorted.rows[2 * r]], snpOfRank[sorted.rows[2 * r + 1]]);
        if (batch.full) yield batch.take() as LdPairBatch;
      }
    }
    const last = batch.take();
    if (last !== null) yield last;
  } finally {
    sorter.dispose();
  }
}
