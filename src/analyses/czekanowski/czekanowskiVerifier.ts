// --verify of Czekanowski's analytic problem (SPEC §8): each expected value from the 8 field groups in O(8),
// independently of the blocks and the min-plus kernels. Integer sums below 2^24 are exact in both precisions.
import { AnalyticRealProblem } from '../../core/realProblems.js';
import { ANALYTIC_NUM_GROUP } from '../../core/syntheticProblems.js';
import type { ValueVerifier } from '../analysis.js';
import { pairValue, tripleValue, type Rounding } from './czekanowskiValues.js';

export class CzekanowskiVerifier implements ValueVerifier {
  private readonly problem: AnalyticRealProblem;
  private readonly groupSizes: number[];
  numChecked = 0;

  constructor(private readonly round: Rounding, numVector: number, numField: number, numWay: 2 | 3) {
    this.problem = new AnalyticRealProblem(numVector, numField, numWay);
    this.groupSizes = this.problem.fieldsPerGroup();
  }

  /** Σ over groups of size·f(values of the tuple on the group). */
  private groupSum(vectors: readonly number[], term: (values: number[]) => number): number {
    let s = 0;
    for (let g = 0; g < ANALYTIC_NUM_GROUP; g++) s += this.groupSizes[g] * term(vectors.map((v) => this.problem.groupValue(g, v)));
    return s;
  }

  private vectorSum(v: number): number {
    return this.groupSum([v], ([x]) => x);
  }

  check2(i: number, _a: 0 | 1, j: number, _b: 0 | 1, value: number): void {
    const numer = this.groupSum([i, j], ([x, y]) => Math.min(x, y));
    const want = pairValue(this.round, numer, this.vectorSum(i), this.vectorSum(j));
    this.numChecked++;
    if (value !== want) throw new Error(`--verify: czekanowski value of (${i}, ${j}) is ${value}, expected ${want}`);
  }

  check3(i: number, _a: 0 | 1, j: number, _b: 0 | 1, k: number, _c: 0 | 1, value: number): void {
    const numer = this.groupSum([i, j, k], ([x, y, z]) => Math.min(x, y) + Math.min(x, z) + Math.min(y, z) - Math.min(x, y, z));
    const want = tripleValue(this.round, numer, this.vectorSum(i), this.vectorSum(j), this.vectorSum(k));
    this.numChecked++;
    if (value !== want) throw new Error(`--verify: czekanowski value of (${i}, ${j}, ${k}) is ${value}, expected ${want}`);
  }
}
