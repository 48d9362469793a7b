// CoMet's exact, order-independent checksum of metric values (SPEC §5).
//
// Two runs must print the same checksum whenever they compute the same values for the same
// (pair or triple, entry) set — whatever the decomposition, backend, phase or stage split.
// S = Σ rv·iv is kept exactly in 20-bit limbs held in doubles: rv < 2^40 and iv < 2^60 split into
// 2 and 3 limbs, so each limb product is < 2^40 and a column may absorb 2^10 entries before it has
// to be normalized, far below the 2^53 at which doubles stop being exact.
import { randomize, RANDOMIZE_MAX } from './randomize.js';
import { UserError } from './errors.js';

const LIMB_BITS = 20;
const LIMB = 2 ** LIMB_BITS;
/** 8 limbs of 20 bits hold sums up to 2^160: products are < 2^100, so 2^60 entries fit. */
export const CHECKSUM_LIMBS = 8;
const ENTRIES_PER_NORMALIZE = 1024;
const TWO_56 = 2 ** 56;

/** The checksum's random weight of a table entry: `uid` from sorted coordinates and entry bits. */
export function checksumWeight(uid: number): number {
  // rv = (randomize(uid + 956158765) + 714025·randomize(uid + 842467637)) mod 2^60; the sum is < 2^40.
  return randomize(uid + 956158765) + RANDOMIZE_MAX * randomize(uid + 842467637);
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
    if (!(value >= 0 && value < 16)) {
      throw new UserError(`checksum needs metric values in [0, 16); got ${value} (check --ccc-param/--*-multiplier)`);
    }
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
