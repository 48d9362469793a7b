// WGSL of device-finalize histograms (SPEC §9, core/histogramLayout.ts): each value's bucket computed from its exact
// double (soft double, softDouble.ts) as the host computes it — the product x·1000 rounded to a double, then
// truncated —, counted with atomics into the request's buckets (the finalize programs through a workgroup cache,
// histogramCacheWgsl). A count is 64 bits, two u32 words (lo, hi): the add that wraps lo carries into hi, so a
// request's counts are exact however many values it holds.
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

/** WGSL calls counting one tuple's values (`values`, value k being entry `valueEntryBits[k]`) by `add(slot)`. */
function countCalls(layout: HistogramLayout, valueEntryBits: readonly number[], add: string): string {
  const { numBuckets, entryColumns, sumColumns } = layout;
  const valueOf = (bits: number): number => {
    const k = valueEntryBits.indexOf(bits);
    if (k < 0) throw new Error(`histogram: entry ${bits} is not among the program's values (${valueEntryBits.join(', ')})`);
    return k;
  };
  const entryCounts = valueEntryBits.flatMap((bits, k) =>
    entryColumns[bits] >= 0 ? [`  ${add}(histogramValueSlot(values[${k}], ${entryColumns[bits] * numBuckets}u));`] : []);
  const sumCounts = sumColumns.map(({ column, entryBits: [a, b] }) =>
    `  if (histogramBothDefined(values[${valueOf(a)}], values[${valueOf(b)}])) { ${add}(histogramSumSlot(values[${valueOf(a)}], values[${valueOf(b)}], ${column * numBuckets}u)); }`);
  return [...entryCounts, ...sumCounts].join('\n');
}

/** Values one tuple counts: its entries mapped to a column and its sums. */
function countsPerTuple(layout: HistogramLayout, valueEntryBits: readonly number[]): number {
  return valueEntryBits.filter((bits) => layout.entryColumns[bits] >= 0).length + layout.sumColumns.length;
}

/**
 * Module-scope WGSL defining `fn histogramCount(values: array<vec2<u32>, N>)`, which counts one tuple's values in
 * `layout` straight into the global counts: value k of the array is entry `valueEntryBits[k]`. Needs the soft-double
 * library and the `histogram` binding (HISTOGRAM_STORAGE) declared.
 */
export function histogramWgsl(layout: HistogramLayout, valueEntryBits: readonly number[]): string {
  const numValues = valueEntryBits.length;
  if (histogramSlots(layout) >= 2 ** 31) throw new Error(`histogram: ${histogramSlots(layout)} slots exceed 2^31`);
  return `
const HIST_BUCKETS = ${layout.numBuckets}u;
/** The slot of undefined values, after every column's buckets. */
const HIST_UNDEFINED = ${layout.columnNames.length * layout.numBuckets}u;
/** n more in a slot's 64-bit count: lo at word 2·slot, hi at 2·slot + 1; the add that wraps lo (n < 2^32) carries. */
fn histogramAddMany(slot: u32, n: u32) {
  if (atomicAdd(&histogram[2u * slot], n) > 0xffffffffu - n) { atomicAdd(&histogram[2u * slot + 1u], 1u); }
}
fn histogramAdd(slot: u32) {
  histogramAddMany(slot, 1u);
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
fn histogramValueSlot(v: vec2<u32>, columnFirst: u32) -> u32 {
  return select(columnFirst + histogramBucket(v), HIST_UNDEFINED, histogramUndefined(v));
}
/** A column of sums (LL+HH) counts the double sum when both values are defined (histogramBothDefined). */
fn histogramBothDefined(a: vec2<u32>, b: vec2<u32>) -> bool {
  return !histogramUndefined(a) && !histogramUndefined(b);
}
fn histogramSumSlot(a: vec2<u32>, b: vec2<u32>, columnFirst: u32) -> u32 {
  return columnFirst + histogramBucket(sdAdd(a, b));
}
fn histogramCount(values: array<vec2<u32>, ${numValues}>) {
${countCalls(layout, valueEntryBits, 'histogramAdd')}
}`;
}

/** Lines of a workgroup's histogram cache (histogramCacheWgsl): 8 KiB, with finalize's 6 KiB of checksum sums within WebGPU's 16 KiB. */
export const HISTOGRAM_CACHE_LINES = 1024;

/** How a program uses the workgroup cache: its threads, and the most tuples a workgroup counts between flushes. */
export interface HistogramCacheOptions {
  readonly numThreads: number;
  readonly tuplesPerFlush: number;
}

/**
 * Module-scope WGSL (after histogramWgsl's) of a workgroup's cache of counts, against the contention of every thread
 * adding to the same few hot global counters (neighbouring tuples' values share buckets):
 * - `histogramCacheClear(li)` before the first count, `histogramCacheFlush(li)` after at most `tuplesPerFlush`
 *   tuples — both by every thread, in uniform control flow (they hold barriers);
 * - `histogramCacheCount(values)` as histogramCount, into the cache.
 * Why a direct-mapped cache: the full table (CCC: 4 or 5 columns × 4500 buckets) is far beyond the 16 KiB of
 * workgroup memory WebGPU guarantees, even as u16 or u8 counters, and passes over bucket ranges would compute every
 * value again. Slot s lives in line s mod HISTOGRAM_CACHE_LINES (a column's neighbouring buckets never collide);
 * the first slot to claim a line holds it until the flush, a slot whose line is taken counts globally (exact either
 * way, only slower). A flush adds each held line's count with one 64-bit add. A count never wraps: at most
 * tuplesPerFlush × values per tuple, checked below 2^32.
 */
export function histogramCacheWgsl(layout: HistogramLayout, valueEntryBits: readonly number[], options: HistogramCacheOptions): string {
  const { numThreads, tuplesPerFlush } = options;
  const maxCount = tuplesPerFlush * countsPerTuple(layout, valueEntryBits);
  if (!Number.isInteger(maxCount) || maxCount >= 2 ** 32) throw new Error(`histogram cache: ${tuplesPerFlush} tuples per flush may wrap a u32 count`);
  return `
const HIST_CACHE_LINES = ${HISTOGRAM_CACHE_LINES}u;
const HIST_CACHE_THREADS = ${numThreads}u;
/** Per line: the slot it holds + 1 (0: free), and its count since the last flush. */
var<workgroup> histCacheKeys: array<atomic<u32>, ${HISTOGRAM_CACHE_LINES}>;
var<workgroup> histCacheCounts: array<atomic<u32>, ${HISTOGRAM_CACHE_LINES}>;
fn histogramCacheAdd(slot: u32) {
  let line = slot % HIST_CACHE_LINES;
  let key = slot + 1u;
  var held = atomicLoad(&histCacheKeys[line]);
  // Claim a free line (the weak exchange may fail spuriously: try again while the line is free).
  while (held == 0u) {
    let claim = atomicCompareExchangeWeak(&histCacheKeys[line], 0u, key);
    held = select(claim.old_value, key, claim.exchanged);
  }
  if (held == key) { atomicAdd(&histCacheCounts[line], 1u); } else { histogramAdd(slot); }
}
fn histogramCacheCount(values: array<vec2<u32>, ${valueEntryBits.length}>) {
${countCalls(layout, valueEntryBits, 'histogramCacheAdd')}
}
/** Frees every line (explicitly: not relying on workgroup memory starting zeroed). */
fn histogramCacheClear(li: u32) {
  for (var line = li; line < HIST_CACHE_LINES; line += HIST_CACHE_THREADS) {
    atomicStore(&histCacheKeys[line], 0u);
    atomicStore(&histCacheCounts[line], 0u);
  }
  workgroupBarrier();
}
/** Adds every held line's count to the global counts, and frees the lines. */
fn histogramCacheFlush(li: u32) {
  workgroupBarrier();
  for (var line = li; line < HIST_CACHE_LINES; line += HIST_CACHE_THREADS) {
    let n = atomicLoad(&histCacheCounts[line]);
    if (n != 0u) { histogramAddMany(atomicLoad(&histCacheKeys[line]) - 1u, n); }
  }
  histogramCacheClear(li);
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
