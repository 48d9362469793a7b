// Host finalize of case-control epistasis: each tuple's extended tables (per class, products over {g0, g1, P}) from
// the GEMM tallies — in a dense 2-way run the products with P from per-vector class counts —, inclusion–exclusion to
// the 3^k × 2 genotype cells, the score, and its engine value (epistasisScores.ts) into the sink.
import type { EpistasisScore } from '../../core/types.js';
import type { FinalizeContext, PairBlock, TripleSlice, VectorBlockView } from '../analysis.js';
import { NUM_CLASSES, genotypeCellsInPlace, planeCountsOf, planeOf } from './epistasisPlanes.js';
import { engineValueOf, k2ScaleOf, MarginalScratch, scoreOfEntries, ScoreTables } from './epistasisScores.js';

/** What finalize needs of the run: the score, the class sizes, the score tables. */
export interface EpistasisFinalizeSettings {
  readonly score: EpistasisScore;
  readonly sparse: boolean;
  readonly classSizes: readonly [controls: number, cases: number];
  readonly tables: ScoreTables;
}

/** Plane popcounts per vector of a block, computed once per block (and thread) from its planes. */
const countsOfBlock = new WeakMap<Uint32Array, Float64Array>();

function planeCounts(block: VectorBlockView): Float64Array {
  const { words, numPlanes, wordsPerPlane } = block.planes;
  let counts = countsOfBlock.get(words);
  if (counts === undefined) {
    counts = planeCountsOf(words, numPlanes, wordsPerPlane, block.numVectorReal);
    countsOfBlock.set(words, counts);
  }
  return counts;
}

/** Scores of every unique pair of `block` into the sink; `tallies` as pairTermGroups(sparse) orders them. */
export function finalizeEpistasisPairs(settings: EpistasisFinalizeSettings, ctx: FinalizeContext, block: PairBlock, tallies: readonly Uint32Array[]): number {
  const { rows, cols } = block;
  const rowsReal = Math.min(block.numRows, rows.numVectorReal - block.rowFirst);
  const colsReal = Math.min(block.numCols, cols.numVectorReal - block.colFirst);
  if (rowsReal <= 0 || colsReal <= 0) return 0;
  const e = new Float64Array(18);
  const scratch = new MarginalScratch();
  const k2Scale = k2ScaleOf(settings.tables);
  const rowCounts = settings.sparse ? null : planeCounts(rows);
  const colCounts = settings.sparse ? null : planeCounts(cols);
  const numPlanes = rows.planes.numPlanes;
  const values = new Float64Array(colsReal);
  let numPairs = 0;
  for (let r = 0; r < rowsReal; r++) {
    const li = block.rowFirst + r;
    const c0 = block.strictUpper ? Math.max(0, r + 1 + block.rowFirst - block.colFirst) : 0;
    for (let c = c0; c < colsReal; c++) {
      const at = r * block.numCols + c;
      for (let cls = 0; cls < NUM_CLASSES; cls++) {
        const base = 9 * cls;
        if (settings.sparse) {
          for (let t = 0; t < 9; t++) e[base + t] = tallies[9 * cls + t][at];
        } else {
          // Dense: products with P are the vectors' own class counts and the class size.
          const lj = block.colFirst + c;
          for (let x = 0; x < 2; x++) {
            for (let y = 0; y < 2; y++) e[base + 3 * x + y] = tallies[4 * cls + 2 * x + y][at];
            e[base + 3 * x + 2] = rowCounts![li * numPlanes + planeOf(cls, x)];
            e[base + 6 + x] = colCounts![lj * numPlanes + planeOf(cls, x)];
          }
          e[base + 8] = settings.classSizes[cls];
        }
        genotypeCellsInPlace(e, base, 2);
      }
      values[c - c0] = engineValueOf(settings.score, scoreOfEntries(settings.score, settings.tables, e, 2, scratch), k2Scale);
    }
    if (colsReal > c0) {
      ctx.sink.addTupleValueRow({ i: rows.vectorFirst + li, j: null, first: cols.vectorFirst + block.colFirst + c0, count: colsReal - c0 }, values);
      numPairs += colsReal - c0;
    }
  }
  return numPairs;
}

/** Scores of the triples of one j-slice; `tallies` as tripleTallyPlan orders them (numI × numK each). */
export function finalizeEpistasisTriples(settings: EpistasisFinalizeSettings, ctx: FinalizeContext, slice: TripleSlice, tallies: readonly Uint32Array[]): number {
  const { iBlock, jBlock, kBlock, jLocal } = slice;
  const numIReal = Math.min(slice.numI, iBlock.numVectorReal - slice.iFirst);
  const numKReal = Math.min(slice.numK, kBlock.numVectorReal - slice.kFirst);
  if (numIReal <= 0 || numKReal <= 0) return 0;
  const e = new Float64Array(54);
  const scratch = new MarginalScratch();
  const k2Scale = k2ScaleOf(settings.tables);
  const values = new Float64Array(numKReal);
  const j = jBlock.vectorFirst + jLocal;
  for (let ri = 0; ri < numIReal; ri++) {
    for (let rk = 0; rk < numKReal; rk++) {
      const at = ri * slice.numK + rk;
      for (let g = 0; g < 54; g++) e[g] = tallies[g][at];
      genotypeCellsInPlace(e, 0, 3);
      genotypeCellsInPlace(e, 27, 3);
      values[rk] = engineValueOf(settings.score, scoreOfEntries(settings.score, settings.tables, e, 3, scratch), k2Scale);
    }
    ctx.sink.addTupleValueRow({ i: iBlock.vectorFirst + slice.iFirst + ri, j, first: kBlock.vectorFirst + slice.kFirst, count: numKReal }, values);
  }
  return numIReal * numKReal;
}

