// Where computed table entries go: threshold, exact checksum, per-rank output records.
import { ChecksumAccumulator, checksumWeight, pairRowEntryWeights, pairRowWeights, tripleRowWeights, tupleValuePairWeights } from '../../core/checksum.js';
import { addPairRowChecksum } from '../../core/pairRowChecksum.js';
import type { RecordBar } from '../../mgemm/index.js';
import type { PairCountRow, PairValueRows, PairValueSink, RecordSelectingSink, SelectionOptions, TupleRecordSelection, TupleRow } from '../../analyses/index.js';
import { markPassingEntries, type Threshold } from '../../core/thresholds.js';
import type { HistogramCounts, HistogramLayout } from '../../core/histogramLayout.js';
import type { NumWay } from '../../core/types.js';
import type { HistogramCounter } from './histogramSink.js';
import type { TopRecordsSpec } from './topRecordsSink.js';
import { windowColumnRanges, windowColumnsOf, type PairWindowLimits, type VectorInterval } from '../../core/pairWindow.js';

/**
 * Receives output records (SPEC §7) laid out as in the file: per record `numWay` coordinates `2·G + E`, then the
 * float32 value's bits, as host-order u32 words.
 */
export interface RecordWriter {
  appendRecordWords(words: Uint32Array, numRecords: number): void;
  /**
   * A writer that keeps only the strongest records (TopRecords): the value a record must reach to be kept, or null;
   * the sink then drops weaker records before buffering them (one-value rows: addTupleValueRow).
   */
  recordBar?(): RecordBar | null;
  /** A writer that keeps only the strongest records: how many, and which values are stronger. */
  readonly top?: TopRecordsSpec;
}

export const RECORDS_PER_FLUSH = 1 << 16;

/** Entry bits of the values of one tuple of a pair row and a triple row. */
const PAIR_ENTRIES = [0, 1, 2, 3];
const TRIPLE_ENTRIES = [0, 1, 2, 3, 4, 5, 6, 7];

/** What a sink does besides threshold, checksum and records. */
export interface EntrySinkOptions {
  /** Counts every value, before the threshold, into this histogram (SPEC §9); absent or null: none. */
  readonly histogram?: HistogramCounter | null;
  /**
   * An LD window (2-way): pairs outside it are dropped before anything else, so that thresholds, checksum, records,
   * histograms and top-N see only the pairs in it; absent or null: every pair.
   */
  readonly window?: PairWindowLimits | null;
}

/**
 * Thresholds entries, adds them to the checksum and buffers their output records. Entries arrive a row
 * at a time (one vector i, or a pair i, j, against a run of consecutive vectors) so that the checksum's
 * weights and sums run as tight loops.
 */
export class EntrySink implements RecordSelectingSink, PairValueSink {
  private accumulated = new ChecksumAccumulator();
  /** Buffered records as the file lays them out: numWay coordinates and the value, `stride` words each. */
  private readonly recordWords: Uint32Array;
  /** The same words, for values rounded to float32 here. */
  private readonly recordValues: Float32Array;
  private readonly stride: number;
  private numBuffered = 0;
  /** Checksum weights of the current row, grown as needed. */
  private weights = new Float64Array(0);
  /** Which entries of the current row pass the threshold. */
  private keep = new Uint8Array(0);
  /** The histogram of every value added (SPEC §9), or null. */
  readonly histogram: HistogramCounter | null;
  /** The run's LD window, or null. */
  readonly window: PairWindowLimits | null;
  /** The window's columns of the current row. */
  private readonly windowColumns: VectorInterval[] = [];
  /** The same as begin, end pairs (addPairEntryRow's hot path). */
  private readonly windowRanges = new Int32Array(6);

  constructor(
    private readonly numVector: number,
    private readonly numWay: NumWay,
    readonly threshold: Threshold,
    private readonly writer: RecordWriter | null,
    options: EntrySinkOptions = {},
  ) {
    this.histogram = options.histogram ?? null;
    this.window = options.window ?? null;
    this.stride = numWay + 1;
    this.recordWords = new Uint32Array(RECORDS_PER_FLUSH * this.stride);
    this.recordValues = new Float32Array(this.recordWords.buffer);
  }

  /** Checksum of the entries added so far (since the last `takeChecksum`). */
  get checksum(): ChecksumAccumulator {
    return this.accumulated;
  }

  /** The checksum so far; the sink starts a new one (a finalize worker reports each task's part on its own). */
  takeChecksum(): ChecksumAccumulator {
    const taken = this.accumulated;
    this.accumulated = new ChecksumAccumulator();
    return taken;
  }

  /** Whether passing entries become output records. */
  get writesRecords(): boolean {
    return this.writer !== null;
  }

  /** Without records, window and histogram, pair-count rows may come as values alone (their checksum merged): dropped here. */
  get pairValueRows(): PairValueRows | null {
    if (this.writer !== null || this.window !== null || this.histogram !== null) return null;
    return { numVector: this.numVector, addRow: () => undefined };
  }

  /** The layout values are counted in (device finalize counts in it too), or null without a histogram. */
  get histogramLayout(): HistogramLayout | null {
    return this.histogram?.layout ?? null;
  }

  /** Adds histogram counts of values finalized elsewhere (device finalize, finalize workers). */
  addHistogramCounts(counts: HistogramCounts): void {
    if (this.histogram === null) throw new Error('histogram counts for a sink without a histogram');
    this.histogram.add(counts);
  }

  /**
   * The pairs (i, j) for j = jFirst … jFirst + numCols − 1: `values[4c + 2a + b]` is the value of entry
   * bits (a of i, b of j) of the c-th pair.
   */
  addPairRow(i: number, jFirst: number, numCols: number, values: Float64Array): void {
    if (this.window === null) {
      this.addWholePairRow(i, jFirst, numCols, values);
      return;
    }
    for (const { begin, end } of windowColumnsOf(this.window, i, jFirst, jFirst + numCols, this.windowColumns)) {
      this.addWholePairRow(i, begin, end - begin, values.subarray(4 * (begin - jFirst), 4 * (end - jFirst)));
    }
  }

  private addWholePairRow(i: number, jFirst: number, numCols: number, values: Float64Array): void {
    const count = 4 * numCols;
    this.histogram?.addTuples(values, numCols, PAIR_ENTRIES);
    const { weights, keep } = this.scratchFor(count);
    pairRowWeights(this.numVector, i, jFirst, numCols, weights);
    this.addRow(values, weights, keep, count, (e, coords, at) => {
      coords[at] = 2 * i + ((e >> 1) & 1);
      coords[at + 1] = 2 * (jFirst + (e >> 2)) + (e & 1);
    });
  }

  /**
   * One entry (bits a of i, b of j) of each pair (i, j) for j = jFirst … jFirst + numCols − 1, for metrics
   * with a single table entry per pair (r²): `values[c]` is the c-th pair's value.
   */
  addPairEntryRow(i: number, a: number, jFirst: number, b: number, numCols: number, values: Float64Array): void {
    if (this.window === null) {
      this.addWholePairEntryRow(i, a, jFirst, b, numCols, values, 0);
      return;
    }
    const ranges = this.windowRanges;
    const numRanges = windowColumnRanges(this.window, i, jFirst, jFirst + numCols, ranges);
    for (let k = 0; k < numRanges; k++) {
      const begin = ranges[2 * k];
      this.addWholePairEntryRow(i, a, begin, b, ranges[2 * k + 1] - begin, values, begin - jFirst);
    }
  }

  /** Columns jFirst … jFirst + numCols − 1 of row i, their values from `values[at …]`. */
  private addWholePairEntryRow(i: number, a: number, jFirst: number, b: number, numCols: number, allValues: Float64Array, at: number): void {
    // Readers of `values` take entries [0, numCols) only.
    const values = at === 0 ? allValues : allValues.subarray(at, at + numCols);
    this.histogram?.addTuples(values, numCols, entryBitsOf(a, b));
    if (this.weights.length < numCols) this.scratchFor(numCols);
    const { weights, keep } = this;
    pairRowEntryWeights(this.numVector, i, a, jFirst, b, numCols, weights);
    markPassingEntries(this.threshold, values, numCols, keep);
    this.checksum.addEntries(values, weights, numCols, keep);
    if (this.writer === null) return;
    // One loop without a call per record (r²'s every pair is a record without a threshold).
    const words = this.recordWords;
    const floats = this.recordValues;
    const coordI = 2 * i + a;
    const stride = this.stride;
    for (let e = 0; e < numCols; e++) {
      if (keep[e] === 0) continue;
      const w = stride * this.numBuffered;
      words[w] = coordI;
      words[w + 1] = 2 * (jFirst + e) + b;
      floats[w + 2] = values[e];
      if (++this.numBuffered === RECORDS_PER_FLUSH) this.flush();
    }
  }

  /**
   * The triples (i, j, k) for k = kFirst … kFirst + numK − 1: `values[8t + 4a + 2b + c]` is the value of
   * entry bits (a of i, b of j, c of k) of the t-th triple.
   */
  addTripleRow(i: number, j: number, kFirst: number, numK: number, values: Float64Array): void {
    if (this.window !== null) throw new Error('an LD window in a 3-way run (checkJob refuses it)');
    const count = 8 * numK;
    this.histogram?.addTuples(values, numK, TRIPLE_ENTRIES);
    const { weights, keep } = this.scratchFor(count);
    tripleRowWeights(this.numVector, i, j, kFirst, numK, weights);
    this.addRow(values, weights, keep, count, (e, coords, at) => {
      coords[at] = 2 * i + ((e >> 2) & 1);
      coords[at + 1] = 2 * j + ((e >> 1) & 1);
      coords[at + 2] = 2 * (kFirst + (e >> 3)) + (e & 1);
    });
  }

  /**
   * One value per tuple without entry bits (SPEC §8, Czekanowski): every value goes to the checksum (uid from the
   * sorted coordinates alone), the threshold only chooses the records, whose coordinates are plain vector indices.
   */
  addTupleValueRow(tuple: TupleRow, values: Float64Array): void {
    const { i, j, first, count } = tuple;
    const k = tuple.k ?? null;
    if (this.window !== null) throw new Error('an LD window with one value per tuple (checkJob refuses it)');
    this.histogram?.addTuples(values, count, ONE_ENTRY[0]);
    const { weights, keep } = this.scratchFor(count);
    const nv = this.numVector;
    if (k !== null) for (let t = 0; t < count; t++) weights[t] = checksumWeight(quadUid(nv, i, j ?? 0, k, first + t));
    else if (j === null) tupleValuePairWeights(nv, i, first, count, weights);
    else for (let t = 0; t < count; t++) weights[t] = checksumWeight(tupleUid(nv, i, j, first + t));
    keep.fill(1, 0, count);
    this.checksum.addEntries(values, weights, count, keep);
    if (this.writer === null) return;
    markPassingEntries(this.threshold, values, count, keep);
    // A top-N writer's bar (inclusive: a tie may still enter through a smaller index; NaN never passes).
    // The writer's bar counts only records it was given: hand it this sink's first.
    if (this.writer.recordBar !== undefined && this.numBuffered > 0) this.flush();
    const bar = this.writer.recordBar?.() ?? null;
    const barValue = bar === null ? 0 : floatOfBits(bar.valueBits);
    const barSign = bar === null ? 0 : bar.keep === 'atLeast' ? 1 : -1;
    for (let t = 0; t < count; t++) {
      if (keep[t] === 0) continue;
      if (barSign !== 0 && !(barSign * (Math.fround(values[t]) - barValue) >= 0)) continue;
      const at = this.stride * this.numBuffered;
      this.recordWords[at] = i;
      if (j === null) {
        this.recordWords[at + 1] = first + t;
      } else if (k === null) {
        this.recordWords[at + 1] = j;
        this.recordWords[at + 2] = first + t;
      } else {
        this.recordWords[at + 1] = j;
        this.recordWords[at + 2] = k;
        this.recordWords[at + 3] = first + t;
      }
      this.recordValues[at + this.numWay] = values[t];
      if (++this.numBuffered === RECORDS_PER_FLUSH) this.flush();
    }
  }

  /**
   * RecordSelectingSink.tupleRecordSelection: the threshold and bar addTupleValueRow would apply now, for a finalize that
   * adds the checksum and records of such rows itself; null with a histogram or a window, which that finalize does not feed
   * (a window it applies itself, `windowApplied`, does not refuse it).
   */
  tupleRecordSelection(options?: SelectionOptions): TupleRecordSelection | null {
    if (this.histogram !== null || (this.window !== null && options?.windowApplied !== true)) return null;
    // The writer's bar counts only records it was given (addTupleValueRow's order).
    if (this.writer?.recordBar !== undefined) this.flush();
    const bar = this.writer?.recordBar?.() ?? null;
    return { numVector: this.numVector, threshold: this.threshold, writesRecords: this.writer !== null, bar, top: this.writer?.top ?? null };
  }

  /**
   * Pairs whose checksum and records are their exact tallies (`row.counts`, four entries per pair) rather than their
   * value (KING's kinship, outside SPEC §5's range): every entry goes to the checksum; the entries of the pairs the
   * analysis marked (`row.recorded`, its threshold on the value) become records, whatever the sink's threshold.
   */
  addPairCountRow(row: PairCountRow): void {
    const { i, jFirst, numCols, counts, recorded } = row;
    if (this.window !== null) throw new Error('an LD window with tallies per pair (checkJob refuses it)');
    addPairRowChecksum(this.checksum, this.numVector, row, counts);
    if (this.writer === null) return;
    for (let c = 0; c < numCols; c++) {
      if (recorded[c] === 0) continue;
      for (let e = 0; e < 4; e++) {
        const at = this.stride * this.numBuffered;
        this.recordWords[at] = 2 * i + (e >> 1);
        this.recordWords[at + 1] = 2 * (jFirst + c) + (e & 1);
        this.recordValues[at + 2] = counts[4 * c + e];
        if (++this.numBuffered === RECORDS_PER_FLUSH) this.flush();
      }
    }
  }

  /**
   * Output records already laid out as in the file (`numWay` coordinates, then the value's float32 bits, each), whose
   * threshold and checksum were handled elsewhere; they follow the records added before.
   */
  addRecordWords(words: Uint32Array, numRecords: number): void {
    if (this.writer === null || numRecords === 0) return;
    this.flush();
    this.writer.appendRecordWords(words, numRecords);
  }

  /** Threshold, checksum and records of one row's entries; `coordsOf` writes entry e's coordinates. */
  private addRow(
    values: Float64Array, weights: Float64Array, keep: Uint8Array, count: number,
    coordsOf: (e: number, coords: Uint32Array, at: number) => void,
  ): void {
    markPassingEntries(this.threshold, values, count, keep);
    this.checksum.addEntries(values, weights, count, keep);
    if (this.writer === null) return;
    for (let e = 0; e < count; e++) {
      if (keep[e] === 0) continue;
      const at = this.stride * this.numBuffered;
      coordsOf(e, this.recordWords, at);
      this.recordValues[at + this.numWay] = values[e];
      if (++this.numBuffered === RECORDS_PER_FLUSH) this.flush();
    }
  }

  private scratchFor(count: number): { weights: Float64Array; keep: Uint8Array } {
    if (this.weights.length < count) {
      const size = Math.max(count, 2 * this.weights.length);
      this.weights = new Float64Array(size);
      this.keep = new Uint8Array(size);
    }
    return { weights: this.weights, keep: this.keep };
  }

  /** Hands buffered records to the writer. */
  flush(): void {
    if (this.writer !== null && this.numBuffered > 0) this.writer.appendRecordWords(this.recordWords, this.numBuffered);
    this.numBuffered = 0;
  }
}

/** SPEC §8's uid of a tuple: its coordinates sorted descending, `(c0·nv + c1)[·nv + c2]`, no entry bits. */
const BAR_BITS = new Uint32Array(1);
const BAR_FLOAT = new Float32Array(BAR_BITS.buffer);

/** The float32 value of IEEE bits. */
function floatOfBits(bits: number): number {
  BAR_BITS[0] = bits;
  return BAR_FLOAT[0];
}

function tupleUid(numVector: number, i: number, j: number | null, k: number): number {
  if (j === null) return i > k ? i * numVector + k : k * numVector + i;
  let hi = i;
  let mid = j;
  let lo = k;
  if (hi < mid) [hi, mid] = [mid, hi];
  if (mid < lo) [mid, lo] = [lo, mid];
  if (hi < mid) [hi, mid] = [mid, hi];
  return (hi * numVector + mid) * numVector + lo;
}

/** SPEC §5's uid of a quadruple (4-way, one value per tuple): coordinates sorted descending, ((c0·nv + c1)·nv + c2)·nv + c3. */
function quadUid(numVector: number, i: number, j: number, k: number, l: number): number {
  // A 5-comparator sorting network, descending (no allocation: one call per quadruple).
  let a = i, b = j, c = k, d = l;
  if (a < b) [a, b] = [b, a];
  if (c < d) [c, d] = [d, c];
  if (a < c) [a, c] = [c, a];
  if (b < d) [b, d] = [d, b];
  if (b < c) [b, c] = [c, b];
  return ((a * numVector + b) * numVector + c) * numVector + d;
}

/** The one-entry tuple shapes of addPairEntryRow, made once. */
const ONE_ENTRY = [0, 1, 2, 3].map((bits) => [bits]);

function entryBitsOf(a: number, b: number): readonly number[] {
  return ONE_ENTRY[2 * a + b];
}
