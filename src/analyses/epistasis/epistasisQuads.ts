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
import type { FinalizeContext, QuadTallyPlan, QuadTileView } from '../index.js';
import type { TermGroup } from '../../mgemm/index.js';
import { KINDS_PER_CLASS, NUM_CLASSES, planeOf } from './epistasisPlanes.js';
import { engineValueOf, k2ScaleOf, type ScoreTables } from './epistasisScores.js';
import { denseQuadCells, denseQuadK2, rowVectorGenotypes, sparseQuadCells, sparseQuadK2, type QuadBatch } from './quadCells.js';
import { QUAD_BATCH_CAPACITY, quadBatchEntries, quadBatchScores, QuadScoreScratch } from './quadScores.js';

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

/** Scores of a tile's quadruples, a row's columns at a time in batches (quadCells.ts, quadScores.ts). */
export class QuadTileScorer {
  private readonly cells: Int32Array;
  private readonly scratch = new QuadScoreScratch();
  private readonly batchScores = new Float64Array(QUAD_BATCH_CAPACITY);
  /** A dense row's vector genotypes (rowVectorGenotypes), grown to the tile's vector columns. */
  private vectorGenotypes = new Int32Array(0);

  constructor(private readonly settings: QuadFinalizeSettings) {
    this.cells = new Int32Array(quadBatchEntries(settings.score) * QUAD_BATCH_CAPACITY);
  }

  /** Scores (epistasisScore's doubles) of quadruples (row `row`, columns [colFirst, colFirst + count)) into `scores[0, count)`. */
  scoreRow(
    tile: QuadTileView, tallies: readonly Uint32Array[], vectorTallies: readonly Uint32Array[] | null, row: number, colFirst: number,
    count: number, scores: Float64Array,
  ): void {
    const { settings, cells, scratch, batchScores } = this;
    if (!settings.sparse) {
      if (this.vectorGenotypes.length < 54 * tile.numVectorCols) this.vectorGenotypes = new Int32Array(54 * tile.numVectorCols);
      rowVectorGenotypes(tile, vectorTallies!, row, this.vectorGenotypes);
    }
    for (let done = 0; done < count; done += QUAD_BATCH_CAPACITY) {
      const batch: QuadBatch = { cells, stride: QUAD_BATCH_CAPACITY, row, colFirst: colFirst + done, count: Math.min(QUAD_BATCH_CAPACITY, count - done) };
      // K2 adds each cell's term as soon as it is made (denseQuadK2, sparseQuadK2); MI and IG go over the stored cells.
      if (settings.score === 'k2') {
        const lf = settings.tables.logFactorial;
        if (settings.sparse) sparseQuadK2(batch, tile, tallies, lf, batchScores);
        else denseQuadK2(batch, tile, tallies, this.vectorGenotypes, lf, batchScores);
      } else {
        if (settings.sparse) sparseQuadCells(batch, tile, tallies);
        else denseQuadCells(batch, tile, tallies, this.vectorGenotypes);
        quadBatchScores(settings.score, settings.tables, cells, QUAD_BATCH_CAPACITY, batch.count, scratch, batchScores);
      }
      scores.set(batchScores.subarray(0, batch.count), done);
    }
  }
}

/** Scores of the tile's unique quadruples (rowJ[r] < colK[c]) into the sink, a run of one (i, j, k) at a time. */
export function finalizeEpistasisQuads(
  settings: QuadFinalizeSettings, ctx: FinalizeContext, tile: QuadTileView, tallies: readonly Uint32Array[],
  vectorTallies: readonly Uint32Array[] | null,
): number {
  const { rowI, rowJ, colK, colL } = tile;
  const numCols = colK.length;
  const scorer = new QuadTileScorer(settings);
  const k2Scale = k2ScaleOf(settings.tables);
  const values = new Float64Array(numCols);
  let numQuads = 0;
  for (let r = 0; r < rowI.length; r++) {
    const j = rowJ[r];
    // Columns are k-major: the valid ones (k > j) are a suffix.
    let colFirst = 0;
    while (colFirst < numCols && colK[colFirst] <= j) colFirst++;
    const count = numCols - colFirst;
    if (count === 0) continue;
    scorer.scoreRow(tile, tallies, vectorTallies, r, colFirst, count, values);
    for (let q = 0; q < count; q++) values[q] = engineValueOf(settings.score, values[q], k2Scale);
    for (let c = colFirst; c < numCols;) {
      const k = colK[c];
      const runFirst = c;
      while (c < numCols && colK[c] === k) c++;
      ctx.sink.addTupleValueRow({ i: rowI[r], j, k, first: colL[runFirst], count: c - runFirst }, values.subarray(runFirst - colFirst));
    }
    numQuads += count;
  }
  return numQuads;
}
