// mGEMM3 on the GPU: for each j-slice of a 3-way request, the pair products (x_i AND y_j) are built on the
// GPU from the resident x and y planes (pairProductProgram), then multiplied against the resident z planes
// by the 2-way plans of popcountGemmWebgpu (bitwise or u8 kernels). Many slices share one submit and one
// read-back: each sub-block writes its own aligned range of one output buffer. No per-j upload.
// submitTally3Finalize runs the same dispatches, all in one submit, with a finalize dispatch after each sub-block
// (tripleFinalizeWebgpu.ts): the tallies stay on the GPU and only checksum partials, counts and records come back.
// Both return once submitted; the kernel set collects the results after the request's turn.

import type { PlaneMatrix, PlanePair, PopcountGemm3Request, PopcountGemm3Result, PopcountGemmRequest } from '../../contract.js';
import type { PairFinalizeResult } from '../../pairFinalize.js';
import { checkPopcountGemm3Request } from '../../requestChecks.js';
import { tripleRecordKeysFit, TRIPLE_VECTOR_WORDS, type TripleFinalizeRequest } from '../../tripleFinalize.js';
import type { Finalize3Program } from './finalize3Program.js';
import type { KernelFamily } from './kernelChoice.js';
import type { FinalizeScratch } from './finalizeScratch.js';
import { PAIR_PRODUCT_WORKGROUP } from './pairProductProgram.js';
import { scatter, type BlockShape, type RequestPlan, type SubBlock } from './requestPlan.js';
import type { PlaneChunk, ResidentPlanes } from './residentPlanes.js';
import { finalize3Dispatch, finalize3Workgroups, requestFinalizeWords, type SliceWordOffsets } from './tripleFinalizeWebgpu.js';
import { settled, type BufferRange, type Dispatch, type Pending, type WebgpuRunner } from './webgpuRunner.js';
import type { WgslProgram } from './wgslProgram.js';

/** What the 3-way driver uses of the kernel set (PopcountGemmWebgpu). */
export interface Tally3Host {
  readonly runner: WebgpuRunner;
  readonly resident: ResidentPlanes;
  readonly maxBindingBytes: number;
  /** Output bytes of one submit's read-back (a submit holds at least one sub-block, whatever its size). */
  readonly maxReadBackBytes: number;
  /** The 2-way plan of `request` whose A rows are `aChunks` (request.a carries only their shape). */
  plan(request: PopcountGemmRequest, aChunks: readonly PlaneChunk[]): Promise<RequestPlan | null>;
  /** A named scratch buffer of at least numBytes, shared by all requests (a replaced one lives until submitted work is done). */
  scratchBuffer(name: string, numBytes: number): GPUBuffer;
  pairProductProgram(numPlanesX: number, numPlanesY: number, pairs: readonly PlanePair[]): WgslProgram;
}

/** What device finalize (submitTally3Finalize) uses besides: its program, resident T[cmc], and the request's finalize set. */
export interface Finalize3Host extends Tally3Host {
  finalize3Program(sparse: boolean): Finalize3Program;
  /** The device copy of a dense T[cmc] block-pair matrix (kept across requests). */
  pairCountsBuffer(data: Uint32Array): GPUBuffer;
  /** Status, partials and records of this request, and the submit and read-back 2-way and 3-way share. */
  readonly finalizeScratch: FinalizeScratch;
}

/** One sub-block's result in a submit's output: which slice, where, its shape, and the step that computes it. */
interface Piece {
  readonly sliceIdx: number;
  readonly stepIdx: number;
  readonly block: SubBlock;
  readonly shape: BlockShape;
  readonly byteOffset: number;
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
 * Cuts a request into submits. Pair products are built a row chunk at a time into one scratch buffer
 * (rows per chunk bounded by the binding size; chunks never straddle x's resident chunks), each followed
 * by the sub-blocks that read it: dispatches of one submit run in order, so one buffer serves all.
 */
async function planSubmits(host: Tally3Host, request: PopcountGemm3Request): Promise<{ submits: Submit[]; family: KernelFamily }> {
  const { x, y, z, planePairs, termGroups, slices } = request;
  const { runner } = host;
  const caps = runner.capabilities;
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
  const maxSliceRows = Math.max(0, ...slices.map((s) => s.xCount));
  const products = host.scratchBuffer('pairProducts', Math.min(rowsPerProduct, maxSliceRows) * productRowBytes);
  const maxGroups = caps.maxComputeWorkgroupsPerDimension;
  const align = caps.minStorageBufferOffsetAlignment;
  const maxSubmitBytes = host.maxReadBackBytes;
  const numGroups = termGroups.length;
  const submits: Submit[] = [];
  let current: Submit = { steps: [], pieces: [], numBytes: 0 };
  let family: KernelFamily = 'bitwise';
  for (let sliceIdx = 0; sliceIdx < slices.length; sliceIdx++) {
    const slice = slices[sliceIdx];
    if (slice.xCount === 0 || slice.zCount === 0) continue;
    const yChunk = chunkOfRow(yChunks, slice.yRow);
    // Shape only: the products exist on the GPU alone (aChunks of the plans below).
    const productShape: PlaneMatrix = { numVectors: slice.xCount, numPlanes: planePairs.length, wordsPerPlane, words: new Uint32Array(0) };
    for (const xChunk of xChunks) {
      const lo = Math.max(slice.xFirst, xChunk.firstRow);
      const hi = Math.min(slice.xFirst + slice.xCount, xChunk.firstRow + xChunk.numRows);
      for (let first = lo; first < hi; first += rowsPerProduct) {
        const numRows = Math.min(rowsPerProduct, hi - first);
        const numWorkgroups = Math.ceil((numRows * productRowBytes) / 16 / PAIR_PRODUCT_WORKGROUP);
        const wgX = Math.min(numWorkgroups, maxGroups);
        const productDispatch: Dispatch = {
          program: productProgram, storage: [xChunk.buffer, yChunk.buffer, products],
          uniforms: {
            xRowFirst: first - xChunk.firstRow, numRows, yRow: slice.yRow - yChunk.firstRow, vec4PerPlane: wordsPerPlane / 4, numWorkgroupsX: wgX,
          },
          workgroups: [wgX, Math.ceil(numWorkgroups / wgX)],
        };
        // Product rows are numbered within the slice (row 0 = x row xFirst).
        const productChunk: PlaneChunk = { firstRow: first - slice.xFirst, numRows, buffer: products };
        const plan = await host.plan({
          a: productShape, aFirst: productChunk.firstRow, aCount: numRows, b: z, bFirst: slice.zFirst, bCount: slice.zCount, termGroups, strictUpper: false,
        }, [productChunk]);
        if (plan === null) continue;
        family = plan.family;
        current.steps.push(() => [productDispatch]);
        for (const block of plan.blocks) {
          const shape = plan.shapeOf(block);
          const numBytes = shape.groupWords * numGroups * 4;
          let byteOffset = Math.ceil(current.numBytes / align) * align;
          if (current.pieces.length > 0 && byteOffset + numBytes > maxSubmitBytes) {
            // The products stay in their buffer across submits (the queue runs submits in order).
            submits.push(current);
            current = { steps: [], pieces: [], numBytes: 0 };
            byteOffset = 0;
          }
          current.pieces.push({ sliceIdx, stepIdx: current.steps.length, block, shape, byteOffset });
          current.steps.push((output) => plan.dispatchesOf(block, { buffer: output, offset: byteOffset, size: numBytes }));
          current.numBytes = byteOffset + numBytes;
        }
      }
    }
  }
  if (current.pieces.length > 0) submits.push(current);
  return { submits, family };
}

/** The resident chunk holding `row`. */
function chunkOfRow(chunks: readonly PlaneChunk[], row: number): PlaneChunk {
  const chunk = chunks.find((c) => row >= c.firstRow && row < c.firstRow + c.numRows);
  if (chunk === undefined) throw new RangeError(`row ${row} is in no resident chunk`);
  return chunk;
}

/**
 * Submits a 3-way request: its submits one after another (runner.submitEachWithReadBack), each read back once and
 * scattered per slice; the last one's words come with the returned collect().
 */
export async function submitTally3(host: Tally3Host, request: PopcountGemm3Request): Promise<Pending<PopcountGemm3Result>> {
  checkPopcountGemm3Request(request);
  const outputs = request.slices.map((s) => request.termGroups.map(() => new Uint32Array(s.xCount * s.zCount)));
  const { submits } = await planSubmits(host, request);
  const pending = await host.runner.submitEachWithReadBack(submits, (submit) => {
    const output = host.scratchBuffer('output', submit.numBytes);
    return { dispatches: submit.steps.flatMap((step) => step(output)), reads: [{ buffer: output, numBytes: submit.numBytes }] };
  }, (submit, [words]) => {
    for (const piece of submit.pieces) {
      const slice = request.slices[piece.sliceIdx];
      const pieceWords = words.subarray(piece.byteOffset / 4, piece.byteOffset / 4 + piece.shape.groupWords * request.termGroups.length);
      scatter(pieceWords, piece.block, { aFirst: 0, bFirst: slice.zFirst, bCount: slice.zCount }, outputs[piece.sliceIdx], piece.shape);
    }
  });
  return { collect: async () => { await pending.collect(); return outputs; } };
}

/**
 * Kernel-only timing of a 3-way request: all its dispatches (pair products and GEMMs), `repetitions`
 * times, one submit per repetition, no read-back; after one untimed run.
 */
export async function timeTally3Kernels(
  host: Tally3Host, request: PopcountGemm3Request, repetitions: number,
): Promise<{ seconds: number[]; family: KernelFamily }> {
  checkPopcountGemm3Request(request);
  const { submits, family } = await planSubmits(host, request);
  const outputBytes = Math.max(0, ...submits.map((s) => s.numBytes));
  const output = host.scratchBuffer('output', outputBytes);
  const dispatches = submits.flatMap((submit) => submit.steps.flatMap((step) => step(output)));
  await host.runner.runDispatches(dispatches);
  const seconds: number[] = [];
  for (let rep = 0; rep < repetitions; rep++) {
    const start = performance.now();
    await host.runner.runDispatches(dispatches);
    seconds.push((performance.now() - start) / 1000);
  }
  return { seconds, family };
}

/** The result of a request with nothing to finalize. */
const NOTHING_FINALIZED: PairFinalizeResult = { kind: 'done', checksumSum: 0n, entries: 0, zeros: 0, records: { count: 0, words: new Uint32Array(0) } };

/**
 * Device finalize of a 3-way request (mgemm/tripleFinalize.ts): the dispatches of submitTally3's submits, each
 * sub-block's GEMM followed by its finalize dispatch on the output range it left, all in one submit — no tallies
 * come back, so the submits' outputs take turns in one buffer (a submit's dispatches run in order). Every slice's
 * words are uploaded first, into one buffer. Status, partials and records of the whole request come back together
 * (finalizeScratch.ts); the collected result is null when its records overflowed their room: submit again.
 */
export async function submitTally3Finalize(host: Finalize3Host, request: TripleFinalizeRequest): Promise<Pending<PairFinalizeResult | null>> {
  const { gemm } = request;
  checkPopcountGemm3Request(gemm);
  const vw = TRIPLE_VECTOR_WORDS;
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
  const xz = request.pairCounts?.xz;
  if (xz !== undefined && xz.data.byteLength > host.runner.capabilities.maxStorageBufferBindingSize) {
    return settled({ kind: 'needsHost', reason: 'pair counts exceed one binding' });
  }
  const program = host.finalize3Program(request.formula.sparse);
  await host.runner.pipelineFor(program);
  const pairIK = xz === undefined ? null : host.pairCountsBuffer(xz.data);
  const { submits } = await planSubmits(host, gemm);
  const pieces = submits.flatMap((submit) => submit.pieces);
  if (pieces.length === 0) return settled(NOTHING_FINALIZED);
  const sliceWords = uploadSliceWords(host, request, pieces);
  const output = host.scratchBuffer('output', Math.max(...submits.map((submit) => submit.numBytes)));
  const numGroups = gemm.termGroups.length;
  const target = host.finalizeScratch.targetFor(pieces.reduce((sum, piece) => sum + finalize3Workgroups(piece.block), 0), request.records);
  let partialFirst = 0;
  const dispatches = submits.flatMap((submit) => {
    const finalizeAfter = new Map<number, Dispatch[]>();
    for (const piece of submit.pieces) {
      const tallies: BufferRange = { buffer: output, offset: piece.byteOffset, size: piece.shape.groupWords * numGroups * 4 };
      const dispatch = finalize3Dispatch(program, request, gemm.slices[piece.sliceIdx], { ...piece.block, ...piece.shape }, {
        tallies, sliceWords: sliceWords.buffer, pairIK, ...target.buffers,
      }, { partialFirst, recordCapacity: target.recordCapacity, keyFirst: keyFirsts[piece.sliceIdx], words: sliceWords.offsetsOf(piece.sliceIdx) });
      partialFirst += finalize3Workgroups(piece.block);
      const list = finalizeAfter.get(piece.stepIdx) ?? [];
      list.push(dispatch);
      finalizeAfter.set(piece.stepIdx, list);
    }
    return submit.steps.flatMap((step, stepIdx) => [...step(output), ...(finalizeAfter.get(stepIdx) ?? [])]);
  });
  return host.finalizeScratch.submit(dispatches, target);
}

/** The request's finalize words for the slices the pieces belong to (requestFinalizeWords), uploaded. */
function uploadSliceWords(host: Finalize3Host, request: TripleFinalizeRequest, pieces: readonly Piece[]): {
  readonly buffer: GPUBuffer;
  readonly offsetsOf: (sliceIdx: number) => SliceWordOffsets;
} {
  const { words, offsetsOf } = requestFinalizeWords(request, pieces.map((piece) => piece.sliceIdx));
  // Shared between requests: the upload is queued after every earlier submit, which are all this buffer's readers.
  const buffer = host.scratchBuffer('sliceWords', words.byteLength);
  host.runner.upload(buffer, words);
  return { buffer, offsetsOf };
}
