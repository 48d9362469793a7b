// Which arithmetic a min-plus request may use on the GPU (programs/wgsl/minPlusArithmetic.ts): exact integers when
// every operand is integer-valued and its sums stay below 2^p (p = 53 double, 24 single), soft floats otherwise.
//
// Why the bound makes integers exact: §8's sums and terms of non-negative integers are then integers below 2^p, each
// representable, so every IEEE operation on them is exact and any order gives the same bits. With B the largest
// row sum of the operands: 2-way partial sums are at most min(s_i, s_j) ≤ B; 3-way per-field values
// ((ab + ac) + bc) are at most 3·max value ≤ 3B, terms min + mid ≤ 2·max, and partial sums at most 2B. So
// B < 2^p (2-way) and 3B < 2^p (3-way) suffice. §8's synthetic problems choose their shift to stay inside.
import type { PlaneMatrix } from '../../../contract.js';
import { realValuesOf, type ValuePrecision } from '../../../minPlusContract.js';
import type { MinPlusArithmetic } from '../programs/wgsl/minPlusArithmetic.js';

/** Largest row sums of integer-valued operands (Infinity: a value is not an integer), per matrix, computed once. */
export class IntegralOperands {
  private readonly bounds = new WeakMap<PlaneMatrix, number>();

  constructor(private readonly precision: ValuePrecision, private readonly numField: number) {}

  /** The arithmetic of a request of `way` on `matrices` (see the header). */
  arithmeticOf(matrices: readonly PlaneMatrix[], way: 2 | 3): MinPlusArithmetic {
    const limit = 2 ** (this.precision === 'double' ? 53 : 24);
    const factor = way === 2 ? 1 : 3;
    return matrices.every((m) => factor * this.boundOf(m) < limit) ? 'integer' : 'soft';
  }

  /**
   * The largest row sum of `matrix` when all its values are integers, else Infinity. Row sums are added in doubles in
   * field order: exact while below 2^53, and at least 2^53 once a partial sum reaches it (rounding is monotone), so
   * a sum below the limit proves the exact one is.
   */
  boundOf(matrix: PlaneMatrix): number {
    let bound = this.bounds.get(matrix);
    if (bound === undefined) {
      bound = 0;
      const { values, rowStride } = realValuesOf(matrix, this.precision);
      for (let r = 0; r < matrix.numVectors && bound !== Infinity; r++) {
        let sum = 0;
        for (let f = r * rowStride, end = f + this.numField; f < end; f++) {
          const value = values[f];
          if (value !== Math.floor(value)) {
            sum = Infinity;
            break;
          }
          sum += value;
        }
        bound = Math.max(bound, sum);
      }
      this.bounds.set(matrix, bound);
    }
    return bound;
  }
}
