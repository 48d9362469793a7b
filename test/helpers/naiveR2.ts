// A naive, independent LD r² reference: every pair straight from the field codes, one sample at a time,
// over the samples present in both SNPs; also a two-pass (mean-centred) Pearson correlation as a check
// of the one-pass integer formula itself.
import { countOnes, isMissing } from '../../src/core/bitCodes.js';
import { ChecksumAccumulator, entryUid2, formatChecksum } from '../../src/core/checksum.js';

/** Field codes of a whole problem: `code(v, f)`. */
export type CodeSource = (v: number, f: number) => number;

export interface NaiveR2Result {
  checksum: string;
  entries: number;
  zeros: number;
  /** key `i,j` (i < j) → r² (NaN when undefined) */
  values: Map<string, number>;
  /** key `i,j` → r² from centred two-pass sums, for a tolerance check of the formula */
  centred: Map<string, number>;
}

/** The allele-1 dosages of a vector, null where missing. */
function dosages(code: CodeSource, v: number, numField: number, sparse: boolean): (number | null)[] {
  const out: (number | null)[] = [];
  for (let f = 0; f < numField; f++) {
    const x = code(v, f);
    out.push(isMissing(x, sparse) ? null : countOnes(x, 'r2', sparse));
  }
  return out;
}

/** All unique pairs' r² with the checksum over their single entries (bits 1,1), optionally thresholded. */
export function naiveR2(
  numVector: number, numField: number, sparse: boolean, code: CodeSource, threshold: number | null = null,
): NaiveR2Result {
  const g = Array.from({ length: numVector }, (_, v) => dosages(code, v, numField, sparse));
  const acc = new ChecksumAccumulator();
  const values = new Map<string, number>();
  const centred = new Map<string, number>();
  for (let i = 0; i < numVector; i++) for (let j = i + 1; j < numVector; j++) {
    const xs: number[] = [];
    const ys: number[] = [];
    for (let f = 0; f < numField; f++) {
      const x = g[i][f], y = g[j][f];
      if (x !== null && y !== null) { xs.push(x); ys.push(y); }
    }
    const n = xs.length;
    let sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
    for (let t = 0; t < n; t++) { sx += xs[t]; sy += ys[t]; sxx += xs[t] * xs[t]; syy += ys[t] * ys[t]; sxy += xs[t] * ys[t]; }
    // PLINK 1.9's order of operations (plink_ld.c): cov12 = Σxy·n − Σx·Σy; (n·Σx² − (Σx)²)(n·Σy² − (Σy)²).
    const cov = sxy * n - sx * sy;
    const value = (cov * cov) / ((sxx * n - sx * sx) * (syy * n - sy * sy));
    const key = `${i},${j}`;
    values.set(key, value);
    const mx = sx / n, my = sy / n;
    let cxy = 0, cxx = 0, cyy = 0;
    for (let t = 0; t < n; t++) { cxy += (xs[t] - mx) * (ys[t] - my); cxx += (xs[t] - mx) ** 2; cyy += (ys[t] - my) ** 2; }
    centred.set(key, (cxy * cxy) / (cxx * cyy));
    if (threshold === null || Math.fround(value) > threshold) acc.add(entryUid2(numVector, i, 1, j, 1), value);
  }
  return { checksum: formatChecksum(acc.sum()), entries: acc.entries, zeros: acc.zeros, values, centred };
}
