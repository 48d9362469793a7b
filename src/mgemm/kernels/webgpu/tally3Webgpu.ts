// mGEMM3 on the GPU: for each j-slice of a 3-way request, the pair products (x_i AND y_j) are built on the
// GPU from the resident x and y planes (pairProductProgram), then multiplied against the resident z planes
// by the 2-way plans (plan/requestPlanner.ts: bitwise or u8 kernels). Consecutive slices are stacked into one
// GEMM (sliceStacks.ts, stackProducts.ts); each slice takes its rectangle of a sub-block's output. Many stacks
// share one submit and one read-back: each sub-block writes its own aligned range of one output buffer.
// submitTally3Finalize runs the same dispatches, all in one submit, with a finalize dispatch after each sub-block
// over its slices' rectangles (tripleFinalizeWebgpu.ts): the tallies stay on the GPU and only checksum partials,
// counts and records come back. Both return once submitted; the kernel set collects the results after the request's turn.

import type { PlaneMatrix, PlanePair, PopcountGemm3Request, PopcountGemm3Result, PopcountGemmRequest, Tally3Slice } from '../../contract.js';
import { NO_PAIR_RECORDS, type PairFinalizeResult } from '../../pairFinalize.js';
import { checkPopcountGemm3Request } from '../../requestChecks.js';
import {
  isProgramTripleRequest, tripleFinalizeValuesOf, triplePairCountsOf, tripleRecordKeysFit, tripleVectorWordsOf, type TripleFinalizeRequest,
  type TripleFinalizeValues,
} from '../../tripleFinalize.js';
import type { Finalize3Program } from './finalize/finalize3Program.js';
import type { HistogramLayout } from '../../../core/histogramLayout.js';
import type { KernelFamily } from './plan/kernelChoice.js';
import type { FinalizeScratch } from './finalize/finalizeScratch.js';
import {
  DEVICE_OUTPUT_BYTES_PER_DISPATCH, OUTPUT_BYTES_PER_DISPATCH, scatter, type BlockShape, type RequestPlan, type SubBlock,
} from './plan/requestPlan.js';
import type { PlaneChunk, ResidentPlanes } from './operands/residentPlanes.js';
import { stackSlices, type SliceStack } from './plan/sliceStacks.js';
import { stackProductDispatches } from './operands/stackProducts.js';
import { U8_SLAB_ROWS } from './plan/u8Slabs.js';
import {
  finalize3Dispatch, finalize3RectTable, finalize3Workgroups, requestFinalizeWords, type RectTable, type TallyRect,
} from './finalize/tripleFinalizeWebgpu.js';
import { settled, type BufferRange, type Dispatch, type Pending, type WebgpuRunner } from './runtime/webgpuRunner.js';
import type { WgslProgram } from './programs/wgslProgram.js';

/** What the 3-way driver uses of the kernel set (PopcountGemmWebgpu). */
export interface Tally3Host {
  readonly runner: WebgpuRunner;
  readonly resident: ResidentPlanes;
  readonly maxBindingBytes: number;
  /** Output bytes of one submit's read-back (a submit holds at least one sub-block, whatever its size). */
  readonly maxReadBackBytes: number;
  /** The 2-way plan of `request` whose A rows are `aChunks` (request.a carries only their shape), sub-blocks of at most blockOutputBytes. */
  plan(request: PopcountGemmRequest, aChunks: readonly PlaneChunk[], blockOutputBytes: number): Promise<RequestPlan | null>;
  /** A named scratch buffer of at least numBytes, shared by all requests (a replaced one lives until submitted work is done). */
  scratchBuffer(name: string, numBytes: number): GPUBuffer;
  pairProductProgram(numPlanesX: number, numPlanesY: number, pairs: readonly PlanePair[]): WgslProgram;
}

/** What device finalize (submitTally3Finalize) uses besides: its program, resident T[cmc], and the request's finalize set. */
export interface Finalize3Host extends Tally3Host {
  finalize3Program(values: TripleFinalizeValues, histogram: HistogramLayout | null): Finalize3Program;
  /** The device copy of a dense T[cmc] block-pair matrix or a value program's run words (kept across requests). */
  residentBuffer(data: Uint32Array): GPUBuffer;
  /** Status, partials and records of this request, and the submit and read-back 2-way and 3-way share. */
  readonly finalizeScratch: FinalizeScratch;
}

/**
 * Outputs of a stacked GEMM at most (rows × union columns; sliceStacks.ts): ~1000 workgroups of the u8 kernel's
 * 128 × 256 tiles, several waves on a large GPU, where one tetrahedron slice of nv 4096 is about one wave.
 */
const STACK_OUTPUTS = 1 << 25;
/**
 * Pair-product bytes of a stack at most (16,384 rows of 8 plane pairs at 65,536 fields): the products buffer stays
 * within a binding. Thin late slices would otherwise stack by the thousand. Stacks of 4096 rows left an epistasis
 * run's u8 GEMMs at ~70 workgroup tiles a dispatch, far below a large GPU's rate (docs/performance.md).
 */
const STACK_PRODUCT_BYTES = 1 << 30;
/** Computed outputs of a stack at most this many times its slices' own: columns outside a slice's z range are waste. */
const STACK_WASTE_RATIO = 1.125;

/** One slice's rectangle of a sub-block in a submit's output: which slice, the step that computes it, where the block's output lies. */
interface Piece {
  readonly sliceIdx: number;
  readonly stepIdx: number;
  /** The block's output range in the submit's buffer (all its groups). */
  readonly byteOffset: number;
  readonly numBytes: number;
  readonly rect: TallyRect;
}

/** A step of a submit: its dispatches once the submit's output buffer is known. */
type Step = (output: GPUBuffer) => Dispatch[];

/** One submit: steps in order (pair products, then the sub-blocks that read them) and the pieces it reads back. */
interface Submit {
  readonly steps: Step[];
  readonly pieces: Piece[];
  numBytes: number;
}

/**
 * Cuts a request into submits. The slices are stacked (sliceStacks.ts): per stack, its parts' pair products are
 * built into one scratch buffer, one after another (stackProducts.ts), then the stack's GEMM plan runs on them
 * against the union of the parts' z ranges, and each sub-block gives one piece per slice it holds rows and columns
 * of. Dispatches of one submit run in order, so one products buffer serves all stacks.
 */
async function planSubmits(
  host: Tally3Host, request: PopcountGemm3Request, blockOutputBytes: number,
): Promise<{ submits: Submit[]; family: KernelFamily }> {
  const { x, y, z, planePairs, termGroups, slices } = request;
  const { runner } = host;
  const pinned = [x, y, z];
  const xChunks = await host.resident.chunksOf(x, pinned);
  const yChunks = await host.resident.chunksOf(y, pinned);
  await host.resident.chunksOf(z, pinned);
  const wordsPerPlane = x.wordsPerPlane;
  const productRowBytes = planePairs.length * wordsPerPlane * 4;
  const rowsPerProduct = Math.floor(host.maxBindingBytes / productRowBytes);
  if (rowsPerProduct < 1) throw new RangeError(`one row of pair products (${productRowBytes} bytes) exceeds the storage binding size (${host.maxBindingBytes} bytes)`);
  const productProgram = host.pairProductProgram(x.numPlanes, y.numPlanes, planePairs);
  await runner.pipelineFor(productProgram);
  const maxStackRows = Math.min(rowsPerProduct, Math.max(U8_SLAB_ROWS, Math.floor(STACK_PRODUCT_BYTES / productRowBytes)));
  const stacks = stackSlices(slices, {
    maxRows: maxStackRows, maxOutputs: STACK_OUTPUTS, maxWasteRatio: STACK_WASTE_RATIO, rowCuts: xChunks.map((c) => c.firstRow),
  });
  const products = host.scratchBuffer('pairProducts', Math.max(1, ...stacks.map((s) => s.numRows)) * productRowBytes);
  const productDispatches = stackProductDispatches({
    runner, program: productProgram, slices, xChunks, yChunks, products, productRowBytes, wordsPerPlane,
    tableBuffer: (numBytes) => host.scratchBuffer('productParts', numBytes),
  }, stacks);
  const align = runner.capabilities.minStorageBufferOffsetAlignment;
  const maxSubmitBytes = host.maxReadBackBytes;
  const numGroups = termGroups.length;
  const submits: Submit[] = [];
  let current: Submit = { steps: [], pieces: [], numBytes: 0 };
  let family: KernelFamily = 'bitwise';
  for (const [stackIdx, stack] of stacks.entries()) {
    // Shape only: the products exist on the GPU alone (aChunks of the plan below).
    const productShape: PlaneMatrix = { numVectors: stack.numRows, numPlanes: planePairs.length, wordsPerPlane, words: new Uint32Array(0) };
    const plan = await host.plan({
      a: productShape, aFirst: 0, aCount: stack.numRows, b: z, bFirst: stack.zFirst, bCount: stack.zCount, termGroups, strictUpper: false,
    }, [{ firstRow: 0, numRows: stack.numRows, buffer: products }], blockOutputBytes);
    if (plan === null) continue;
    family = plan.family;
    let productsQueued = false;
    for (const block of plan.blocks) {
      const shape = plan.shapeOf(block);
      const rects = rectsOf(stack, block, shape, slices);
      if (rects.length === 0) continue;
      if (!productsQueued) {
        // The products stay in their buffer across submits (the queue runs submits in order).
        const dispatches = productDispatches(stackIdx);
        current.steps.push(() => dispatches);
        productsQueued = true;
      }
      const numBytes = shape.groupWords * numGroups * 4;
      let byteOffset = Math.ceil(current.numBytes / align) * align;
      if (current.pieces.length > 0 && byteOffset + numBytes > maxSubmitBytes) {
        submits.push(current);
        current = { steps: [], pieces: [], numBytes: 0 };
        byteOffset = 0;
      }
      const stepIdx = current.steps.length;
      for (const { sliceIdx, rect } of rects) current.pieces.push({ sliceIdx, stepIdx, byteOffset, numBytes, rect });
      current.steps.push((output) => plan.dispatchesOf(block, { buffer: output, offset: byteOffset, size: numBytes }));
      current.numBytes = byteOffset + numBytes;
    }
  }
  if (current.pieces.length > 0) submits.push(current);
  return { submits, family };
}

/** The rectangles of a stack's sub-block that belong to its slices: each part's rows in the block, within its slice's z range. */
function rectsOf(stack: SliceStack, block: SubBlock, shape: BlockShape, slices: readonly Tally3Slice[]): { sliceIdx: number; rect: TallyRect }[] {
  const rects: { sliceIdx: number; rect: TallyRect }[] = [];
  for (const part of stack.parts) {
    const r0 = Math.max(block.rowFirst, part.stackRowFirst);
    const r1 = Math.min(block.rowFirst + block.numRows, part.stackRowFirst + part.numRows);
    const slice = slices[part.sliceIdx];
    const c0 = Math.max(block.colFirst, slice.zFirst);
    const c1 = Math.min(block.colFirst + block.numCols, slice.zFirst + slice.zCount);
    if (r1 <= r0 || c1 <= c0) continue;
    rects.push({
      sliceIdx: part.sliceIdx,
      rect: {
        rowFirst: part.sliceRowFirst + (r0 - part.stackRowFirst), numRows: r1 - r0, colFirst: c0, numCols: c1 - c0,
        groupWords: shape.groupWords, rowStride: shape.rowStride, tallyFirst: (r0 - block.rowFirst) * shape.rowStride + (c0 - block.colFirst),
      },
    });
  }
  return rects;
}

/**
 * Submits a 3-way request: its submits one after another (runner.submitEachWithReadBack), each read back once and
 * scattered per slice; the last one's words come with the returned collect().
 */
export async function submitTally3(host: Tally3Host, request: PopcountGemm3Request): Promise<Pending<PopcountGemm3Result>> {
  checkPopcountGemm3Request(request);
  const outputs = request.slices.map((s) => request.termGroups.map(() => new Uint32Array(s.xCount * s.zCount)));
  const { submits } = await planSubmits(host, request, OUTPUT_BYTES_PER_DISPATCH);
  const pending = await host.runner.submitEachWithReadBack(submits, (submit) => {
    const output = host.scratchBuffer('output', submit.numBytes);
    return { dispatches: submit.steps.flatMap((step) => step(output)), reads: [{ buffer: output, numBytes: submit.numBytes }] };
  }, (submit, [words]) => {
    for (const { sliceIdx, byteOffset, numBytes, rect } of submit.pieces) {
      const slice = request.slices[sliceIdx];
      // From the rectangle's first tally: scatter then reads group g's rows at g·groupWords + r·rowStride.
      const pieceWords = words.subarray(byteOffset / 4 + rect.tallyFirst, (byteOffset + numBytes) / 4);
      scatter(pieceWords, rect, { aFirst: 0, bFirst: slice.zFirst, bCount: slice.zCount }, outputs[sliceIdx], rect);
    }
  });
  return { collect: async () => { await pending.collect(); return outputs; } };
}

/**
 * All the dispatches of a 3-way request (pair products and GEMMs) in one list, writing into one output buffer, and
 * its kernel family: what benchmarks run again and again, with no read-back (kernelBenchmarking.ts).
 */
export async function tally3KernelDispatches(host: Tally3Host, request: PopcountGemm3Request): Promise<{ dispatches: Dispatch[]; family: KernelFamily }> {
  checkPopcountGemm3Request(request);
  const { submits, family } = await planSubmits(host, request, OUTPUT_BYTES_PER_DISPATCH);
  const outputBytes = Math.max(0, ...submits.map((s) => s.numBytes));
  const output = host.scratchBuffer('output', outputBytes);
  return { dispatches: submits.flatMap((submit) => submit.steps.flatMap((step) => step(output))), family };
}

/** The result of a request with nothing to finalize. */
const NOTHING_FINALIZED: PairFinalizeResult = {
  kind: 'done', checksumSum: 0n, entries: 0, zeros: 0, records: NO_PAIR_RECORDS, denseValues: null, histogram: null,
};

/**
 * Device finalize of a 3-way request (mgemm/tripleFinalize.ts): the dispatches of submitTally3's submits, each
 * sub-block's GEMM followed by one finalize dispatch over its slices' rectangles of the output range it left, all
 * in one submit — no tallies come back, so the submits' outputs take turns in one buffer (a submit's dispatches run
 * in order). Every slice's words and every sub-block's rectangle table are uploaded first, into one buffer. Status,
 * partials and records of the whole request come back together (finalizeScratch.ts); the collected result is null
 * when its records overflowed their room: submit again.
 */
export async function submitTally3Finalize(host: Finalize3Host, request: TripleFinalizeRequest): Promise<Pending<PairFinalizeResult | null>> {
  const { gemm } = request;
  checkPopcountGemm3Request(gemm);
  const vw = tripleVectorWordsOf(request);
  for (const { xFirst, xCount, yRow, zFirst, zCount } of gemm.slices) {
    if (request.xVectors.length < (xFirst + xCount) * vw || request.yVectors.length < (yRow + 1) * vw || request.zVectors.length < (zFirst + zCount) * vw) {
      throw new RangeError('finalizeTriples: per-vector words do not cover the rows of a slice');
    }
  }
  const keyFirsts: number[] = [];
  let numTriples = 0;
  for (const slice of gemm.slices) {
    keyFirsts.push(numTriples * 8);
    numTriples += slice.xCount * slice.zCount;
  }
  if (request.records && !tripleRecordKeysFit(numTriples)) return settled({ kind: 'needsHost', reason: 'record keys exceed 32 bits' });
  const program = isProgramTripleRequest(request);
  const xz = triplePairCountsOf(request)?.counts.xz;
  const runWords = program ? request.runWords : undefined;
  for (const whole of [xz?.data, runWords]) {
    if (whole !== undefined && whole.byteLength > host.runner.capabilities.maxStorageBufferBindingSize) {
      return settled({ kind: 'needsHost', reason: 'pair counts or run words exceed one binding' });
    }
  }
  const histogram = program ? null : request.histogram ?? null;
  const finalizeProgram = host.finalize3Program(tripleFinalizeValuesOf(request), histogram);
  await host.runner.pipelineFor(finalizeProgram);
  const pairIK = xz === undefined ? null : host.residentBuffer(xz.data);
  const runWordsBuffer = runWords === undefined ? null : host.residentBuffer(runWords);
  // The tallies stay on the device: larger sub-blocks (sparse requests' eight groups) fill the GPU better.
  const { submits } = await planSubmits(host, gemm, DEVICE_OUTPUT_BYTES_PER_DISPATCH);
  const pieces = submits.flatMap((submit) => submit.pieces);
  if (pieces.length === 0) return settled(NOTHING_FINALIZED);
  const { words, blocksOf } = finalizeWordsAndTables(request, submits, keyFirsts);
  // Shared between requests: the upload is queued after every earlier submit, which are all this buffer's readers.
  const sliceWords = host.scratchBuffer('sliceWords', words.byteLength);
  host.runner.upload(sliceWords, words);
  const output = host.scratchBuffer('output', Math.max(...submits.map((submit) => submit.numBytes)));
  const numPartials = blocksOf.flat().reduce((sum, { table }) => sum + finalize3Workgroups(table.numTiles), 0);
  const target = host.finalizeScratch.targetFor(numPartials, request.records, 2, histogram);
  let partialFirst = 0;
  const dispatches = submits.flatMap((submit, submitIdx) => {
    const finalizeAfter = new Map<number, Dispatch>();
    for (const { stepIdx, byteOffset, numBytes, shape, table } of blocksOf[submitIdx]) {
      const tallies: BufferRange = { buffer: output, offset: byteOffset, size: numBytes };
      finalizeAfter.set(stepIdx, finalize3Dispatch(finalizeProgram, request, table, shape, { tallies, sliceWords, pairIK, runWords: runWordsBuffer, ...target.buffers }, {
        partialFirst, recordCapacity: target.recordCapacity,
      }));
      partialFirst += finalize3Workgroups(table.numTiles);
    }
    return submit.steps.flatMap((step, stepIdx) => {
      const finalize = finalizeAfter.get(stepIdx);
      return finalize === undefined ? step(output) : [...step(output), finalize];
    });
  });
  return host.finalizeScratch.submit(dispatches, target);
}

/** The finalize of one sub-block: the submit step whose GEMM leaves its tallies, their range and layout, its rectangle table. */
interface BlockFinalize {
  readonly stepIdx: number;
  readonly byteOffset: number;
  readonly numBytes: number;
  readonly shape: BlockShape;
  /** Its rectangles, at word rectsFirst of the request's finalize words. */
  readonly table: RectTable & { readonly rectsFirst: number };
}

/**
 * The request's finalize words (requestFinalizeWords) followed by every sub-block's rectangle table, and per submit
 * its sub-blocks' finalize (the pieces of one step are one sub-block's rectangles).
 */
function finalizeWordsAndTables(request: TripleFinalizeRequest, submits: readonly Submit[], keyFirsts: readonly number[]): {
  readonly words: Uint32Array;
  readonly blocksOf: BlockFinalize[][];
} {
  const pieces = submits.flatMap((submit) => submit.pieces);
  const sliceWords = requestFinalizeWords(request, pieces.map((piece) => piece.sliceIdx));
  let numWords = sliceWords.words.length;
  const blocksOf = submits.map((submit) => {
    const piecesOfStep = new Map<number, Piece[]>();
    for (const piece of submit.pieces) {
      const list = piecesOfStep.get(piece.stepIdx);
      if (list === undefined) piecesOfStep.set(piece.stepIdx, [piece]);
      else list.push(piece);
    }
    return [...piecesOfStep].map(([stepIdx, stepPieces]): BlockFinalize => {
      const table = finalize3RectTable(request, stepPieces.map(({ sliceIdx, rect }) => ({
        slice: request.gemm.slices[sliceIdx], rect, keyFirst: keyFirsts[sliceIdx], words: sliceWords.offsetsOf(sliceIdx),
      })));
      const { byteOffset, numBytes, rect } = stepPieces[0];
      const block: BlockFinalize = { stepIdx, byteOffset, numBytes, shape: rect, table: { ...table, rectsFirst: numWords } };
      numWords += table.words.length;
      return block;
    });
  });
  const words = new Uint32Array(numWords);
  words.set(sliceWords.words);
  for (const { table } of blocksOf.flat()) words.set(table.words, table.rectsFirst);
  return { words, blocksOf };
}
