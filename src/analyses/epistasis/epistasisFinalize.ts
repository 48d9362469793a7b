// Host finalize of case-control epistasis: each tuple's extended tables (per class, products over {g0, g1, P}) from
// the GEMM tallies — in a dense 2-way run the products with P from per-vector class counts —, inclusion–exclusion to
// the 3^k × 2 genotype cells in canonical order (epistasisCells.ts), the score, and its engine value
// (epistasisScores.ts) into the sink.
import type { FinalizeContext, TripleSlice } from '../analysis.js';
import { genotypeCellsInPlace } from './epistasisPlanes.js';
import { canonicalTripleCells, tripleStride } from './epistasisCells.js';
import { engineValueOf, k2ScaleOf, MarginalScratch, scoreOfEntries } from './epistasisScores.js';
import type { EpistasisFinalizeSettings } from './epistasisPairs.js';

export { finalizeEpistasisPairs, type EpistasisFinalizeSettings } from './epistasisPairs.js';

/** Scores of the triples of one j-slice; `tallies` as tripleTallyPlan orders them (numI × numK each). */
export function finalizeEpistasisTriples(settings: EpistasisFinalizeSettings, ctx: FinalizeContext, slice: TripleSlice, tallies: readonly Uint32Array[]): number {
  const { iBlock, jBlock, kBlock, jLocal } = slice;
  const numIReal = Math.min(slice.numI, iBlock.numVectorReal - slice.iFirst);
  const numKReal = Math.min(slice.numK, kBlock.numVectorReal - slice.kFirst);
  if (numIReal <= 0 || numKReal <= 0) return 0;
  const e = new Float64Array(54);
  const canonical = new Float64Array(54);
  const scratch = new MarginalScratch();
  const k2Scale = k2ScaleOf(settings.tables);
  const values = new Float64Array(numKReal);
  const j = jBlock.vectorFirst + jLocal;
  const kFirst = kBlock.vectorFirst + slice.kFirst;
  for (let ri = 0; ri < numIReal; ri++) {
    const i = iBlock.vectorFirst + slice.iFirst + ri;
    for (let rk = 0; rk < numKReal; rk++) {
      const at = ri * slice.numK + rk;
      const k = kFirst + rk;
      for (let g = 0; g < 54; g++) e[g] = tallies[g][at];
      genotypeCellsInPlace(e, 0, 3);
      genotypeCellsInPlace(e, 27, 3);
      // The cells in canonical order (epistasisCells.ts) unless i < j < k already has them so.
      const cells = i < j && j < k ? e : canonicalTripleCells(e, tripleStride(i, j, k), tripleStride(j, i, k), tripleStride(k, i, j), canonical);
      values[rk] = engineValueOf(settings.score, scoreOfEntries(settings.score, settings.tables, cells, 3, scratch), k2Scale);
    }
    ctx.sink.addTupleValueRow({ i, j, first: kFirst, count: numKReal }, values);
  }
  return numIReal * numKReal;
}

