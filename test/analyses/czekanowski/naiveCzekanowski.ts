// A naive Czekanowski run (SPEC §8) straight from the definitions: every tuple, its sums in field order, its exact
// checksum. The oracle the engine's results are compared with.
import { ChecksumAccumulator, formatChecksum } from '../../../src/core/checksum.js';
import { AnalyticRealProblem, fillRandomRealRow, randomValueShift, type RealPrecision } from '../../../src/core/realProblems.js';

export interface NaiveProblem {
  readonly numVector: number;
  readonly numField: number;
  readonly numWay: 2 | 3;
  readonly precision: RealPrecision;
  /** The vectors, row-major (v·nf + f), or a synthetic problem's name. */
  readonly values: Float64Array | 'random' | 'analytic';
}

export interface NaiveResult {
  readonly checksum: string;
  readonly entries: number;
  readonly zeros: number;
  /** Every tuple's value by its vector indices, ascending (`i,j` or `i,j,k`). */
  readonly values: Map<string, number>;
}

/** The vectors of a problem, row-major, in the run's precision (integer synthetic values are exact in both). */
export function naiveVectors(p: NaiveProblem): Float64Array {
  if (p.values instanceof Float64Array) return p.values;
  const out = new Float64Array(p.numVector * p.numField);
  const shift = randomValueShift(p.numField, p.precision);
  const analytic = new AnalyticRealProblem(p.numVector, p.numField, p.numWay);
  for (let v = 0; v < p.numVector; v++) {
    if (p.values === 'random') fillRandomRealRow(v, 0, p.numField, p.numField, shift, out, v * p.numField);
    else analytic.fillRow(v, 0, p.numField, out, v * p.numField);
  }
  return out;
}

export function naiveCzekanowski(p: NaiveProblem): NaiveResult {
  const r = p.precision === 'double' ? (x: number) => x : Math.fround;
  const { numVector: nv, numField: nf } = p;
  const x = naiveVectors(p);
  const at = (v: number, f: number): number => r(x[v * nf + f]);
  const sums = Array.from({ length: nv }, (_, v) => {
    let s = 0;
    for (let f = 0; f < nf; f++) s = r(s + at(v, f));
    return s;
  });
  const acc = new ChecksumAccumulator();
  const values = new Map<string, number>();
  if (p.numWay === 2) {
    for (let i = 0; i < nv; i++) {
      for (let j = i + 1; j < nv; j++) {
        let n = 0;
        for (let f = 0; f < nf; f++) n = r(n + Math.min(at(i, f), at(j, f)));
        const value = r(r(2 * n) / r(sums[i] + sums[j]));
        acc.add(j * nv + i, value);
        values.set(`${i},${j}`, value);
      }
    }
  } else {
    for (let i = 0; i < nv; i++) {
      for (let j = i + 1; j < nv; j++) {
        for (let k = j + 1; k < nv; k++) {
          let n = 0;
          for (let f = 0; f < nf; f++) {
            const a = at(i, f);
            const b = at(j, f);
            const c = at(k, f);
            n = r(n + r(r(r(Math.min(a, b) + Math.min(a, c)) + Math.min(b, c)) - Math.min(a, b, c)));
          }
          const [s0, s1, s2] = [sums[i], sums[j], sums[k]].sort((u, w) => u - w);
          const value = r(r(3 * n) / r(2 * r(r(s0 + s1) + s2)));
          acc.add((k * nv + j) * nv + i, value);
          values.set(`${i},${j},${k}`, value);
        }
      }
    }
  }
  acc.normalize();
  return { checksum: formatChecksum(acc.sum()), entries: acc.entries, zeros: acc.zeros, values };
}
