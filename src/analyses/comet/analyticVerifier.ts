// --verify: every value of an analytic problem checked against its expectation computed in O(8)
// from the field groups (SPEC §4) — independently of the bit planes and the GEMM.
import { countBits, isMissing } from '../../core/bitCodes.js';
import { denseValue2, denseValue3, sparseValue2, sparseValue3, type FormulaConstants } from '../../core/formulas.js';
import { AnalyticProblem, ANALYTIC_NUM_GROUP } from '../../core/syntheticProblems.js';
import type { MetricSpec } from '../../core/types.js';
import type { ValueVerifier } from '../index.js';

export class AnalyticVerifier implements ValueVerifier {
  private readonly groupSizes: number[];
  private readonly problem: AnalyticProblem;
  private readonly cache = new Map<number, Uint8Array>();
  numChecked = 0;

  constructor(
    private readonly spec: MetricSpec,
    private readonly k: FormulaConstants,
    private readonly numVector: number,
    private readonly numField: number,
  ) {
    this.problem = new AnalyticProblem(numVector, numField);
    this.groupSizes = this.problem.fieldsPerGroup();
  }

  private codes(v: number): Uint8Array {
    let c = this.cache.get(v);
    if (c === undefined) {
      c = new Uint8Array(ANALYTIC_NUM_GROUP);
      for (let g = 0; g < ANALYTIC_NUM_GROUP; g++) c[g] = this.problem.groupCode(g, v);
      if (this.cache.size > 4096) this.cache.clear();
      this.cache.set(v, c);
    }
    return c;
  }

  /** Σ c1 and present count of vector v, from its group codes. */
  private sumAndCount(v: number): [number, number] {
    const x = this.codes(v);
    let s = 0, c = 0;
    for (let g = 0; g < ANALYTIC_NUM_GROUP; g++) {
      if (isMissing(x[g], this.spec.sparse)) continue;
      s += this.groupSizes[g] * countBits(x[g], 1, this.spec.metric, this.spec.sparse);
      c += this.groupSizes[g];
    }
    return [s, c];
  }

  private bitSum(v: number, bit: number): [number, number] {
    const [s, c] = this.sumAndCount(v);
    return [bit ? s : this.k.countedBits * c - s, c];
  }

  /** Expected value of 2-way entry (a, b) of vectors i, j. */
  expected2(i: number, a: 0 | 1, j: number, b: 0 | 1): number {
    const xi = this.codes(i), xj = this.codes(j);
    const { metric, sparse } = this.spec;
    let rab = 0, cij = 0;
    for (let g = 0; g < ANALYTIC_NUM_GROUP; g++) {
      const n = this.groupSizes[g];
      rab += n * countBits(xi[g], a, metric, sparse) * countBits(xj[g], b, metric, sparse);
      for (const a2 of [0, 1] as const) for (const b2 of [0, 1] as const) {
        cij += n * countBits(xi[g], a2, metric, sparse) * countBits(xj[g], b2, metric, sparse);
      }
    }
    const [sia, ci] = this.bitSum(i, a);
    const [sjb, cj] = this.bitSum(j, b);
    return sparse ? sparseValue2(this.k, rab, sia, sjb, ci, cj, cij) : denseValue2(this.k, rab, sia, sjb, this.numField);
  }

  /** Expected value of 3-way entry (a, b, c) of vectors i, j, k. */
  expected3(i: number, a: 0 | 1, j: number, b: 0 | 1, k: number, c: 0 | 1): number {
    const xi = this.codes(i), xj = this.codes(j), xk = this.codes(k);
    const { metric, sparse } = this.spec;
    const cb = (x: number, bit: 0 | 1): number => countBits(x, bit, metric, sparse);
    let rabc = 0, cijk = 0;
    for (let g = 0; g < ANALYTIC_NUM_GROUP; g++) {
      const n = this.groupSizes[g];
      rabc += n * cb(xi[g], a) * cb(xj[g], b) * cb(xk[g], c);
      for (let e = 0; e < 8; e++) {
        cijk += n * cb(xi[g], (e >> 2) as 0 | 1) * cb(xj[g], ((e >> 1) & 1) as 0 | 1) * cb(xk[g], (e & 1) as 0 | 1);
      }
    }
    const [sia, ci] = this.bitSum(i, a);
    const [sjb, cj] = this.bitSum(j, b);
    const [skc, ck] = this.bitSum(k, c);
    return sparse
      ? sparseValue3(this.k, rabc, sia, sjb, skc, ci, cj, ck, cijk)
      : denseValue3(this.k, rabc, sia, sjb, skc, this.numField);
  }

  /** Throws when a computed 2-way value differs from its expectation. */
  check2(i: number, a: 0 | 1, j: number, b: 0 | 1, value: number): void {
    const want = this.expected2(i, a, j, b);
    this.numChecked++;
    if (value !== want) throw new Error(`--verify: value of (${i}, ${j}) entry ${a}${b} is ${value}, expected ${want}`);
  }

  /** Throws when a computed 3-way value differs from its expectation. */
  check3(i: number, a: 0 | 1, j: number, b: 0 | 1, k: number, c: 0 | 1, value: number): void {
    const want = this.expected3(i, a, j, b, k, c);
    this.numChecked++;
    if (value !== want) {
      throw new Error(`--verify: value of (${i}, ${j}, ${k}) entry ${a}${b}${c} is ${value}, expected ${want}`);
    }
  }
}
