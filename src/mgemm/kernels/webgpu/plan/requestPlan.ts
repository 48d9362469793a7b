// How the webgpu kernel set computes a 2-way request: sub-blocks of resident (or GPU-built) operand
// chunks, their dispatches and output shapes, and the scatter of read-back words into the outputs.
// Made by requestPlanner.ts; used by the 2-way path (popcountGemmWebgpu.ts), device finalize and the 3-way driver
// (tally3Webgpu.ts).

import type { PopcountGemmRequest } from '../../../contract.js';
import type { KernelFamily } from './kernelChoice.js';
import type { PlaneChunk } from '../operands/residentPlanes.js';
import type { BufferRange, Dispatch } from '../runtime/webgpuRunner.js';

/** Output bytes of one dispatch: bounds the read-back buffer (and host copy) of one sub-block. */
export const OUTPUT_BYTES_PER_DISPATCH = 256 << 20;

/**
 * Output bytes of one dispatch whose tallies stay on the device (device finalize; a binding bounds it too, 2 GiB on
 * Dawn's Vulkan backend): nothing is read back, so sub-blocks may exceed OUTPUT_BYTES_PER_DISPATCH, and many-group
 * plans need to: sparse 3-way's 54 groups or 4-way's 162 in 256 MiB would leave sub-blocks of a few dozen u8 GEMM
 * tiles, a fraction of one wave on a large GPU.
 */
export const DEVICE_OUTPUT_BYTES_PER_DISPATCH = 2 ** 31;

/** A sub-block of a request: rows [rowFirst, +numRows) of A's chunk against columns [colFirst, +numCols) of B's chunk. */
export interface SubBlock {
  readonly aChunk: PlaneChunk;
  readonly bChunk: PlaneChunk;
  /** Row indices of the operand matrices (not of the request). */
  readonly rowFirst: number;
  readonly numRows: number;
  readonly colFirst: number;
  readonly numCols: number;
}

/** Output words of one sub-block per group, and the row stride of each group's output. */
export interface BlockShape {
  readonly groupWords: number;
  readonly rowStride: number;
}

/** How a request is computed: the kernel family, its programs and the sub-blocks. */
export interface RequestPlan {
  readonly family: KernelFamily;
  readonly blocks: readonly SubBlock[];
  readonly shapeOf: (block: SubBlock) => BlockShape;
  /** The block's dispatches, writing its groups one after another (groupWords apart) into `output`. */
  readonly dispatchesOf: (block: SubBlock, output: GPUBuffer | BufferRange) => Dispatch[];
}

/**
 * Copies a sub-block's outputs (group after group, `groupWords` apart, rows `rowStride` apart) into the
 * request's outputs (aCount × bCount each, row 0 = aFirst, column 0 = bFirst).
 */
export function scatter(
  words: Uint32Array, block: Pick<SubBlock, 'rowFirst' | 'numRows' | 'colFirst' | 'numCols'>, request: Pick<PopcountGemmRequest, 'aFirst' | 'bFirst' | 'bCount'>, outputs: Uint32Array[],
  shape: BlockShape,
): void {
  const rowOffset = block.rowFirst - request.aFirst;
  const colOffset = block.colFirst - request.bFirst;
  outputs.forEach((out, g) => {
    const src = words.subarray(g * shape.groupWords, (g + 1) * shape.groupWords);
    if (block.numCols === request.bCount && shape.rowStride === block.numCols) {
      out.set(src.subarray(0, block.numRows * block.numCols), rowOffset * request.bCount);
      return;
    }
    for (let r = 0; r < block.numRows; r++) {
      out.set(src.subarray(r * shape.rowStride, r * shape.rowStride + block.numCols), (rowOffset + r) * request.bCount + colOffset);
    }
  });
}
