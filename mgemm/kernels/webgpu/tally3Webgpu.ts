// mGEMM3 on the GPU: for each j-slice of a 3-way request, the pair products (x_i AND y_j) are built on the
// GPU from the resident x and y planes (pairProductProgram), then multiplied against the resident z planes
// by the 2-way plans of popcountGemmWebgpu (bitwise or u8 kernels). Many slices share one submit and one
// read-back: each sub-block writes its own aligned range of one output buffer. No per-j upload.

import type { PlaneMatrix, PlanePair, PopcountGemm3Request, PopcountGemm3Result, PopcountGemmRequest } from '../../contract.js';
import { checkPopcountGemm3Request } from '../../requestChecks.js';
import type { KernelFamily } from './kernelChoice.js';
import { PAIR_PRODUCT_WORKGROUP } from './pairProductProgram.js';
import { scatter, type BlockShape, type RequestPlan, type SubBlock } from './requestPlan.js';
import type { PlaneChunk, ResidentPlanes } from './residentPlanes.js';
import type { Dispatch, WebgpuRunner } from './webgpuRunner.js';
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
  /** A named scratch buffer of at least numBytes (replaced ones stay valid until the request ends). */
  scratchBuffer(name: string, numBytes: number): GPUBuffer;
  pairProductProgram(numPlanesX: number, numPlanesY: number, pairs: readonly PlanePair[]): WgslProgram;
}

/** One sub-block's result in a submit's output: which slice, where, and its shape. */
interface Piece {
  readonly sliceIdx: number;
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
  const xChunks = host.resident.chunksOf(x, pinned);
  const yChunks = host.resident.chunksOf(y, pinned);
  host.resident.chunksOf(z, pinned);
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
          current.pieces.push({ sliceIdx, block, shape, byteOffset });
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

/** Runs a 3-way request: its submits one after another, each read back once and scattered per slice. */
export async function runTally3(host: Tally3Host, request: PopcountGemm3Request): Promise<PopcountGemm3Result> {
  checkPopcountGemm3Request(request);
  const outputs = request.slices.map((s) => request.termGroups.map(() => new Uint32Array(s.xCount * s.zCount)));
  const { submits } = await planSubmits(host, request);
  for (const submit of submits) {
    const output = host.scratchBuffer('output', submit.numBytes);
    const dispatches = submit.steps.flatMap((step) => step(output));
    const words = await host.runner.runAndReadBack(dispatches, output, submit.numBytes);
    for (const piece of submit.pieces) {
      const slice = request.slices[piece.sliceIdx];
      const pieceWords = words.subarray(piece.byteOffset / 4, piece.byteOffset / 4 + piece.shape.groupWords * request.termGroups.length);
      scatter(pieceWords, piece.block, { aFirst: 0, bFirst: slice.zFirst, bCount: slice.zCount }, outputs[piece.sliceIdx], piece.shape);
    }
  }
  return outputs;
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
