// Host finalize of Czekanowski (SPEC §8): numerators from the min-plus kernel set's sums (minPlusContract.ts words),
// vector sums from the block, values in the run's precision, one value per tuple into the sink.
import { SumScratch, sumOfWords } from '../../mgemm/index.js';
import type { FinalizeContext, PairBlock, TripleSlice } from '../analysis.js';
import { pairValue, tripleValue, type Rounding } from './czekanowskiValues.js';

/** Values of every unique pair of `block`; `sums`: the numerators' word groups, numRows × numCols. */
export function finalizeCzekanowskiPairs(round: Rounding, ctx: FinalizeContext, block: PairBlock, sums: readonly Uint32Array[]): number {
  const { rows, cols } = block;
  const rowsReal = Math.min(block.numRows, rows.numVectorReal - block.rowFirst);
  const colsReal = Math.min(block.numCols, cols.numVectorReal - block.colFirst);
  const scratch = new SumScratch();
  const rowValues = new Float64Array(Math.max(0, colsReal));
  let numPairs = 0;
  for (let r = 0; r < rowsReal; r++) {
    const li = block.rowFirst + r;
    const i = rows.vectorFirst + li;
    const sumI = rows.sums[li];
    const c0 = block.strictUpper ? Math.max(0, r + 1 + block.rowFirst - block.colFirst) : 0;
    for (let c = c0; c < colsReal; c++) {
      const numer = sumOfWords(sums, r * block.numCols + c, scratch);
      const value = pairValue(round, numer, sumI, cols.sums[block.colFirst + c]);
      rowValues[c - c0] = value;
      ctx.verifier?.check2(i, 0, cols.vectorFirst + block.colFirst + c, 0, value);
    }
    if (colsReal > c0) {
      ctx.sink.addTupleValueRow({ i, j: null, first: cols.vectorFirst + block.colFirst + c0, count: colsReal - c0 }, rowValues);
      numPairs += colsReal - c0;
    }
  }
  return numPairs;
}

/** Values of the triples of one j-slice; `sums`: the numerators' word groups, numI × numK. */
export function finalizeCzekanowskiTriples(round: Rounding, ctx: FinalizeContext, slice: TripleSlice, sums: readonly Uint32Array[]): number {
  const { iBlock, jBlock, kBlock, jLocal } = slice;
  const j = jBlock.vectorFirst + jLocal;
  const numIReal = Math.min(slice.numI, iBlock.numVectorReal - slice.iFirst);
  const numKReal = Math.min(slice.numK, kBlock.numVectorReal - slice.kFirst);
  if (numIReal <= 0 || numKReal <= 0) return 0;
  const scratch = new SumScratch();
  const sumJ = jBlock.sums[jLocal];
  const rowValues = new Float64Array(numKReal);
  for (let ri = 0; ri < numIReal; ri++) {
    const li = slice.iFirst + ri;
    const i = iBlock.vectorFirst + li;
    const sumI = iBlock.sums[li];
    for (let rk = 0; rk < numKReal; rk++) {
      const lk = slice.kFirst + rk;
      const numer = sumOfWords(sums, ri * slice.numK + rk, scratch);
      const value = tripleValue(round, numer, sumI, sumJ, kBlock.sums[lk]);
      rowValues[rk] = value;
      ctx.verifier?.check3(i, 0, j, 0, kBlock.vectorFirst + lk, 0, value);
    }
    ctx.sink.addTupleValueRow({ i, j, first: kBlock.vectorFirst + slice.kFirst, count: numKReal }, rowValues);
  }
  return numIReal * numKReal;
}
