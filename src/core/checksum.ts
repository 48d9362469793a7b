// CoMet's exact, order-independent checksum of metric values (SPEC §5).
//
// Two runs must print the same checksum whenever they compute the same values for the same
// (pair or triple, entry) set — whatever the decomposition, backend, phase or stage split.
// S = Σ rv·iv is kept exactly in 20-bit limbs held in doubles: rv < 2^40 and iv < 2^60 split into
// 2 and 3 limbs, so each limb product is < 2^40 and a column may absorb 2^10 entries before it has
// to be normalized, far below the 2^53 at which doubles stop being exact.
import { randomize, RANDOMIZE_MAX, randomizeStep } from './randomize.js';
import { UserError } from './errors.js';

const LIMB_BITS = 20;
const LIMB = 2 ** LIMB_BITS;
/** 8 limbs of 20 bits hold sums up to 2^160: products are < 2^100, so 2^60 entries fit. */
export const CHECKSUM_LIMBS = 8;
const ENTRIES_PER_NORMALIZE = 1024;
const TWO_56 = 2 ** 56;

/** A weight is randomize(uid + WEIGHT_OFFSET_LOW) + RANDOMIZE_MAX · randomize(uid + WEIGHT_OFFSET_HIGH). */
export const WEIGHT_OFFSET_LOW = 956158765;
export const WEIGHT_OFFSET_HIGH = 842467637;

/** The checksum's random weight of a table entry: `uid` from sorted coordinates and entry bits. */
export function checksumWeight(uid: number): number {
  // rv = (randomize(uid + 956158765) + 714025·randomize(uid + 842467637)) mod 2^60; the sum is < 2^40.
  return randomize(uid + WEIGHT_OFFSET_LOW) + RANDOMIZE_MAX * randomize(uid + WEIGHT_OFFSET_HIGH);
}

/** Identity order of the 4 entries (bits of the higher coordinate first) and the swapped order. */
const PAIR_SAME = [0, 1, 2, 3];
const PAIR_SWAPPED = [0, 2, 1, 3];

/**
 * Weights of `count` tuples whose base uids are `baseUid + t·uidStep` (t < count), `perm.length` entries each, to
 * `out[at + perm.length·t + perm(e)]`. Along such a run both randomizes of a weight grow by one constant step
 * (randomizeStep), so a tuple costs additions, not two randomizes: the weights were a third of a CPU run's finalize.
 */
function weightsAlongRun(baseUid: number, uidStep: number, count: number, out: Float64Array, at: number, perm: readonly number[]): void {
  const numEntries = perm.length;
  const step = randomizeStep(uidStep);
  let low = randomize(baseUid + WEIGHT_OFFSET_LOW);
  let high = randomize(baseUid + WEIGHT_OFFSET_HIGH);
  for (let t = 0; t < count; t++, at += numEntries) {
    let entryLow = low;
    let entryHigh = high;
    for (let e = 0; e < numEntries; e++) {
      out[at + perm[e]] = entryLow + RANDOMIZE_MAX * entryHigh;
      entryLow += 4096;
      if (entryLow >= RANDOMIZE_MAX) entryLow -= RANDOMIZE_MAX;
      entryHigh += 4096;
      if (entryHigh >= RANDOMIZE_MAX) entryHigh -= RANDOMIZE_MAX;
    }
    low += step;
    if (low >= RANDOMIZE_MAX) low -= RANDOMIZE_MAX;
    high += step;
    if (high >= RANDOMIZE_MAX) high -= RANDOMIZE_MAX;
  }
}

/**
 * Weights of the pairs (i, j) for j = jFirst … jFirst + numCols − 1 (j ≠ i): out[4c + 2a + b] is the weight
 * of entry bits (a of i, b of j) of the c-th pair, i.e. checksumWeight(entryUid2(nv, i, a, j, b)). Left of i the uid
 * is (i·nv + j)·4, right of it (j·nv + i)·4: two runs of constant uid step.
 */
export function pairRowWeights(numVector: number, i: number, jFirst: number, numCols: number, out: Float64Array): void {
  const numLeft = Math.max(0, Math.min(numCols, i - jFirst));
  if (numLeft > 0) weightsAlongRun((i * numVector + jFirst) * 4, 4, numLeft, out, 0, PAIR_SAME);
  if (numLeft < numCols) {
    const j = jFirst + numLeft;
    weightsAlongRun((j * numVector + i) * 4, 4 * numVector, numCols - numLeft, out, 4 * numLeft, PAIR_SWAPPED);
  }
}

/**
 * Weights of one entry (bits a of i, b of j) of the pairs (i, j) for j = jFirst … jFirst + numCols − 1 (j ≠ i):
 * out[c] = checksumWeight(entryUid2(nv, i, a, j, b)) of the c-th pair. For analyses with one entry per pair (r²),
 * which would otherwise pay for the weights of all four.
 */
export function pairRowEntryWeights(numVector: number, i: number, a: number, jFirst: number, b: number, numCols: number, out: Float64Array): void {
  const numLeft = Math.max(0, Math.min(numCols, i - jFirst));
  // Left of i the higher coordinate is i (entry bits a, b in that order), right of it j (b, a).
  if (numLeft > 0) entryWeightsAlongRun((i * numVector + jFirst) * 4 + 2 * a + b, 4, numLeft, out, 0);
  if (numLeft < numCols) {
    const j = jFirst + numLeft;
    entryWeightsAlongRun((j * numVector + i) * 4 + 2 * b + a, 4 * numVector, numCols - numLeft, out, numLeft);
  }
}

/**
 * Weights of the one-value pairs (i, j) for j = jFirst … jFirst + numCols − 1 (j ≠ i, no entry bits: SPEC §8):
 * out[c] = checksumWeight(uid) with uid = max·nv + min of the c-th pair — left of i a run of uid step 1, right of it
 * one of step nv, so a pair costs additions (two randomizes per pair were a quarter of epistasis's finalize).
 */
export function tupleValuePairWeights(numVector: number, i: number, jFirst: number, numCols: number, out: Float64Array): void {
  const numLeft = Math.max(0, Math.min(numCols, i - jFirst));
  if (numLeft > 0) entryWeightsAlongRun(i * numVector + jFirst, 1, numLeft, out, 0);
  if (numLeft < numCols) {
    const j = jFirst + numLeft;
    entryWeightsAlongRun(j * numVector + i, numVector, numCols - numLeft, out, numLeft);
  }
}

/** Weights of the uids `uid + t·uidStep` (t < count) to `out[at + t]`: weightsAlongRun with one entry per tuple. */
function entryWeightsAlongRun(uid: number, uidStep: number, count: number, out: Float64Array, at: number): void {
  const step = randomizeStep(uidStep);
  let low = randomize(uid + WEIGHT_OFFSET_LOW);
  let high = randomize(uid + WEIGHT_OFFSET_HIGH);
  const end = at + count;
  for (let t = at; t < end; t++) {
    out[t] = low + RANDOMIZE_MAX * high;
    low += step;
    if (low >= RANDOMIZE_MAX) low -= RANDOMIZE_MAX;
    high += step;
    if (high >= RANDOMIZE_MAX) high -= RANDOMIZE_MAX;
  }
}

/**
 * For each order of (i, j, k) by size, where sorted entry bit e lands in the caller's (a, b, c) order; indexed by
 * 9·rankI + 3·rankJ + rankK (ranks 0–2, 0 = largest), built once: this runs for every triple.
 */
const TRIPLE_PERMS: readonly (readonly number[])[] = Array.from({ length: 27 }, (_, index) => {
  // Sorted position s (0 = largest coordinate) holds bit (2 − s) of e; the caller's bit of i is bit 2.
  const ranks = [Math.floor(index / 9), Math.floor(index / 3) % 3, index % 3];
  return Array.from({ length: 8 }, (_, e) => {
    let callerIdx = 0;
    for (let t = 0; t < 3; t++) callerIdx |= ((e >> (2 - ranks[t])) & 1) << (2 - t);
    return callerIdx;
  });
});

function triplePerm(rankI: number, rankJ: number, rankK: number): readonly number[] {
  return TRIPLE_PERMS[9 * rankI + 3 * rankJ + rankK];
}

/**
 * Weights of the triples (i, j, k) for k = kFirst … kFirst + numK − 1 (i, j, k distinct): out[8t + 4a + 2b + c]
 * is the weight of entry bits (a of i, b of j, c of k) of the t-th triple. Below min(i, j), between them and above
 * max(i, j), k keeps its rank among the three, so each of these runs has one permutation and one uid step (8, 8·nv,
 * 8·nv²).
 */
export function tripleRowWeights(
  numVector: number, i: number, j: number, kFirst: number, numK: number, out: Float64Array,
): void {
  const lower = Math.min(i, j);
  const upper = Math.max(i, j);
  const kEnd = kFirst + numK;
  const runs: readonly (readonly [number, number, number])[] = [
    [kFirst, Math.min(kEnd, lower), 8],
    [Math.max(kFirst, lower), Math.min(kEnd, upper), 8 * numVector],
    [Math.max(kFirst, upper), kEnd, 8 * numVector * numVector],
  ];
  for (const [first, end, uidStep] of runs) {
    let k = first;
    // A k equal to i or j (not a triple) starts a run: its weights as the definition gives them, one by one.
    while (k < end && (k === i || k === j)) {
      tripleWeightsAt(numVector, i, j, k, out, 8 * (k - kFirst));
      k++;
    }
    if (k >= end) continue;
    const rankI = (j > i ? 1 : 0) + (k > i ? 1 : 0);
    const rankJ = (i > j ? 1 : 0) + (k > j ? 1 : 0);
    const rankK = (i > k ? 1 : 0) + (j > k ? 1 : 0);
    weightsAlongRun(tripleBaseUid(numVector, i, j, k), uidStep, end - k, out, 8 * (k - kFirst), triplePerm(rankI, rankJ, rankK));
  }
}

/** `((c0·nv + c1)·nv + c2)·8` of i, j, k sorted descending. */
function tripleBaseUid(numVector: number, i: number, j: number, k: number): number {
  const c0 = Math.max(i, j, k);
  const c2 = Math.min(i, j, k);
  const c1 = i + j + k - c0 - c2;
  return ((c0 * numVector + c1) * numVector + c2) * 8;
}

/** The weights of one triple (i, j, k), per the definition. */
function tripleWeightsAt(numVector: number, i: number, j: number, k: number, out: Float64Array, at: number): void {
  const rankI = (j > i ? 1 : 0) + (k > i ? 1 : 0);
  const rankJ = (i > j ? 1 : 0) + (k > j ? 1 : 0);
  const rankK = (i > k ? 1 : 0) + (j > k ? 1 : 0);
  weightsAlongRun(tripleBaseUid(numVector, i, j, k), 0, 1, out, at, triplePerm(rankI, rankJ, rankK));
}

/**
 * uid of a 2-way entry: coordinates sorted descending with their entry bits,
 * `(c0·nv + c1)·4 + (bit0·2 + bit1)`.
 */
export function entryUid2(numVector: number, i: number, bitI: number, j: number, bitJ: number): number {
  return i > j
    ? (i * numVector + j) * 4 + bitI * 2 + bitJ
    : (j * numVector + i) * 4 + bitJ * 2 + bitI;
}

/** uid of a 3-way entry: `((c0·nv + c1)·nv + c2)·8 + bits` with coordinates sorted descending. */
export function entryUid3(
  numVector: number, i: number, bitI: number, j: number, bitJ: number, k: number, bitK: number,
): number {
  let c0 = i, b0 = bitI, c1 = j, b1 = bitJ, c2 = k, b2 = bitK;
  if (c0 < c1) { [c0, c1] = [c1, c0]; [b0, b1] = [b1, b0]; }
  if (c1 < c2) { [c1, c2] = [c2, c1]; [b1, b2] = [b2, b1]; }
  if (c0 < c1) { [c0, c1] = [c1, c0]; [b0, b1] = [b1, b0]; }
  return ((c0 * numVector + c1) * numVector + c2) * 8 + b0 * 4 + b1 * 2 + b2;
}

function checkValueRange(value: number): void {
  if (!(value >= 0 && value < 16)) {
    throw new UserError(`checksum needs metric values in [0, 16); got ${value} (check --ccc-param/--*-multiplier)`);
  }
}

/** Exact accumulator of S = Σ rv·iv, plus entry and zero counts. */
export class ChecksumAccumulator {
  /** Limbs of S, little-endian, 20 bits each once normalized. */
  readonly limbs = new Float64Array(CHECKSUM_LIMBS);
  entries = 0;
  zeros = 0;
  private sinceNormalize = 0;

  /**
   * Adds one entry that passed the threshold. NaN is an undefined value (r² of a pair where a SNP has no
   * variance over the common samples): an entry that adds 0 to S and is not a zero.
   */
  add(uid: number, value: number): void {
    this.entries++;
    if (Number.isNaN(value)) return;
    if (value === 0) {
      this.zeros++;
      return;
    }
    checkValueRange(value);
    const iv = Math.floor(value * TWO_56); // = floor((value/16)·2^60), exact: scaling by a power of 2
    const rv = checksumWeight(uid);
    const r1 = Math.floor(rv / LIMB);
    const r0 = rv - r1 * LIMB;
    const i2 = Math.floor(iv / (LIMB * LIMB));
    const rest = iv - i2 * LIMB * LIMB;
    const i1 = Math.floor(rest / LIMB);
    const i0 = rest - i1 * LIMB;
    const l = this.limbs;
    l[0] += r0 * i0;
    l[1] += r0 * i1 + r1 * i0;
    l[2] += r0 * i2 + r1 * i1;
    l[3] += r1 * i2;
    if (++this.sinceNormalize === ENTRIES_PER_NORMALIZE) this.normalize();
  }

  /**
   * Adds entries [0, count) of `values` with weights `weights` (from pairRowWeights / tripleRowWeights),
   * skipping those with `keep[e]` = 0 (see core/thresholds). The same sum as `add` per
   * entry; one tight loop over local limbs, because this is the engine's hot path.
   */
  addEntries(values: Float64Array, weights: Float64Array, count: number, keep: Uint8Array): void {
    let l0 = 0, l1 = 0, l2 = 0, l3 = 0;
    let entries = 0, zeros = 0, sinceFlush = 0;
    for (let e = 0; e < count; e++) {
      if (keep[e] === 0) continue;
      const value = values[e];
      entries++;
      if (value === 0) {
        zeros++;
        continue;
      }
      // NaN (an undefined r²) is an entry that adds 0, as in `add`.
      if (value !== value) continue;
      if (!(value >= 0 && value < 16)) checkValueRange(value);
      const rv = weights[e];
      const iv = Math.floor(value * TWO_56);
      const r1 = Math.floor(rv * (1 / LIMB));
      const r0 = rv - r1 * LIMB;
      const i2 = Math.floor(iv * (1 / (LIMB * LIMB)));
      const rest = iv - i2 * (LIMB * LIMB);
      const i1 = Math.floor(rest * (1 / LIMB));
      const i0 = rest - i1 * LIMB;
      l0 += r0 * i0;
      l1 += r0 * i1 + r1 * i0;
      l2 += r0 * i2 + r1 * i1;
      l3 += r1 * i2;
      // Each term is < 2^41: 2^11 of them stay below 2^53 (exact) before they go to the normalized limbs.
      if (++sinceFlush === ENTRIES_PER_NORMALIZE) {
        this.addColumns(l0, l1, l2, l3);
        l0 = l1 = l2 = l3 = 0;
        sinceFlush = 0;
      }
    }
    this.addColumns(l0, l1, l2, l3);
    this.entries += entries;
    this.zeros += zeros;
  }

  /**
   * Adds an exact partial sum of rv·iv over `entries` entries, `zeros` of them 0 (computed elsewhere, e.g. on
   * a GPU, with the same weights and values as `addEntries`). `sum` must be below 2^140 (2^40 products).
   */
  addExact(sum: bigint, entries: number, zeros: number): void {
    if (sum < 0n || sum >= 1n << 140n) throw new RangeError(`checksum partial sum out of range: ${sum}`);
    this.normalize();
    const l = this.limbs;
    for (let t = 0; t < CHECKSUM_LIMBS; t++) l[t] += Number((sum >> BigInt(LIMB_BITS * t)) & BigInt(LIMB - 1));
    this.normalize();
    this.entries += entries;
    this.zeros += zeros;
  }

  /**
   * Adds partial column sums computed elsewhere as addEntries computes them (pairRowChecksum.ts): Σ r0·i0, Σ (r0·i1 +
   * r1·i0), Σ (r0·i2 + r1·i1), Σ r1·i2 over at most 1024 entries (each column < 2^53), of `entries` entries, `zeros` 0.
   */
  addColumnSums(columns: { readonly l0: number; readonly l1: number; readonly l2: number; readonly l3: number }, entries: number, zeros: number): void {
    this.addColumns(columns.l0, columns.l1, columns.l2, columns.l3);
    this.entries += entries;
    this.zeros += zeros;
  }

  /** Adds x · 2^shift to S exactly (x an integer in [0, 2^52), shift ≥ 0), entries and zeros counted elsewhere. */
  addShiftedInteger(x: number, shift: number): void {
    const limb = Math.floor(shift / LIMB_BITS);
    const bitsInLimb = shift - limb * LIMB_BITS;
    const lowBits = 2 ** (LIMB_BITS - bitsInLimb);
    const high = Math.floor(x / lowBits);
    const l = this.limbs;
    this.normalize();
    // The low part is < 2^20 and the high part < 2^52: both limbs stay exact, then carry.
    l[limb] += (x - high * lowBits) * 2 ** bitsInLimb;
    l[limb + 1] += high;
    this.normalize();
  }

  /** Counts entries whose products were added elsewhere (addShiftedInteger). */
  countEntries(entries: number, zeros: number): void {
    this.entries += entries;
    this.zeros += zeros;
  }

  /** Adds four partial columns (each < 2^53) and normalizes. */
  private addColumns(l0: number, l1: number, l2: number, l3: number): void {
    const l = this.limbs;
    l[0] += l0;
    l[1] += l1;
    l[2] += l2;
    l[3] += l3;
    this.normalize();
  }

  /** Carries so every limb is < 2^20 (the top limb keeps any excess). */
  normalize(): void {
    const l = this.limbs;
    for (let t = 0; t < CHECKSUM_LIMBS - 1; t++) {
      const carry = Math.floor(l[t] / LIMB);
      l[t] -= carry * LIMB;
      l[t + 1] += carry;
    }
    this.sinceNormalize = 0;
  }

  /** Adds another accumulator's state (e.g. a rank's, after a reduction). */
  merge(limbs: Float64Array, entries: number, zeros: number): void {
    this.normalize();
    for (let t = 0; t < CHECKSUM_LIMBS; t++) this.limbs[t] += limbs[t];
    this.entries += entries;
    this.zeros += zeros;
    this.normalize();
  }

  /** S as an exact BigInt. */
  sum(): bigint {
    this.normalize();
    let s = 0n;
    for (let t = CHECKSUM_LIMBS - 1; t >= 0; t--) s = (s << BigInt(LIMB_BITS)) + BigInt(this.limbs[t]);
    return s;
  }
}

/** CoMet's printed form `S>>120 - (S>>60)&M - S&M`, M = 2^60 − 1. */
export function formatChecksum(s: bigint): string {
  const m = (1n << 60n) - 1n;
  return `${s >> 120n}-${(s >> 60n) & m}-${s & m}`;
}
