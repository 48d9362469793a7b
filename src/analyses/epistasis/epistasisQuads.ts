// 4-way case-control epistasis on mGEMM4: per class the extended table over {g0, g1, P}^4 of each quadruple, from
// products of row-pair planes (x of i) ∧ (y of j) against column-pair planes (z of k) ∧ (w of l), then inclusion–
// exclusion to the 81 genotype cells per class, the score, and its engine value into the sink.
//
// Why these products. With missing calls (sparse) every product over {g0, g1, P}^4 comes from the GEMM: 9 row-pair
// planes × 9 column-pair planes, 81 per class. Without (dense), P of k or l is the class itself, so a cell with P at
// k or l is a 3-way (i, j, v) or 2-way (i, j) count: the column pairs keep only genotype planes (4 per class, 36
// products per class in the big GEMM, 2.25× fewer than 81) and a small GEMM of the row pairs against single vectors
// (O(rows·nv), not O(rows·nv²)) gives the rest. Keeping P on the row side (9 row-pair planes, not the minimal 4) costs
// 1.5× over seed 000's 16 + lower-order tables but needs no (j, k, l) and (i, k, l) tables: one GEMM shape for both modes.
import type { EpistasisScore } from '../../core/types.js';
import type { FinalizeContext, QuadTallyPlan, QuadTileView } from '../analysis.js';
import type { TermGroup } from '../../mgemm/index.js';
import { KINDS_PER_CLASS, NUM_CLASSES, genotypeCellsInPlace, planeOf } from './epistasisPlanes.js';
import { engineValueOf, k2ScaleOf, MarginalScratch, scoreOfEntries, type ScoreTables } from './epistasisScores.js';

/** What 4-way finalize needs of the run. */
export interface QuadFinalizeSettings {
  readonly score: EpistasisScore;
  readonly sparse: boolean;
  readonly tables: ScoreTables;
}

/** Column-pair kinds per axis: genotype planes only (dense) or with P (sparse). */
function colKinds(sparse: boolean): number {
  return sparse ? KINDS_PER_CLASS : 2;
}

/**
 * The mGEMM4 plan. Row-pair plane `9·cls + 3x + y` = (x of i) ∧ (y of j) of class cls, x, y ∈ {g0, g1, P}; column-pair
 * plane `n²·cls + n·z + w` likewise with n = colKinds; group `9n²·cls + n²·(3x + y) + n·z + w`. Dense runs add vector
 * groups `27·cls + 3·(3x + y) + v` = (x of i) ∧ (y of j) ∧ (v of the vector), v ∈ {g0, g1, P}.
 */
export function quadTallyPlan(sparse: boolean): QuadTallyPlan {
  const n = colKinds(sparse);
  const rowPlanePairs: (readonly [number, number])[] = [];
  const colPlanePairs: (readonly [number, number])[] = [];
  const termGroups: TermGroup[] = [];
  const vectorTermGroups: TermGroup[] = [];
  for (let cls = 0; cls < NUM_CLASSES; cls++) {
    for (let x = 0; x < KINDS_PER_CLASS; x++) for (let y = 0; y < KINDS_PER_CLASS; y++) rowPlanePairs.push([planeOf(cls, x), planeOf(cls, y)]);
    for (let z = 0; z < n; z++) for (let w = 0; w < n; w++) colPlanePairs.push([planeOf(cls, z), planeOf(cls, w)]);
  }
  for (let cls = 0; cls < NUM_CLASSES; cls++) {
    for (let xy = 0; xy < 9; xy++) {
      for (let zw = 0; zw < n * n; zw++) termGroups.push([[9 * cls + xy, n * n * cls + zw]]);
      for (let v = 0; v < KINDS_PER_CLASS; v++) vectorTermGroups.push([[9 * cls + xy, planeOf(cls, v)]]);
    }
  }
  return { rowPlanePairs, colPlanePairs, termGroups, vectorTermGroups: sparse ? null : vectorTermGroups };
}

/** Fills class `cls`'s 81 extended entries of quadruple (row r, column c) at `e[81·cls …]` (index 27x + 9y + 3z + w). */
function fillExtended(
  e: Float64Array, cls: number, sparse: boolean, at: number, tallies: readonly Uint32Array[],
  vectorTallies: readonly Uint32Array[] | null, atK: number, atL: number,
): void {
  const base = 81 * cls;
  if (sparse) {
    const groups = 81 * cls;
    for (let t = 0; t < 81; t++) e[base + t] = tallies[groups + t][at];
    return;
  }
  const vt = vectorTallies!;
  for (let xy = 0; xy < 9; xy++) {
    const cell = base + 9 * xy;
    const group = 36 * cls + 4 * xy;
    const vector = 27 * cls + 3 * xy;
    e[cell] = tallies[group][at];
    e[cell + 1] = tallies[group + 1][at];
    e[cell + 3] = tallies[group + 2][at];
    e[cell + 4] = tallies[group + 3][at];
    // w = P: (x of i)(y of j)(z of k); z = P: (x of i)(y of j)(w of l); both: (x of i)(y of j) (P of k is the class).
    e[cell + 2] = vt[vector][atK];
    e[cell + 5] = vt[vector + 1][atK];
    e[cell + 6] = vt[vector][atL];
    e[cell + 7] = vt[vector + 1][atL];
    e[cell + 8] = vt[vector + 2][atK];
  }
}

/** Scores of the tile's unique quadruples (rowJ[r] < colK[c]) into the sink, a run of one (i, j, k) at a time. */
export function finalizeEpistasisQuads(
  settings: QuadFinalizeSettings, ctx: FinalizeContext, tile: QuadTileView, tallies: readonly Uint32Array[],
  vectorTallies: readonly Uint32Array[] | null,
): number {
  const { rowI, rowJ, colK, colL } = tile;
  const numCols = colK.length;
  const e = new Float64Array(162);
  const scratch = new MarginalScratch();
  const k2Scale = k2ScaleOf(settings.tables);
  const values = new Float64Array(numCols);
  let numQuads = 0;
  for (let r = 0; r < rowI.length; r++) {
    const j = rowJ[r];
    // Columns are k-major: the valid ones (k > j) are a suffix.
    let c = 0;
    while (c < numCols && colK[c] <= j) c++;
    while (c < numCols) {
      const k = colK[c];
      const runFirst = c;
      for (; c < numCols && colK[c] === k; c++) {
        const at = r * numCols + c;
        const vectorRow = r * tile.numVectorCols - tile.vectorFirst;
        for (let cls = 0; cls < NUM_CLASSES; cls++) {
          fillExtended(e, cls, settings.sparse, at, tallies, vectorTallies, vectorRow + k, vectorRow + colL[c]);
          genotypeCellsInPlace(e, 81 * cls, 4);
        }
        values[c - runFirst] = engineValueOf(settings.score, scoreOfEntries(settings.score, settings.tables, e, 4, scratch), k2Scale);
      }
      ctx.sink.addTupleValueRow({ i: rowI[r], j, k, first: colL[runFirst], count: c - runFirst }, values);
      numQuads += c - runFirst;
    }
  }
  return numQuads;
}
