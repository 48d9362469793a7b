// Loading the own vector block and exchanging blocks with the ranks that read them.
import { Watermark } from '../../core/orderedProgress.js';
import { traced, traceMark } from '../../core/trace.js';
import type { PlaneMatrix, PopcountGemm, VectorSums } from '../../mgemm/index.js';
import type { Communicator } from '../../parallel/index.js';
import type { JobSpec } from '../run/jobSpec.js';
import type { RankLayout } from '../run/rankPlans.js';
import type { PlaneLayout } from '../../analyses/index.js';
import { blockThreadCount, startBlockBuild } from './blockBuild.js';
import { codeRowPlanes } from './codeRowPlanes.js';
import { memoryRowsFinal } from './blockRows.js';
import type { FillingPlanes, ReceivedBlocks, SlabShape, VectorBlock } from './vectorBlock.js';

/**
 * Starts building the planes of the rank's own block on its field slab: block workers (blockBuild.ts) generate a
 * synthetic block or read the rows of the input file, so the main thread is free meanwhile (the rank opens its
 * kernel set then) and the rows become final front to back. With `codeRows` (a memory source; see codeRowPlanes.ts)
 * the planes are the rows in memory as they are, final once the rows are.
 */
export async function buildOwnPlanes(
  job: JobSpec, layout: RankLayout, planeLayout: PlaneLayout, numThreads: number, options: { readonly codeRows: boolean } = { codeRows: false },
): Promise<FillingPlanes> {
  const shape = slabShape(layout, layout.coords.vectorIdx);
  const memory = job.source.kind === 'memory' ? job.source : null;
  if (options.codeRows) {
    if (memory === null) throw new Error('only rows in memory are held as code rows');
    const planes = codeRowPlanes(planeLayout, shape, memory, job.numField);
    // Records are read from the .bed by the kernel set: nothing to wait for.
    const rowsFinal = (planes.codeRecords ?? null) !== null ? Promise.resolve() : traced('input in memory final', () => memoryRowsFinal(memory.state));
    rowsFinal.catch(() => undefined);
    return { planes, rowsReady: () => rowsFinal, done: rowsFinal };
  }
  // Block workers start while rows in memory are still written and wait for them in their threads, so that their
  // start-up (modules, tables: 50–100 ms) overlaps the transposition; a block built on this thread waits here.
  const onWorkers = blockThreadCount(shape.numVectorReal, shape.numVectorReal * shape.numFieldLocal, { numThreads }) > 1;
  const rowsFinal = memory === null ? null : traced('input in memory final', () => memoryRowsFinal(memory.state));
  if (rowsFinal !== null && !onWorkers) await rowsFinal;
  rowsFinal?.catch(() => undefined);
  const filling = startBlockBuild(job.source, job.numVector, job.numField, planeLayout, shape, {
    numThreads, ...(memory !== null && onWorkers ? { rowsFinal: memory.state } : {}),
  });
  filling.done.then(() => traceMark('own planes built'), () => undefined);
  return filling;
}

/**
 * The rank's own block from its planes: their sums from the kernel set (a GPU uploads the rows as they become
 * final and sums them where it keeps them), reduced over all field slabs. Returns once no thread writes the planes.
 */
export async function sumOwnBlock(
  job: JobSpec, layout: RankLayout, planeLayout: PlaneLayout, filling: FillingPlanes, fieldComm: Communicator, gemm: PopcountGemm,
): Promise<VectorBlock> {
  const blockIdx = layout.coords.vectorIdx;
  const shape = slabShape(layout, blockIdx);
  const { planes } = filling;
  let partial: VectorSums;
  try {
    partial = await traced('vector sums', () => gemm.vectorSums({
      planes, countPlanes: planeLayout.countPlanes, maskPlane: planeLayout.maskPlane, rowsReady: filling.rowsReady,
    }));
  } finally {
    // No block worker may still write the planes when this returns or throws.
    await filling.done.catch(() => undefined);
  }
  await filling.done;
  const n = planes.numVectors;
  const both = new Float64Array(2 * n);
  both.set(partial.sums, 0);
  both.set(partial.counts, n);
  const reduced = fieldComm.size === 1 ? both : await fieldComm.allReduceSum(both);
  const sums = reduced.slice(0, n);
  const counts = planeLayout.maskPlane === null ? new Float64Array(n).fill(job.numField) : reduced.slice(n);
  return { blockIdx, vectorFirst: shape.vectorFirst, numVectorReal: shape.numVectorReal, planes, sums, counts };
}

export function slabShape(layout: RankLayout, blockIdx: number): SlabShape {
  const vectors = layout.blockRanges[blockIdx];
  return {
    numVectorLocal: layout.numVectorLocal,
    vectorFirst: vectors.begin,
    numVectorReal: vectors.end - vectors.begin,
    fieldFirst: layout.fieldRange.begin,
    numFieldLocal: layout.fieldRange.end - layout.fieldRange.begin,
  };
}

const TAG_PLANES = 0;
/** A receive's `like`: block words arrive as Uint32 in shared memory. */
const SHARED_WORDS = new Uint32Array(new SharedArrayBuffer(0));
const TAG_SUMS = 1;
/** A receive's `like` for the sums (and present counts) of a block's vectors. */
const SUMS_LIKE = new Float64Array(0);

/**
 * Sends the own block to every rank that reads it and starts receiving the blocks this rank reads. The planes
 * go while they are built (each piece once its rows are final, so a peer has them soon after the build ends,
 * not after this rank's sums); the sums once `own` has them. A received block's planes are offered as their
 * rows arrive (`arriving`), and whole with their sums (`block`); sends and receives proceed meanwhile. A failed
 * `own` sends no sums: the rank fails through it.
 */
export function startBlockExchange(
  comm: Communicator, layout: RankLayout, filling: FillingPlanes, own: Promise<VectorBlock>,
): ReceivedBlocks {
  const { planes } = filling;
  const rowBytes = planes.numPlanes * planes.wordsPerPlane * 4;
  const bytesReady = (byteEnd: number): Promise<void> => filling.rowsReady(Math.ceil(byteEnd / rowBytes));
  const n = planes.numVectors;
  for (const { peerRank } of layout.exchange.sends) {
    // The own block never changes once built: it goes out without a copy. A failed build fails this rank through
    // `own` (sumOwnBlock waits for the build), which ends the job: the send's own rejection adds nothing.
    comm.send(peerRank, TAG_PLANES, planes.words, { immutable: true, ready: bytesReady }).catch(() => undefined);
  }
  own.then((block) => {
    const sums = new Float64Array(2 * n);
    sums.set(block.sums, 0);
    sums.set(block.counts, n);
    for (const { peerRank } of layout.exchange.sends) void comm.send(peerRank, TAG_SUMS, sums);
  }, () => undefined);
  const blocks = new Map<number, Promise<VectorBlock>>();
  const arriving = new Map<number, Promise<FillingPlanes>>();
  // Blocks are received one after the other in first-use order: a receiving rank copies the pieces of all its
  // receives in turn, so two blocks at once would both arrive when the second alone should, late for the first step.
  let previousWords: Promise<unknown> = Promise.resolve();
  for (const { block: blockIdx, peerRank: source } of layout.exchange.receives) {
    // Every block has the own block's shape: MPI maps the receive's memory meanwhile, off this thread.
    comm.prepareReceive(source, TAG_PLANES, SHARED_WORDS, planes.words.length);
    const incoming = new IncomingPlanes(planes, `block ${blockIdx} from rank ${source}`);
    const after = previousWords;
    const receivedWords = (async () => {
      await after.catch(() => undefined);
      // Received straight into shared memory (the CPU kernels' workers read it there).
      return traced(`block ${blockIdx} received from rank ${source}`, () => comm.recv(source, TAG_PLANES, SHARED_WORDS, {
        progress: (words, byteEnd) => incoming.progress(words, byteEnd),
      }));
    })();
    receivedWords.catch((error: unknown) => incoming.fail(error));
    previousWords = receivedWords;
    arriving.set(blockIdx, incoming.filling);
    const block = (async (): Promise<VectorBlock> => {
      await receivedWords;
      const { planes: received } = await incoming.filling;
      const both = await comm.recv(source, TAG_SUMS, SUMS_LIKE);
      const shape = slabShape(layout, blockIdx);
      return {
        blockIdx, vectorFirst: shape.vectorFirst, numVectorReal: shape.numVectorReal,
        planes: received, sums: both.slice(0, n), counts: both.slice(n),
      };
    })();
    // A block the rank never asks for (the job stopped first) fails unawaited: not an unhandled rejection, which would
    // end an in-process rank's thread under its open GPU device. Whoever asks for it still gets the error.
    block.catch(() => undefined);
    blocks.set(blockIdx, block);
  }
  const planned = <T>(map: Map<number, Promise<T>>, blockIdx: number): Promise<T> => {
    const found = map.get(blockIdx);
    if (found === undefined) throw new Error(`block ${blockIdx} was not planned to be received`);
    return found;
  };
  return { block: (blockIdx) => planned(blocks, blockIdx), arriving: (blockIdx) => planned(arriving, blockIdx) };
}

/**
 * The planes of one block being received: made from the receive's array once it exists (the own block's shape,
 * other words), with rows final as far as the receive's progress says.
 */
class IncomingPlanes {
  readonly filling: Promise<FillingPlanes>;
  private readonly bytesArrived = new Watermark();
  private readonly rowBytes: number;
  private settle: { resolve(filling: FillingPlanes): void; reject(reason: unknown): void } | null = null;

  constructor(private readonly shape: PlaneMatrix, private readonly what: string) {
    this.rowBytes = shape.numPlanes * shape.wordsPerPlane * 4;
    this.filling = new Promise((resolve, reject) => {
      this.settle = { resolve, reject };
    });
    this.filling.catch(() => undefined);
  }

  /** The receive's progress: the first call makes the planes; every call says how many bytes are final. */
  progress(words: Uint32Array, byteEnd: number): void {
    if (this.settle !== null) {
      if (words.length !== this.shape.words.length) {
        this.fail(new Error(`${this.what}: ${words.length} words, expected ${this.shape.words.length}`));
        return;
      }
      // Kernel worker threads read planes without copies only from shared memory (recv's `like` is shared).
      if (!(words.buffer instanceof SharedArrayBuffer)) {
        this.fail(new Error(`${this.what}: received outside shared memory`));
        return;
      }
      const { resolve } = this.settle;
      this.settle = null;
      const planes: PlaneMatrix = { ...this.shape, words };
      const { rowBytes } = this;
      const done = this.bytesArrived.whenReached(words.byteLength);
      done.catch(() => undefined);
      resolve({
        planes,
        rowsReady: (rowEnd) => this.bytesArrived.whenReached(Math.min(rowEnd * rowBytes, words.byteLength)),
        done,
      });
    }
    this.bytesArrived.advance(byteEnd);
  }

  fail(reason: unknown): void {
    this.settle?.reject(reason);
    this.settle = null;
    this.bytesArrived.fail(reason);
  }
}
