// Metric values from integer tallies, in exactly SPEC §3's order of operations (IEEE double).
//
// Every function sorts its per-vector factors before combining them, so a value never depends on
// the order in which the vectors of a pair or triple were given (CoMet's formulas.hh does the same).

/** Constants of a run's formula: C (counted bits), mult, p. */
export interface FormulaConstants {
  /** Counted bits per field: 2 for CCC, 1 for DUO. */
  readonly countedBits: number;
  readonly multiplier: number;
  readonly param: number;
}

/** `((mult·F)·(1 − p·fmin))·(1 − p·fmax)` with the two f's sorted. */
export function combine2(k: FormulaConstants, fTable: number, fi: number, fj: number): number {
  const fmin = fi < fj ? fi : fj;
  const fmax = fi < fj ? fj : fi;
  return ((k.multiplier * fTable) * (1 - k.param * fmin)) * (1 - k.param * fmax);
}

/** `(((mult·F)·(1−p·fmin))·(1−p·fmid))·(1−p·fmax)` with the three f's sorted. */
export function combine3(k: FormulaConstants, fTable: number, fi: number, fj: number, fk: number): number {
  let lo = fi;
  let mid = fj;
  let hi = fk;
  if (lo > mid) [lo, mid] = [mid, lo];
  if (mid > hi) [mid, hi] = [hi, mid];
  if (lo > mid) [lo, mid] = [mid, lo];
  return (((k.multiplier * fTable) * (1 - k.param * lo)) * (1 - k.param * mid)) * (1 - k.param * hi);
}

/** Dense 2-way factors shared by every pair: 1/C, (1/C)·(1/m) (f = that · s) and rsum = (1/C²)·(1/m). */
export function denseFactors2(k: FormulaConstants, numField: number): { recipC: number; recipCrc: number; rsum: number } {
  const C = k.countedBits;
  return { recipC: 1 / C, recipCrc: (1 / C) * (1 / numField), rsum: (1 / (C * C)) * (1 / numField) };
}

/**
 * Dense 2-way value of entry (a, b): `rab` = r_ab, `sia`/`sjb` the vectors' sums of their entry bits,
 * `numField` = m. rc = 1/m, rsum = (1/C²)·(1/m).
 */
export function denseValue2(k: FormulaConstants, rab: number, sia: number, sjb: number, numField: number): number {
  const rc = 1 / numField;
  const recipC = 1 / k.countedBits;
  const rsum = (1 / (k.countedBits * k.countedBits)) * rc;
  const fi = (recipC * rc) * sia;
  const fj = (recipC * rc) * sjb;
  return combine2(k, rsum * rab, fi, fj);
}

/**
 * Sparse 2-way value: `ci`, `cj` the vectors' non-missing counts, `cij` = Σ_ab r_ab.
 * R = 1/(lo·hi·cij); rc_i = (c_j·cij)·R; rc_j = (c_i·cij)·R; rsum = (lo·hi)·R. 0 when a count is 0.
 */
export function sparseValue2(
  k: FormulaConstants, rab: number, sia: number, sjb: number, ci: number, cj: number, cij: number,
): number {
  if (ci === 0 || cj === 0 || cij === 0) return 0;
  const lo = ci < cj ? ci : cj;
  const hi = ci < cj ? cj : ci;
  const recip = 1 / ((lo * hi) * cij);
  const rci = (cj * cij) * recip;
  const rcj = (ci * cij) * recip;
  const rsum = (lo * hi) * recip;
  const recipC = 1 / k.countedBits;
  const fi = (recipC * rci) * sia;
  const fj = (recipC * rcj) * sjb;
  return combine2(k, rsum * rab, fi, fj);
}

/** Dense 3-way value: rc = 1/m, rsum = (1/C³)·(1/m). */
export function denseValue3(
  k: FormulaConstants, rabc: number, sia: number, sjb: number, skc: number, numField: number,
): number {
  const rc = 1 / numField;
  const c = k.countedBits;
  const recipC = 1 / c;
  const rsum = (1 / (c * c * c)) * rc;
  const f = recipC * rc;
  return combine3(k, rsum * rabc, f * sia, f * sjb, f * skc);
}

/** Sparse 3-way value: rc_t = 1/c_t, rsum = 1/cijk; 0 when any count is 0. */
export function sparseValue3(
  k: FormulaConstants, rabc: number, sia: number, sjb: number, skc: number,
  ci: number, cj: number, ck: number, cijk: number,
): number {
  if (ci === 0 || cj === 0 || ck === 0 || cijk === 0) return 0;
  const recipC = 1 / k.countedBits;
  const rsum = 1 / cijk;
  return combine3(k, rsum * rabc, (recipC * (1 / ci)) * sia, (recipC * (1 / cj)) * sjb, (recipC * (1 / ck)) * skc);
}
