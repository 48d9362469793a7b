// Building a rank's synthetic block (SPEC §4) in shared memory, its rows split over the main thread and
// short-lived block worker threads when the block is large enough to repay starting them.
import { Worker } from 'node:worker_threads';
import { allocatePlaneMatrix, type PlaneMatrix } from '../../mgemm/index.js';
import { evenSplit } from '../../parallel/index.js';
import { fillSyntheticRows, type SyntheticBlockFill, type SyntheticRowsTask } from './syntheticRows.js';
import type { PlaneLayout } from './tallyLayout.js';
import type { SlabShape } from './vectorBlock.js';

/** The compiled worker entry, next to this file in dist/. */
const BLOCK_WORKER_URL = new URL('./syntheticBlockWorker.js', import.meta.url);

/**
 * Fields (vector rows × slab fields) below which one more thread does not pay. A block worker takes ~30–50 ms
 * to start and load its modules (~100 ms on a loaded machine) and builds its own lookup tables (~10 ms); one
 * thread generates and packs ~500–1000 M fields/s. A share of 2^26 fields (16 MB of packed codes, ~0.1 s)
 * keeps that start-up a small part of the share; a block of less than twice that is built on one thread.
 */
export const MIN_FIELDS_PER_BLOCK_THREAD = 1 << 26;

/** How a synthetic block is built besides what it holds. */
export interface SyntheticBlockOptions {
  /** Threads to use at most, the main thread included (the rank's kernel threads). */
  readonly numThreads: number;
  /** Smallest share of fields worth a thread (default MIN_FIELDS_PER_BLOCK_THREAD; tests lower it). */
  readonly minFieldsPerThread?: number;
}

/** Number of threads that build a block of `numFields` fields (vector rows × slab fields) over `numRows` rows. */
export function blockThreadCount(numRows: number, numFields: number, options: SyntheticBlockOptions): number {
  const minFields = options.minFieldsPerThread ?? MIN_FIELDS_PER_BLOCK_THREAD;
  return Math.max(1, Math.min(options.numThreads, numRows, Math.floor(numFields / minFields)));
}

/**
 * Builds the planes of the synthetic block `shape` of `problem`. Rows are cut into
 * contiguous ranges (evenSplit): the main thread fills the first while block workers fill the others in the
 * same SharedArrayBuffer. The result equals the single-threaded build bit for bit: each row depends on
 * global indices only (SPEC §4).
 */
export async function buildSyntheticBlock(
  problem: 'random' | 'analytic', numVector: number, numField: number, layout: PlaneLayout, shape: SlabShape,
  options: SyntheticBlockOptions,
): Promise<PlaneMatrix> {
  const planes = allocatePlaneMatrix(shape.numVectorLocal, layout.numPlanes, shape.numFieldLocal);
  const fill: SyntheticBlockFill = { problem, numVector, numField, layout, shape, words: planes.words, wordsPerPlane: planes.wordsPerPlane };
  const numRows = shape.numVectorReal;
  const numThreads = blockThreadCount(numRows, numRows * shape.numFieldLocal, options);
  const workersDone = Array.from({ length: numThreads - 1 }, (_, w) => {
    const rows = evenSplit(numRows, numThreads, w + 1);
    return runBlockWorker({ fill, rowFirst: rows.begin, rowEnd: rows.end });
  });
  // Even if the main thread's share fails, no worker may still write into the block after we return.
  let ownFailure: unknown;
  try {
    const own = evenSplit(numRows, numThreads, 0);
    fillSyntheticRows(fill, own.begin, own.end);
  } catch (error) {
    ownFailure = error ?? new Error('block build failed');
  }
  const settled = await Promise.allSettled(workersDone);
  if (ownFailure !== undefined) throw ownFailure;
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed !== undefined) throw failed.reason;
  return planes;
}

/** Starts a block worker on `task`; resolves when it has exited after filling its rows. */
function runBlockWorker(task: SyntheticRowsTask): Promise<void> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(BLOCK_WORKER_URL, { workerData: task });
    let failure: Error | undefined;
    worker.on('error', (error: Error) => {
      failure ??= error;
    });
    worker.on('exit', (code: number) => {
      if (failure !== undefined) reject(new Error(`block worker failed: ${failure.message}`));
      else if (code !== 0) reject(new Error(`block worker exited with code ${code}`));
      else resolve();
    });
  });
}
