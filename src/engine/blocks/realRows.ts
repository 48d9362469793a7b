// Filling row ranges of a real-valued block (SPEC §8): the random and analytic problems of real values, or the slab
// of a raw real-valued file, written as values into the block's words (mgemm/minPlusContract.ts layout).
import { AnalyticRealProblem, fillRandomRealRow, randomValueShift, type RealPrecision } from '../../core/realProblems.js';
import { readRealVectorRows } from '../../io/index.js';
import type { BlockFill } from './blockRows.js';

/** A writer of rows `[rowFirst, rowEnd)` of a real-valued `fill` of `precision`. */
export function realRowFiller(fill: BlockFill, real: { readonly precision: RealPrecision; readonly numWay: 2 | 3 }): (rowFirst: number, rowEnd: number) => void {
  const { precision } = real;
  const { source, shape } = fill;
  const { buffer, byteOffset, length } = fill.words;
  const out = precision === 'double' ? new Float64Array(buffer, byteOffset, length / 2) : new Float32Array(buffer, byteOffset, length);
  // 32·wordsPerPlane values per row whatever the precision: numPlanes is the bits of a value.
  const rowStride = 32 * fill.wordsPerPlane;
  const { vectorFirst, fieldFirst, numFieldLocal } = shape;
  switch (source.kind) {
    case 'file':
      return (rowFirst, rowEnd) => readRealVectorRows(
        source.path, precision, fill.numField, vectorFirst + rowFirst, rowEnd - rowFirst, fieldFirst, numFieldLocal,
        { out, at: rowFirst * rowStride, rowStride });
    case 'random': {
      const shift = randomValueShift(fill.numField, precision);
      return (rowFirst, rowEnd) => {
        for (let r = rowFirst; r < rowEnd; r++) fillRandomRealRow(vectorFirst + r, fieldFirst, numFieldLocal, fill.numField, shift, out, r * rowStride);
      };
    }
    case 'analytic': {
      const problem = new AnalyticRealProblem(fill.numVector, fill.numField, real.numWay);
      return (rowFirst, rowEnd) => {
        for (let r = rowFirst; r < rowEnd; r++) problem.fillRow(vectorFirst + r, fieldFirst, numFieldLocal, out, r * rowStride);
      };
    }
    default:
      throw new Error(`unknown block source '${String((source as { kind: unknown }).kind)}'`);
  }
}
