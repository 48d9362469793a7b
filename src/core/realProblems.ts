// The synthetic problems of real-valued vectors (SPEC §8, Czekanowski): values depend on global indices only.
import { randomize, RANDOMIZE_MAX } from './randomize.js';
import { analyticPermutation, ANALYTIC_NUM_GROUP } from './syntheticProblems.js';

/** The float type of a real-valued run (CoMet's GMFloat, fixed at its build time; here a run option). */
export type RealPrecision = 'double' | 'single';

/** Mantissa bits of a precision (53 or 24): integer values below 2^p are exact. */
export function mantissaBits(precision: RealPrecision): number {
  return precision === 'double' ? 53 : 24;
}

/** `ceil(log2 n)` of a positive integer, 0 for n ≤ 1, exactly (n may exceed 2^53). */
export function ceilLog2(n: bigint): number {
  if (n <= 1n) return 0;
  return (n - 1n).toString(2).length;
}

/**
 * The random problem's right shift `s = max(clog2(2·714025²·nf) − p + 1, 16)`: it keeps every value small enough that
 * sums over the fields are exact integers in the run's precision.
 */
export function randomValueShift(numField: number, precision: RealPrecision): number {
  const bound = 2n * BigInt(RANDOMIZE_MAX) * BigInt(RANDOMIZE_MAX) * BigInt(numField);
  return Math.max(0, ceilLog2(bound) - mantissaBits(precision) + 1, 16);
}

/**
 * Fills `out[at + c]` with the random problem's value of vector `v` at global field `fieldFirst + c` for c < count:
 * `floor((R(R(u)) + 714025·R(R(R(u)))) / 2^shift)` with `u = f + nf·v` (below 2^40: exact in a double).
 */
export function fillRandomRealRow(
  v: number, fieldFirst: number, count: number, numField: number, shift: number, out: Float64Array | Float32Array, at: number,
): void {
  const scale = 2 ** -shift;
  for (let c = 0; c < count; c++) {
    const u = fieldFirst + c + numField * v;
    const r2 = randomize(randomize(u));
    out[at + c] = Math.floor((r2 + RANDOMIZE_MAX * randomize(r2)) * scale);
  }
}

/**
 * The analytic problem of SPEC §8: the field groups and vector permutation of §4, each vector constant on each of
 * the 8 groups, its value `1 + floor(pv·vmax / (1 + nv))` with `vmax = min(1 + nv, floor((2^24 − 1) / (ovl·nf)))`,
 * so that every sum is an exact integer in single precision too and every value is known in O(8).
 */
export class AnalyticRealProblem {
  readonly valueMax: number;
  private readonly groupSizeMax: number;

  constructor(readonly numVector: number, readonly numField: number, numWay: 2 | 3) {
    const overlap = numWay === 2 ? 2 : 4;
    this.valueMax = Math.min(1 + numVector, Math.floor((2 ** 24 - 1) / (overlap * numField)));
    this.groupSizeMax = Math.ceil(numField / ANALYTIC_NUM_GROUP);
  }

  /** Group of global field `f`. */
  groupOf(f: number): number {
    return Math.floor(analyticPermutation(0, f, this.numField) / this.groupSizeMax);
  }

  /** Value of vector `v` on every field of group `g`. */
  groupValue(g: number, v: number): number {
    const pv = analyticPermutation(g, v, this.numVector);
    return 1 + Math.floor((pv * this.valueMax) / (1 + this.numVector));
  }

  /** Values of vector `v` at global fields `[fieldFirst, fieldFirst + count)` into `out[at …]`. */
  fillRow(v: number, fieldFirst: number, count: number, out: Float64Array | Float32Array, at: number): void {
    const valueOfGroup = Array.from({ length: ANALYTIC_NUM_GROUP }, (_, g) => this.groupValue(g, v));
    for (let c = 0; c < count; c++) out[at + c] = valueOfGroup[this.groupOf(fieldFirst + c)];
  }

  /** How many fields each group has (counted directly, O(nf) once). */
  fieldsPerGroup(): number[] {
    const sizes = new Array<number>(ANALYTIC_NUM_GROUP).fill(0);
    for (let f = 0; f < this.numField; f++) sizes[this.groupOf(f)]++;
    return sizes;
  }
}
