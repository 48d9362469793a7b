// The 4-way pipeline of one rank: its tiles of the quad plan (parallel/quadPlan.ts), each an mGEMM4 — the 2-way
// popcount GEMM of row-pair planes (i ∧ j) against column-pair planes (k ∧ l), plus the analysis's row pairs × single
// vectors GEMM when it has one — then finalized on the host (on the finalize pool with several threads); the next
// tile's GEMMs run while this one finalizes. Where the kernel set and the run allow it, the tiles are scored on the
// device instead (pipeline4Device.ts).
import { pairPlaneMatrix, type PopcountGemmResult } from '../../mgemm/index.js';
import { colPairsOf, rowPairsOf, type QuadTile } from '../../parallel/index.js';
import type { QuadAnalysis, QuadTileView } from '../../analyses/index.js';
import type { VectorBlock } from '../blocks/vectorBlock.js';
import type { PipelineEnv } from './pipeline2.js';
import type { QuadTileRun } from '../finalize/finalizeTasks.js';
import { runOneAhead } from './lookahead.js';
import { deviceQuadFinalizer } from '../finalize/rankFinalize.js';
import { runQuadTilesOnDevice, type QuadDeviceOutcome } from './pipeline4Device.js';

/**
 * Tile shape: row pairs × column pairs per GEMM. 128 × 256 keeps a tile's tallies at 4.7–21 MiB (72 to 162 groups of
 * u32) while the pair planes built per tile are ~1% of its GEMM's word operations (rows + cols planes vs rows·cols terms).
 */
export const QUAD_ROWS_PER_TILE = 128;
export const QUAD_COLS_PER_TILE = 256;

/** A tile's operands and decoded pairs. */
interface StartedTile {
  readonly view: QuadTileView;
  readonly tallies: Promise<PopcountGemmResult>;
  readonly vectorTallies: Promise<PopcountGemmResult> | null;
}

/** Runs the rank's tiles (own = every vector); returns the number of quadruples finalized (on the device among them). */
export async function runQuadTiles(env: PipelineEnv, own: VectorBlock, tiles: readonly QuadTile[]): Promise<QuadDeviceOutcome> {
  const quads: QuadAnalysis | null = env.run.analysis.quads ?? null;
  if (quads === null) throw new Error('a 4-way run of an analysis without a 4-way part (checkJob refuses it)');
  if (env.fieldComm.size !== 1) throw new Error('a 4-way run with field slabs (validateDecomposition refuses it)');
  const device = deviceQuadFinalizer(env.run, env.gemm, { placement: env.finalizePlacement, fieldComm: env.fieldComm });
  if (device !== null) {
    const hostTiles = async (declined: readonly QuadTile[]): Promise<void> => {
      await runQuadTiles({ ...env, finalizePlacement: 'host' }, own, declined);
    };
    const shape = { rowsPerTile: QUAD_ROWS_PER_TILE, colsPerTile: QUAD_COLS_PER_TILE };
    const outcome = await runQuadTilesOnDevice(env, own, tiles, device, shape, hostTiles);
    if (outcome !== null) return outcome;
  }
  const { plan } = quads;
  const { gemm } = env;
  let numQuads = 0;
  const start = (tile: QuadTile): StartedTile => {
    const rows = rowPairsOf(tile.rowFirst, tile.rowEnd);
    const cols = colPairsOf(env.run.numVector, tile.colFirst, tile.colEnd);
    const a = pairPlaneMatrix(own.planes, rows.i, rows.j, plan.rowPlanePairs);
    const b = pairPlaneMatrix(own.planes, cols.k, cols.l, plan.colPlanePairs);
    const vectorFirst = cols.k[0];
    let vectorEnd = vectorFirst + 1;
    for (const l of cols.l) vectorEnd = Math.max(vectorEnd, l + 1);
    const view: QuadTileView = {
      vectors: own, rowI: rows.i, rowJ: rows.j, colK: cols.k, colL: cols.l, vectorFirst, numVectorCols: vectorEnd - vectorFirst,
    };
    const tallies = gemm.run({ a, aFirst: 0, aCount: a.numVectors, b, bFirst: 0, bCount: b.numVectors, termGroups: plan.termGroups, strictUpper: false });
    const vectorTallies = plan.vectorTermGroups === null ? null : gemm.run({
      a, aFirst: 0, aCount: a.numVectors, b: own.planes, bFirst: vectorFirst, bCount: vectorEnd - vectorFirst,
      termGroups: plan.vectorTermGroups, strictUpper: false,
    });
    // A tile whose finish never comes (an earlier one failed) must not leave an unhandled rejection.
    tallies.catch(() => undefined);
    vectorTallies?.catch(() => undefined);
    return { view, tallies, vectorTallies };
  };
  const finish = async (_tile: QuadTile, started: StartedTile): Promise<void> => {
    const tallies = await started.tallies;
    const vectorTallies = started.vectorTallies === null ? null : await started.vectorTallies;
    numQuads += await finalizeQuadTileOnHost(env, { tile: started.view, tallies, vectorTallies });
    gemm.recycle?.(tallies);
    if (vectorTallies !== null) gemm.recycle?.(vectorTallies);
  };
  await runOneAhead(inOrder(tiles), async (tile) => start(tile), finish);
  return { numQuads, numDeviceQuads: 0, numDeviceRecords: 0 };
}

/** A tile's quadruples finalized on the host: on this thread or on the finalize pool, rows in order (hostFinalizer.ts). */
function finalizeQuadTileOnHost(env: PipelineEnv, run: QuadTileRun): Promise<number> {
  return env.hostFinalizer.finalizeQuads(run, (done) => env.onWork(done * env.run.numField));
}

async function* inOrder<T>(items: readonly T[]): AsyncGenerator<T> {
  yield* items;
}
