// Histograms of a run's values (SPEC §9) on the host: rows of values counted as finalize hands them to the sink —
// every value, before any threshold —, the counts of other parts (finalize tasks, device requests) added exactly,
// the exact reduction over ranks, the self-check and the file's text.
import {
  countedEntriesPerTuple, HISTOGRAM_BUCKETS_PER_UNIT, isSumColumn, type HistogramCounts, type HistogramLayout,
} from '../../core/histogramLayout.js';
import type { Communicator } from '../../parallel/index.js';

/** Counts held in doubles stay exact while their sum stays below this. */
const EXACT_COUNTS = 2 ** 53;
/** Limbs of one count in the reduction over ranks: 3 × 32 bits (counts of a run stay far below 2^96). */
const LIMBS = 3;
const LIMB = 2 ** 32;

/** Exact counts of a whole run: column c's bucket b at `counts[c · numBuckets + b]`. */
export interface HistogramTotals {
  readonly counts: readonly bigint[];
  readonly numUndefined: bigint;
}

/**
 * How the values of one tuple shape count: per value its column's offset (column · numBuckets) or −1, and per sum
 * column its offset and the two values it adds (typed arrays: the loop below runs for every value of a run).
 */
interface TupleCounting {
  readonly perTuple: number;
  readonly offsets: Int32Array;
  readonly sumOffsets: Int32Array;
  readonly sumFirst: Int32Array;
  readonly sumSecond: Int32Array;
}

/**
 * Counts values into a layout's buckets, in doubles (fast, exact below 2^53 in all) that are moved into BigInts
 * before their sum could reach 2^53, so that a rank counts any number of values exactly.
 */
export class HistogramCounter {
  private pending: Float64Array;
  /** Σ of `pending`: bounds every count in it. */
  private pendingTotal = 0;
  private pendingUndefined = 0;
  private flushed: bigint[] | null = null;
  private flushedUndefined = 0n;
  private readonly countings = new Map<string, TupleCounting>();

  constructor(readonly layout: HistogramLayout) {
    this.pending = new Float64Array(layout.columnNames.length * layout.numBuckets);
  }

  /**
   * Counts `numTuples` tuples of `values`, `entryBits.length` values each: value k of a tuple is entry
   * `entryBits[k]` (2-way rows: [0, 1, 2, 3]; r²: [3]; 3-way: [0 … 7]).
   */
  addTuples(values: Float64Array, numTuples: number, entryBits: readonly number[]): void {
    const { perTuple, offsets, sumOffsets, sumFirst, sumSecond } = this.countingOf(entryBits);
    const numSums = sumOffsets.length;
    const adding = numTuples * (perTuple + numSums);
    if (this.pendingTotal + adding >= EXACT_COUNTS) this.flush();
    this.pendingTotal += adding;
    const pending = this.pending;
    const last = this.layout.numBuckets - 1;
    let numUndefined = 0;
    for (let t = 0, at = 0; t < numTuples; t++, at += perTuple) {
      for (let k = 0; k < perTuple; k++) {
        const offset = offsets[k];
        if (offset < 0) continue;
        const x = values[at + k] * HISTOGRAM_BUCKETS_PER_UNIT;
        if (x !== x) {
          numUndefined++;
          continue;
        }
        // histogramBucket, inlined (this runs for every value of the run): x | 0 truncates x in (0, last).
        pending[offset + (x >= last ? last : x > 0 ? x | 0 : 0)]++;
      }
      for (let s = 0; s < numSums; s++) {
        const x = (values[at + sumFirst[s]] + values[at + sumSecond[s]]) * HISTOGRAM_BUCKETS_PER_UNIT;
        if (x !== x) continue;
        pending[sumOffsets[s] + (x >= last ? last : x > 0 ? x | 0 : 0)]++;
      }
    }
    // Undefined values and sums left out are in no bucket: the bound above still holds.
    this.pendingUndefined += numUndefined;
  }

  /** Adds the counts of another part of the run (a finalize task, a device request). */
  add(part: HistogramCounts): void {
    const { counts, numUndefined } = part;
    if (counts.length !== this.pending.length) throw new Error(`histogram counts of ${counts.length} buckets for ${this.pending.length}`);
    let partTotal = 0;
    for (let k = 0; k < counts.length; k++) partTotal += counts[k];
    if (this.pendingTotal + partTotal >= EXACT_COUNTS) this.flush();
    if (partTotal >= EXACT_COUNTS) throw new RangeError(`histogram part of ${partTotal} counts is not exact in doubles`);
    this.pendingTotal += partTotal;
    for (let k = 0; k < counts.length; k++) this.pending[k] += counts[k];
    this.pendingUndefined += numUndefined;
  }

  /** The counts since the last take, as a part (a finalize task's: far below 2^53), and a fresh start. */
  take(): HistogramCounts {
    if (this.flushed !== null) throw new Error('histogram counts reached 2^53: take the totals');
    const taken: HistogramCounts = { counts: this.pending, numUndefined: this.pendingUndefined };
    this.pending = new Float64Array(this.pending.length);
    this.pendingTotal = 0;
    this.pendingUndefined = 0;
    return taken;
  }

  /** Every count so far, exactly. */
  totals(): HistogramTotals {
    this.flush();
    return { counts: this.flushed ?? [], numUndefined: this.flushedUndefined };
  }

  private flush(): void {
    const flushed = this.flushed ?? Array.from(this.pending, () => 0n);
    for (let k = 0; k < this.pending.length; k++) if (this.pending[k] !== 0) flushed[k] += BigInt(this.pending[k]);
    this.flushed = flushed;
    this.flushedUndefined += BigInt(this.pendingUndefined);
    this.pending.fill(0);
    this.pendingTotal = 0;
    this.pendingUndefined = 0;
  }

  private countingOf(entryBits: readonly number[]): TupleCounting {
    const key = entryBits.join(',');
    let counting = this.countings.get(key);
    if (counting === undefined) {
      const { numBuckets, entryColumns, sumColumns } = this.layout;
      const offsets = Int32Array.from(entryBits, (bits) => (entryColumns[bits] >= 0 ? entryColumns[bits] * numBuckets : -1));
      // A sum column counts only where the tuple's values include both of its entries.
      const sums = sumColumns.flatMap(({ column, entryBits: [a, b] }) => {
        const first = entryBits.indexOf(a);
        const second = entryBits.indexOf(b);
        return first < 0 || second < 0 ? [] : [{ offset: column * numBuckets, first, second }];
      });
      counting = {
        perTuple: entryBits.length, offsets, sumOffsets: Int32Array.from(sums, (x) => x.offset),
        sumFirst: Int32Array.from(sums, (x) => x.first), sumSecond: Int32Array.from(sums, (x) => x.second),
      };
      this.countings.set(key, counting);
    }
    return counting;
  }
}

/** Totals as LIMBS doubles of 32 bits each (the undefined count last), for a sum over ranks that stays exact. */
export function histogramLimbs(totals: HistogramTotals): Float64Array {
  const all = [...totals.counts, totals.numUndefined];
  const limbs = new Float64Array(all.length * LIMBS);
  all.forEach((count, k) => {
    if (count >= 1n << BigInt(32 * LIMBS)) throw new RangeError(`a histogram count ${count} exceeds ${32 * LIMBS} bits`);
    let rest = count;
    for (let l = 0; l < LIMBS; l++) {
      limbs[k * LIMBS + l] = Number(rest & 0xffffffffn);
      rest >>= 32n;
    }
  });
  return limbs;
}

/** The totals of limbs summed over ranks (each limb sum exact: fewer than 2^21 ranks). */
export function totalsFromLimbs(limbs: Float64Array): HistogramTotals {
  const all: bigint[] = [];
  for (let k = 0; k < limbs.length / LIMBS; k++) {
    let count = 0n;
    for (let l = LIMBS - 1; l >= 0; l--) count = count * BigInt(LIMB) + BigInt(limbs[k * LIMBS + l]);
    all.push(count);
  }
  const numUndefined = all.pop() ?? 0n;
  return { counts: all, numUndefined };
}

/** The run's totals: every rank's counts summed exactly (collective over `comm`). */
export async function reduceHistogram(comm: Communicator, counter: HistogramCounter): Promise<HistogramTotals> {
  if (comm.size >= 2 ** 21) throw new RangeError(`${comm.size} ranks: histogram limb sums would not stay exact`);
  return totalsFromLimbs(await comm.allReduceSum(histogramLimbs(counter.totals())));
}

/**
 * CoMet's self-check, for any part of a run: the columns other than sums hold each tuple's counted entries
 * once, except undefined values. Throws when they do not (an engine fault, never the user's).
 */
export function checkHistogramTotals(layout: HistogramLayout, totals: HistogramTotals, numTuples: number): void {
  let counted = totals.numUndefined;
  layout.columnNames.forEach((_, column) => {
    if (isSumColumn(layout, column)) return;
    for (let b = 0; b < layout.numBuckets; b++) counted += totals.counts[column * layout.numBuckets + b];
  });
  const expected = BigInt(numTuples) * BigInt(countedEntriesPerTuple(layout));
  if (counted !== expected) throw new Error(`histogram self-check: ${counted} values counted, ${expected} expected of ${numTuples} tuples`);
}

/**
 * SPEC §9's file: a header `min` and the column names, then per bucket b its lower bound `printf("%.3f", b/1000.0)`
 * and each column's count (`%.0f` of an integer: its decimal digits), tab-separated.
 */
export function formatHistogramFile(layout: HistogramLayout, counts: readonly bigint[]): string {
  const { numBuckets, columnNames } = layout;
  const lines = [['min', ...columnNames].join('\t')];
  for (let b = 0; b < numBuckets; b++) {
    // toFixed rounds the exact value of the double as printf does (b/1000 is never a tie at three digits).
    const row = [(b / HISTOGRAM_BUCKETS_PER_UNIT).toFixed(3)];
    for (let c = 0; c < columnNames.length; c++) row.push(counts[c * numBuckets + b].toString());
    lines.push(row.join('\t'));
  }
  return `${lines.join('\n')}\n`;
}
