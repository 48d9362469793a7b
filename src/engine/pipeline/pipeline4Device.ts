// The 4-way pipeline of a rank whose quadruples are scored on the device (rankFinalize.ts deviceQuadFinalizer): its
// tiles merged into large requests (quadDeviceRects.ts), each a GEMM of row-pair planes × column-pair planes finalized
// where its tallies lie, one request ahead; the column-pair planes of all its requests are built once and stay on the
// device (in column chunks when they are many). A request the device declines (records that fit no binding) is
// finalized on the host, tile by tile.
import { pairPlaneMatrix } from '../../mgemm/index.js';
import { colPairsOf, numPairs, rowPairsOf, type QuadTile } from '../../parallel/index.js';
import type { DeviceQuadFinalizer, QuadDeviceRequest } from '../../analyses/index.js';
import type { VectorBlock } from '../blocks/vectorBlock.js';
import { traceMark } from '../../core/trace.js';
import { rampHeadPairs, type PipelineEnv } from './pipeline2.js';
import { runOneAhead } from './lookahead.js';
import { quadColumnChunks, quadDeviceRects, quadsOfRect, type QuadDeviceRect } from './quadDeviceRects.js';

/**
 * Most bytes of the column-pair planes a rank builds and holds at once (host memory and resident GPU memory; 2 GiB is
 * ~340 SNPs × 16,384 samples at 18 planes per pair): larger runs take their columns in chunks of this size, each
 * chunk's planes built once for all its tiles. A setting rather than a constant so that tests can drive small runs
 * through several chunks.
 */
export const quadColumnPlaneLimit: { maxBytes: number } = { maxBytes: 2 ** 31 };

/** What a device 4-way run did: quadruples finalized (all on the device but declined requests), records returned. */
export interface QuadDeviceOutcome {
  readonly numQuads: number;
  readonly numDeviceQuads: number;
  readonly numDeviceRecords: number;
}

/** Where the tiles and pair planes of the run lie (the plan's tile shape, the words per plane). */
export interface QuadDeviceShape {
  readonly rowsPerTile: number;
  readonly colsPerTile: number;
}

/**
 * Runs the rank's tiles on the device, column chunk by column chunk; null (nothing run) when a threshold run's columns
 * need several chunks: its record files keep the plan's tile order, which chunks would change. `hostTiles` finalizes
 * the tiles of a declined request on the host.
 */
export async function runQuadTilesOnDevice(
  env: PipelineEnv, own: VectorBlock, tiles: readonly QuadTile[], device: DeviceQuadFinalizer, shape: QuadDeviceShape,
  hostTiles: (tiles: readonly QuadTile[]) => Promise<void>,
): Promise<QuadDeviceOutcome | null> {
  const numVector = env.run.numVector;
  const { plan } = device;
  const { wordsPerPlane } = own.planes;
  const top = (env.run.topRecords ?? null) !== null;
  const chunks = quadColumnChunks(tiles, {
    colsPerTile: shape.colsPerTile, numPairs: numPairs(numVector),
    maxCols: Math.floor(quadColumnPlaneLimit.maxBytes / (plan.colPlanePairs.length * wordsPerPlane * 4)),
  });
  if (chunks.length > 1 && env.run.sink.writesRecords && !top) return null;
  const maxPairs = Math.max(shape.rowsPerTile * shape.colsPerTile, device.fullRatePairs(wordsPerPlane));
  let numQuads = 0;
  let numDeviceQuads = 0;
  let numDeviceRecords = 0;
  for (const [chunkIdx, chunk] of chunks.entries()) {
    const cols = colPairsOf(numVector, chunk.colFirst, chunk.colEnd);
    // Pair planes carry the words where they may have bits (pairPlaneMatrix): only a class's words of epistasis's
    // class planes are swept and held on the device.
    const colPlanes = pairPlaneMatrix(own.planes, cols.k, cols.l, plan.colPlanePairs);
    const rects = quadDeviceRects(chunk.tiles, {
      numPairs: chunk.colEnd, maxPairs, colsPerTile: shape.colsPerTile, numVector,
      // The 2-way ramp's sizes, in quadruples: 4 Ki, then 16 times more while within 1/16 of a full request.
      rampHeadQuads: top && chunkIdx === 0 ? rampHeadPairs(maxPairs) : [],
    });
    const requestOf = (rect: QuadDeviceRect): QuadDeviceRequest => {
      const rows = rowPairsOf(rect.rowFirst, rect.rowEnd);
      return {
        rows: pairPlaneMatrix(own.planes, rows.i, rows.j, plan.rowPlanePairs),
        rowPairFirst: rect.rowFirst, cols: colPlanes, colPairFirst: chunk.colFirst, colFirst: rect.colFirst - chunk.colFirst,
        numCols: rect.colEnd - rect.colFirst, tileRows: shape.rowsPerTile, tileCols: shape.colsPerTile,
      };
    };
    const started = new Map<QuadDeviceRect, QuadDeviceRequest>();
    await runOneAhead(inOrder(rects), (rect) => {
      traceMark(`device quads ${rect.rowEnd - rect.rowFirst} × ${rect.colEnd - rect.colFirst}`);
      const request = requestOf(rect);
      started.set(rect, request);
      return device.start(request);
    }, async (rect, result) => {
      const request = started.get(rect)!;
      started.delete(rect);
      const count = quadsOfRect(numVector, rect);
      if (result.kind === 'done') {
        numDeviceRecords += result.records.count;
        device.apply(result, request, env.run.sink);
        numDeviceQuads += count;
        env.onWork(count * env.run.numField);
      } else {
        await hostTiles(rect.tiles);
      }
      numQuads += count;
    }, { alone: (rect) => rect.rampHead === true });
  }
  return { numQuads, numDeviceQuads, numDeviceRecords };
}

async function* inOrder<T>(items: readonly T[]): AsyncGenerator<T> {
  yield* items;
}
