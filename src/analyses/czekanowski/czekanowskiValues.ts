// Czekanowski values from their sums (SPEC §8), in the run's precision, in SPEC §8's order of operations.
import type { RealPrecision } from '../../core/realProblems.js';

/** Rounding of every operation of a precision: float32 rounding for single, none for double. */
export type Rounding = (x: number) => number;

const IDENTITY: Rounding = (x) => x;

/** The rounding of `precision`'s operations. */
export function roundingOf(precision: RealPrecision): Rounding {
  return precision === 'double' ? IDENTITY : Math.fround;
}

/** 2-way: `(2·numer) / (s_i + s_j)`. */
export function pairValue(round: Rounding, numer: number, sumI: number, sumJ: number): number {
  return round(round(2 * numer) / round(sumI + sumJ));
}

/** 3-way: `(3·numer) / (2·((smin + smid) + smax))`, the sums sorted ascending. */
export function tripleValue(round: Rounding, numer: number, sumI: number, sumJ: number, sumK: number): number {
  let lo = sumI;
  let mid = sumJ;
  let hi = sumK;
  if (lo > mid) [lo, mid] = [mid, lo];
  if (mid > hi) [mid, hi] = [hi, mid];
  if (lo > mid) [lo, mid] = [mid, lo];
  const denom = round(round(lo + mid) + hi);
  return round(round(3 * numer) / round(2 * denom));
}

/** One field's 3-way term `((min(a,b) + min(a,c)) + min(b,c)) − min(a,b,c)`. */
export function tripleFieldTerm(round: Rounding, a: number, b: number, c: number): number {
  const ab = Math.min(a, b);
  return round(round(round(ab + Math.min(a, c)) + Math.min(b, c)) - Math.min(ab, c));
}
