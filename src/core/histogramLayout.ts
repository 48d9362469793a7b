// Histograms of metric values (SPEC §9, CoMet's --histograms_file): the layout an analysis declares — buckets,
// columns, which table entries (and sums of two entries) count in which column — and the bucket of a value. The
// host sink (engine/finalize/histogramSink.ts) and the device programs (mgemm's histogramWgsl.ts) both follow it.

/** Buckets per unit of value: bucket b holds the values x with (int)(x·1000) = b (SPEC §9). */
export const HISTOGRAM_BUCKETS_PER_UNIT = 1000;

/** A column that counts the sum of two entries' values of a tuple (CoMet's LL+HH: v00 + v11). */
export interface HistogramSumColumn {
  readonly column: number;
  /** The two entries' bits (2a + b, or 4a + 2b + c). */
  readonly entryBits: readonly [number, number];
}

/**
 * How an analysis's values are counted. Bucket b of column c counts the values x (of the entries mapped to c)
 * whose bucket is b: `trunc(x·1000)` clamped to [0, numBuckets − 1] (histogramBucket). Undefined values (NaN) are
 * counted apart, in no column.
 */
export interface HistogramLayout {
  readonly numBuckets: number;
  /** Column names after the file's first column `min` (e.g. LL, LH, HH, LL+HH). */
  readonly columnNames: readonly string[];
  /** Per entry bits (index 2a + b, or 4a + 2b + c), the column its value counts in, or −1: not counted. */
  readonly entryColumns: readonly number[];
  readonly sumColumns: readonly HistogramSumColumn[];
}

/**
 * Counts of a part of a run (a finalize task, a device request): column c's bucket b at `counts[c · numBuckets + b]`,
 * each an exact integer below 2^53, and the undefined values seen.
 */
export interface HistogramCounts {
  readonly counts: Float64Array;
  readonly numUndefined: number;
}

/**
 * The bucket of a defined value: `(int)(value·1000)` — the double product, truncated — clamped to
 * [0, numBuckets − 1], as CoMet's Histograms::add.
 */
export function histogramBucket(value: number, numBuckets: number): number {
  const bucket = Math.trunc(value * HISTOGRAM_BUCKETS_PER_UNIT);
  return bucket <= 0 ? 0 : bucket >= numBuckets ? numBuckets - 1 : bucket;
}

/** Buckets of a histogram of values in [0, range): `(int)(1000·range)`, as CoMet sizes it from the multiplier. */
export function histogramBucketsFor(range: number): number {
  return Math.trunc(HISTOGRAM_BUCKETS_PER_UNIT * range);
}

/** Entries of a tuple that count in a column (the self-check: columns other than sums add up to tuples × this). */
export function countedEntriesPerTuple(layout: HistogramLayout): number {
  return layout.entryColumns.filter((column) => column >= 0).length;
}

/** Whether a column counts sums of two entries (left out of the self-check). */
export function isSumColumn(layout: HistogramLayout, column: number): boolean {
  return layout.sumColumns.some((sum) => sum.column === column);
}

/** Throws when a layout is inconsistent (an analysis's mistake, not the user's). */
export function checkHistogramLayout(layout: HistogramLayout, numEntries: number): void {
  const { numBuckets, columnNames, entryColumns, sumColumns } = layout;
  const numColumns = columnNames.length;
  const isColumn = (c: number): boolean => Number.isInteger(c) && c >= 0 && c < numColumns;
  const isEntry = (e: number): boolean => Number.isInteger(e) && e >= 0 && e < numEntries;
  if (!Number.isInteger(numBuckets) || numBuckets < 1) throw new Error(`histogram layout: ${numBuckets} buckets`);
  if (entryColumns.length !== numEntries || entryColumns.some((c) => c !== -1 && !isColumn(c))) {
    throw new Error(`histogram layout: entry columns ${entryColumns.join(',')} for ${numEntries} entries and ${numColumns} columns`);
  }
  if (sumColumns.some((s) => !isColumn(s.column) || !s.entryBits.every(isEntry))) throw new Error('histogram layout: a sum column out of range');
  const used = [...entryColumns.filter((c) => c >= 0), ...sumColumns.map((s) => s.column)];
  if (sumColumns.some((s) => entryColumns.includes(s.column)) || new Set(sumColumns.map((s) => s.column)).size !== sumColumns.length) {
    throw new Error('histogram layout: a sum column shares its column');
  }
  if (columnNames.some((_, c) => !used.includes(c))) throw new Error('histogram layout: a column counts nothing');
}

/** A short text that identifies a layout (program cache keys). */
export function histogramLayoutKey(layout: HistogramLayout): string {
  const sums = layout.sumColumns.map((s) => `${s.column}=${s.entryBits.join('+')}`).join(',');
  return `${layout.numBuckets}:${layout.entryColumns.join(',')}:${sums}`;
}
