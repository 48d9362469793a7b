// The checksum of a row of pairs whose four entries all count (ResultSink.addPairCountRow: KING's and the distances'
// exact tallies) in one pass: each entry's weight stepped along the row's two runs of uids as pairRowWeights steps it,
// and its product with the value summed as ChecksumAccumulator.addEntries would — the same exact sum, entries and
// zeros, without the weights array, the keep flags and their passes, and for values that are integers · 2^-22 (the
// analyses' scaled counts) in two multiply-adds per entry instead of six and four floors: these were two thirds of
// KING's host finalize.
import { type ChecksumAccumulator, WEIGHT_OFFSET_HIGH, WEIGHT_OFFSET_LOW } from './checksum.js';
import { randomize, RANDOMIZE_MAX, randomizeStep } from './randomize.js';

const LIMB = 2 ** 20;
/** Values v with v · 2^COUNT_BITS an integer q take the fast path: rv·floor(v·2^56) = rv·q·2^(56 − COUNT_BITS). */
const COUNT_BITS = 22;
const COUNT_UNIT = 2 ** COUNT_BITS;
/**
 * Σ low·q and Σ high·q stay exact while below 2^53: with weight parts < 2^20 they are flushed once the counts summed
 * since reach 2^31 (at KING's ≤ 4·50,000 a pair, every ~10,000 pairs; flushing every few pairs cost more than the sums).
 */
const COUNTS_PER_FLUSH = 2 ** 31;
/** addEntries' keep flags for a pair's four entries: all kept. */
const ALL_KEPT = new Uint8Array(4).fill(1);

/** A row of pairs (i, j) for j = jFirst … jFirst + numCols − 1. */
export interface PairRowSpan {
  readonly i: number;
  readonly jFirst: number;
  readonly numCols: number;
}

/**
 * Adds every entry of the pairs of `row` (j ≠ i) to `checksum`: `values[4c + 2a + b]` is entry (a of i, b of j) of the
 * c-th pair, as addPairRow lays them out. The same sum, entries and zeros as pairRowWeights followed by addEntries with
 * every entry kept. @throws UserError for a value outside [0, 16) (NaN counts as an entry that adds nothing).
 */
export function addPairRowChecksum(checksum: ChecksumAccumulator, numVector: number, row: PairRowSpan, values: Float64Array): void {
  const { i, jFirst, numCols } = row;
  const numLeft = Math.max(0, Math.min(numCols, i - jFirst));
  // Left of i the higher coordinate is i: entry (a, b) is sorted entry 2a + b. Right of it j is: sorted entry 2b + a.
  if (numLeft > 0) addRun(checksum, { baseUid: (i * numVector + jFirst) * 4, uidStep: 4, count: numLeft, at: 0, swapped: false }, values);
  if (numLeft < numCols) {
    const j = jFirst + numLeft;
    addRun(checksum, { baseUid: (j * numVector + i) * 4, uidStep: 4 * numVector, count: numCols - numLeft, at: 4 * numLeft, swapped: true }, values);
  }
}

/** A run of pairs whose base uids are baseUid + t·uidStep, their values from values[at …]. */
interface PairRun {
  readonly baseUid: number;
  readonly uidStep: number;
  readonly count: number;
  readonly at: number;
  /** Entries (0, 1) and (1, 0) trade places in uid order. */
  readonly swapped: boolean;
}

/**
 * A weight is rv = low + RANDOMIZE_MAX·high (both < 2^20), so for a count q the product is low·q + RANDOMIZE_MAX·high·q:
 * two sums, Σ low·q and Σ high·q, shifted into place when flushed. A pair with another value goes through addEntries. The four entries of a pair are written out: a loop over them with its index arithmetic ran 2.5× slower.
 */
function addRun(checksum: ChecksumAccumulator, run: PairRun, values: Float64Array): void {
  const step = randomizeStep(run.uidStep);
  let low = randomize(run.baseUid + WEIGHT_OFFSET_LOW);
  let high = randomize(run.baseUid + WEIGHT_OFFSET_HIGH);
  // Sorted entries 1 and 2 lie at values[at + 1] and [at + 2], or swapped.
  const second = run.swapped ? 2 : 1;
  const third = run.swapped ? 1 : 2;
  // A pair with another value goes through addEntries (which counts its entries and zeros itself).
  const general = { values: new Float64Array(4), weights: new Float64Array(4) };
  let lowSum = 0, highSum = 0, countsSum = 0, numGeneral = 0, zeros = 0;
  for (let t = 0, at = run.at; t < run.count; t++, at += 4) {
    const q0 = values[at] * COUNT_UNIT;
    const q1 = values[at + second] * COUNT_UNIT;
    const q2 = values[at + third] * COUNT_UNIT;
    const q3 = values[at + 3] * COUNT_UNIT;
    let entryLow = low;
    let entryHigh = high;
    if (isCount(q0) && isCount(q1) && isCount(q2) && isCount(q3)) {
      zeros += (q0 === 0 ? 1 : 0) + (q1 === 0 ? 1 : 0) + (q2 === 0 ? 1 : 0) + (q3 === 0 ? 1 : 0);
      countsSum += q0 + q1 + q2 + q3;
      lowSum += entryLow * q0;
      highSum += entryHigh * q0;
      entryLow = stepped(entryLow, 4096);
      entryHigh = stepped(entryHigh, 4096);
      lowSum += entryLow * q1;
      highSum += entryHigh * q1;
      entryLow = stepped(entryLow, 4096);
      entryHigh = stepped(entryHigh, 4096);
      lowSum += entryLow * q2;
      highSum += entryHigh * q2;
      entryLow = stepped(entryLow, 4096);
      entryHigh = stepped(entryHigh, 4096);
      lowSum += entryLow * q3;
      highSum += entryHigh * q3;
    } else {
      const sorted = [values[at], values[at + second], values[at + third], values[at + 3]];
      for (let e = 0; e < 4; e++, entryLow = stepped(entryLow, 4096), entryHigh = stepped(entryHigh, 4096)) {
        general.values[e] = sorted[e];
        general.weights[e] = entryLow + RANDOMIZE_MAX * entryHigh;
      }
      checksum.addEntries(general.values, general.weights, 4, ALL_KEPT);
      numGeneral++;
    }
    low = stepped(low, step);
    high = stepped(high, step);
    if (countsSum >= COUNTS_PER_FLUSH) {
      flushCounts(checksum, lowSum, highSum);
      lowSum = highSum = countsSum = 0;
    }
  }
  flushCounts(checksum, lowSum, highSum);
  checksum.countEntries(4 * (run.count - numGeneral), zeros);
}

/** Whether v · 2^22 = q is a count: an integer in [0, 2^26) (v in [0, 16); NaN is not). */
function isCount(q: number): boolean {
  return q >>> 0 === q && q < 67108864;
}

/** A randomize value stepped by `step` (both < RANDOMIZE_MAX), modulo RANDOMIZE_MAX. */
function stepped(value: number, step: number): number {
  const next = value + step;
  return next >= RANDOMIZE_MAX ? next - RANDOMIZE_MAX : next;
}

/** S += (lowSum + RANDOMIZE_MAX·highSum) · 2^(56 − COUNT_BITS), both sums integers below 2^52. */
function flushCounts(checksum: ChecksumAccumulator, lowSum: number, highSum: number): void {
  const shift = 56 - COUNT_BITS;
  if (lowSum !== 0) checksum.addShiftedInteger(lowSum, shift);
  if (highSum === 0) return;
  // RANDOMIZE_MAX·highSum in two parts that stay exact: the low 20 bits (product < 2^40) and the rest (< 2^52).
  const highTop = Math.floor(highSum / LIMB);
  checksum.addShiftedInteger(RANDOMIZE_MAX * (highSum - highTop * LIMB), shift);
  if (highTop !== 0) checksum.addShiftedInteger(RANDOMIZE_MAX * highTop, shift + 20);
}
