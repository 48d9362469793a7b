// WGSL of device-finalize histograms (SPEC §9, core/histogramLayout.ts): each value's bucket computed from its exact
// double (soft double, softDouble.ts) as the host computes it — the product x·1000 rounded to a double, then
// truncated —, counted with atomics into the request's buckets. A count is 64 bits, two u32 words (lo, hi): the
// add that wraps lo carries into hi, so a request's counts are exact however many values it holds.
//
// Why not f32: x·1000 in f32 truncates to another bucket than the double product whenever that product lies within
// f32's rounding error (~2^-24 relative) of an integer — a double such as 0.1349999999999 or 0.135000000001, common
// among values that are ratios of small tallies, would often move by one bucket; no f32 shortcut is exact there.
import type { HistogramLayout } from '../../../../../core/histogramLayout.js';

/** The program's histogram buffer: a lo and a hi word per slot; slots are the buckets of every column, then the undefined values. */
export function histogramSlots(layout: HistogramLayout): number {
  return layout.columnNames.length * layout.numBuckets + 1;
}

/** u32 words of a request's histogram buffer. */
export function histogramWords(layout: HistogramLayout): number {
  return 2 * histogramSlots(layout);
}

/** The storage binding the histogram functions use (`histogram`, atomic words). */
export const HISTOGRAM_STORAGE = { name: 'histogram', access: 'read_write', elementType: 'atomic<u32>' } as const;

/**
 * Module-scope WGSL defining `fn histogramCount(values: array<vec2<u32>, N>)`, which counts one tuple's values in
 * `layout`: value k of the array is entry `valueEntryBits[k]`. Needs the soft-double library and the `histogram`
 * binding (HISTOGRAM_STORAGE) declared.
 */
export function histogramWgsl(layout: HistogramLayout, valueEntryBits: readonly number[]): string {
  const { numBuckets, entryColumns, sumColumns } = layout;
  const numValues = valueEntryBits.length;
  const valueOf = (bits: number): number => {
    const k = valueEntryBits.indexOf(bits);
    if (k < 0) throw new Error(`histogram: entry ${bits} is not among the program's values (${valueEntryBits.join(', ')})`);
    return k;
  };
  const entryCounts = valueEntryBits.flatMap((bits, k) =>
    entryColumns[bits] >= 0 ? [`  histogramValue(values[${k}], ${entryColumns[bits] * numBuckets}u);`] : []);
  const sumCounts = sumColumns.map(({ column, entryBits: [a, b] }) =>
    `  histogramSum(values[${valueOf(a)}], values[${valueOf(b)}], ${column * numBuckets}u);`);
  return `
const HIST_BUCKETS = ${numBuckets}u;
/** The slot of undefined values, after every column's buckets. */
const HIST_UNDEFINED = ${layout.columnNames.length * numBuckets}u;
/** One more in a slot's 64-bit count: lo at word 2·slot, hi at 2·slot + 1; the add that wraps lo carries. */
fn histogramAdd(slot: u32) {
  if (atomicAdd(&histogram[2u * slot], 1u) == 0xffffffffu) { atomicAdd(&histogram[2u * slot + 1u], 1u); }
}
/** An undefined value (NaN: exponent field all ones). */
fn histogramUndefined(v: vec2<u32>) -> bool {
  return sdExp(v) == 2047u;
}
/** (int)(v·1000) clamped to [0, HIST_BUCKETS − 1], of a double v that is ±0 or normal: the double product, truncated. */
fn histogramBucket(v: vec2<u32>) -> u32 {
  if ((v.y & SD_SIGN) != 0u || sdIsZero(v)) { return 0u; }
  let x = sdMulU32(sdFactor(v), 1000u);
  let e = sdExp(x);
  if (e < 1023u) { return 0u; }
  // x ≥ 2^31 (or infinite): past every bucket.
  if (e >= 1054u) { return HIST_BUCKETS - 1u; }
  // x = significand · 2^(e − 1075): its integer part is the significand shifted right by 1075 − e (22 … 52).
  return min(u64Shr(sdMant(x), 1075u - e).x, HIST_BUCKETS - 1u);
}
fn histogramValue(v: vec2<u32>, columnFirst: u32) {
  if (histogramUndefined(v)) { histogramAdd(HIST_UNDEFINED); } else { histogramAdd(columnFirst + histogramBucket(v)); }
}
/** A column of sums (LL+HH): the double sum, when both values are defined. */
fn histogramSum(a: vec2<u32>, b: vec2<u32>, columnFirst: u32) {
  if (!histogramUndefined(a) && !histogramUndefined(b)) { histogramAdd(columnFirst + histogramBucket(sdAdd(a, b))); }
}
fn histogramCount(values: array<vec2<u32>, ${numValues}>) {
${[...entryCounts, ...sumCounts].join('\n')}
}`;
}

/**
 * The counts of a read-back histogram buffer (`words`: histogramWords(layout)) as exact doubles: each slot's
 * lo + hi·2^32.
 */
export function histogramCountsOf(layout: HistogramLayout, words: Uint32Array): { counts: Float64Array; numUndefined: number } {
  const numBucketSlots = histogramSlots(layout) - 1;
  const counts = new Float64Array(numBucketSlots);
  for (let s = 0; s < numBucketSlots; s++) counts[s] = words[2 * s] + words[2 * s + 1] * 2 ** 32;
  return { counts, numUndefined: words[2 * numBucketSlots] + words[2 * numBucketSlots + 1] * 2 ** 32 };
}
