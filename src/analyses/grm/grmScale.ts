// The GRM's denominators as plink2 applies them (plink2_matrix_calc.cc CalcGrm): with missing calls, each sum is
// divided by the pair's SNPs both called, N_ij = numSnp − m_i − m_j + m_ij (the diagonal by numSnp − m_i), exact
// integers; without any missing call, or with `meanimpute`, every sum is multiplied by 1/numSnp.

/** Missing calls per sample and per pair (both missing; lower triangle i > j at i(i − 1)/2 + j). */
export interface GrmMissingCounts {
  readonly perSample: ArrayLike<number>;
  readonly perPair: Uint32Array;
}

/** The SNPs a pair (i ≥ j) has both called; every SNP without missing counts (null). */
export function pairCalledCount(numSnp: number, missing: GrmMissingCounts | null, i: number, j: number): number {
  if (missing === null) return numSnp;
  if (i === j) return numSnp - missing.perSample[i];
  const [hi, lo] = i > j ? [i, j] : [j, i];
  return numSnp - missing.perSample[hi] - missing.perSample[lo] + missing.perPair[(hi * (hi - 1)) / 2 + lo];
}

/**
 * Turns the sums of `c` (n × n, lower triangle) into the GRM in place, in plink2's operations: a division by each
 * pair's count with `missing`, else a product with 1/numSnp (null: no missing call, or meanimpute).
 */
export function applyGrmDenominators(c: Float64Array, n: number, numSnp: number, missing: GrmMissingCounts | null): void {
  if (missing === null) {
    const reciprocal = 1.0 / numSnp;
    for (let i = 0; i < n; i++) for (let j = 0; j <= i; j++) c[i * n + j] *= reciprocal;
    return;
  }
  for (let i = 0; i < n; i++) {
    const rowBase = numSnp - missing.perSample[i];
    const pairBase = (i * (i - 1)) / 2;
    for (let j = 0; j < i; j++) c[i * n + j] /= rowBase - missing.perSample[j] + missing.perPair[pairBase + j];
    c[i * n + i] /= rowBase;
  }
}
