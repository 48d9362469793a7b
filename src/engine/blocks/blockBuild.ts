// Building a rank's block in shared memory from its source (a synthetic problem of SPEC §4, or the slab of a packed
// vector file): its rows are cut into chunks that short-lived block workers claim in order, generate or read, and
// pack into planes, so rows become final front to back and can be uploaded (and sent to other ranks) while later
// ones are built (FillingPlanes); small blocks are built on the main thread at once.
import { Worker } from 'node:worker_threads';
import { allocatePlaneMatrix, loadNativeCodePlanes, type PlaneMatrix } from '../../mgemm/index.js';
import { UserError } from '../../core/errors.js';
import { encodeLargeViews } from '../../core/largeViews.js';
import { LeadingRun, Watermark } from '../../core/orderedProgress.js';
import { allocateRowTables, blockRowFiller, fillRowTables, type BlockChunksTask, type BlockFill } from './blockRows.js';
import { slabPlaneWordRanges } from './planePacking.js';
import type { ProblemSource } from '../run/jobSpec.js';
import type { PlaneLayout } from '../../analyses/index.js';
import { finishedPlanes, type FillingPlanes, type SlabShape } from './vectorBlock.js';

/** The compiled worker entry, next to this file in dist/. */
const BLOCK_WORKER_URL = new URL('./blockBuildWorker.js', import.meta.url);

/**
 * Fields (vector rows × slab fields) below which one more thread does not pay. A block worker's start-up (loading
 * its modules, slower when many start at once, and building its own lookup tables) costs about as much as packing
 * a few times 10^7 fields of a file or the analytic problem on one thread; a share of 2^26 fields (16 MB of packed
 * codes) keeps that start-up a small part of the share, and a block of less than twice that is built on one thread.
 * The random problem's rows are copies, several times faster, so its blocks of up to a few 2^28 fields would build
 * faster on the main thread alone; they keep the workers, whose rows the upload and the block exchange follow as they
 * become final.
 */
export const MIN_FIELDS_PER_BLOCK_THREAD = 1 << 26;

/**
 * Plane bytes of one chunk of rows: small enough that an upload follows the build closely (and that workers
 * balance), large enough that claiming and reporting a chunk costs nothing next to filling it.
 */
const CHUNK_BYTES = 4 << 20;

/** How a block is built besides what it holds. */
export interface BlockBuildOptions {
  /** Threads to use at most (the rank's kernel threads); the main thread builds only a block kept on one thread. */
  readonly numThreads: number;
  /** Smallest share of fields worth a thread (default MIN_FIELDS_PER_BLOCK_THREAD; tests lower it). */
  readonly minFieldsPerThread?: number;
  /** Plane bytes per chunk of rows (default CHUNK_BYTES; tests lower it); at least one row. */
  readonly chunkBytes?: number;
  /**
   * A memory source's state while its rows are still written (jobSpec.ts): the block workers start at once and wait
   * for the rows in their threads. Only for a block built on workers (blockThreadCount > 1). Absent: rows are final.
   */
  readonly rowsFinal?: Int32Array;
}

/** Number of threads that build a block of `numFields` fields (vector rows × slab fields) over `numRows` rows. */
export function blockThreadCount(numRows: number, numFields: number, options: BlockBuildOptions): number {
  const minFields = options.minFieldsPerThread ?? MIN_FIELDS_PER_BLOCK_THREAD;
  return Math.max(1, Math.min(options.numThreads, numRows, Math.floor(numFields / minFields)));
}

/**
 * Starts building the planes of block `shape` of `source` and returns them while block workers fill them (a block
 * kept on one thread is filled before this returns). The result equals the single-threaded build bit for bit:
 * each row depends on its global index only (SPEC §4; a file's row is where it is).
 * @throws UserError (a block kept on one thread), or rejects `done` and `rowsReady` with it, when a file cannot be read.
 */
export function startBlockBuild(
  source: ProblemSource, numVector: number, numField: number, layout: PlaneLayout, shape: SlabShape,
  options: BlockBuildOptions,
): FillingPlanes {
  const planes: PlaneMatrix = {
    ...allocatePlaneMatrix(shape.numVectorLocal, layout.numPlanes, shape.numFieldLocal),
    planeWordRanges: slabPlaneWordRanges(layout, shape.fieldFirst, shape.numFieldLocal),
  };
  const fill: BlockFill = { source, numVector, numField, layout, shape, words: planes.words, wordsPerPlane: planes.wordsPerPlane };
  const numRows = shape.numVectorReal;
  const numThreads = blockThreadCount(numRows, numRows * shape.numFieldLocal, options);
  const tables = allocateRowTables(fill);
  if (numThreads === 1) {
    if (options.rowsFinal !== undefined) throw new Error('a block built on one thread needs its rows final before the build starts');
    fillRowTables(tables, fill);
    blockRowFiller(fill, tables, { nativePacking: loadNativeCodePlanes() })(0, numRows);
    return finishedPlanes(planes);
  }
  const rowBytes = 4 * layout.numPlanes * planes.wordsPerPlane;
  const chunkRows = Math.max(1, Math.floor((options.chunkBytes ?? CHUNK_BYTES) / rowBytes));
  const numChunks = Math.ceil(numRows / chunkRows);
  const progress = new ChunkProgress(numChunks);
  const task: BlockChunksTask = {
    fill, tables, chunkRows, numChunks, nextChunk: new Int32Array(new SharedArrayBuffer(4)), rowsFinal: options.rowsFinal ?? null,
  };
  const workers = Array.from({ length: numThreads }, () => runBlockWorker(task, (chunk) => progress.markDone(chunk)));
  // While the workers start; they wait for the tables, and exit when this fails.
  let tablesFailure: PromiseRejectedResult | undefined;
  try {
    fillRowTables(tables, fill);
  } catch (reason) {
    tablesFailure = { status: 'rejected', reason };
  }
  // Every worker has exited when this settles: none may still write into the block after a failure is reported.
  const done = Promise.allSettled(workers).then((settled) => {
    const failed = tablesFailure ?? settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed !== undefined) {
      progress.fail(failed.reason);
      throw failed.reason;
    }
    // Workers only exit once no chunk is left, each claimed chunk filled: every row is final.
    progress.markAllDone();
  });
  done.catch(() => undefined);
  return {
    planes,
    rowsReady: (rowEnd) => progress.whenDone(Math.ceil(Math.min(rowEnd, numRows) / chunkRows)),
    done,
  };
}

/** Builds the planes of block `shape` of `source` (startBlockBuild) and waits until they are final. */
export async function buildBlock(
  source: ProblemSource, numVector: number, numField: number, layout: PlaneLayout, shape: SlabShape,
  options: BlockBuildOptions,
): Promise<PlaneMatrix> {
  const filling = startBlockBuild(source, numVector, numField, layout, shape, options);
  await filling.done;
  return filling.planes;
}

/** Which chunks of a block are final, and the waits for a leading run of them. */
class ChunkProgress {
  private readonly chunks: LeadingRun;
  private readonly finalChunks = new Watermark();

  constructor(private readonly numChunks: number) {
    this.chunks = new LeadingRun(numChunks);
  }

  markDone(chunk: number): void {
    this.finalChunks.advance(this.chunks.markDone(chunk));
  }

  markAllDone(): void {
    this.finalChunks.advance(this.numChunks);
  }

  fail(reason: unknown): void {
    this.finalChunks.fail(reason);
  }

  /** Resolves once chunks `[0, chunks)` are final. */
  whenDone(chunks: number): Promise<void> {
    return this.finalChunks.whenReached(chunks);
  }
}

/** Starts a block worker on `task`, calling `onChunk` for each chunk it finishes; resolves when it has exited normally. */
function runBlockWorker(task: BlockChunksTask, onChunk: (chunk: number) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(BLOCK_WORKER_URL, { workerData: encodeLargeViews(task) });
    let failure: Error | undefined;
    worker.on('message', onChunk);
    worker.on('error', (error: Error) => {
      failure ??= error;
    });
    worker.on('exit', (code: number) => {
      // A user's error (e.g. an unreadable input file) keeps its kind across the thread: it names the file itself.
      if (failure?.name === 'UserError') reject(new UserError(failure.message));
      else if (failure !== undefined) reject(new Error(`block worker failed: ${failure.message}`));
      else if (code !== 0) reject(new Error(`block worker exited with code ${code}`));
      else resolve();
    });
  });
}
