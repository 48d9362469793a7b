// Choosing the tiling of the bitwise tally program from the term groups and the device's limits.

import type { GpuCapabilities } from '../runtime/gpuAdapter.js';

/** Tiling of the bitwise program: a workgroup computes a (threadsY·rowsPerThread) × (threadsX·colsPerThread) tile. */
export interface Tally2Geometry {
  readonly threadsX: number;
  readonly threadsY: number;
  /** Output rows and columns per thread (register blocking). */
  readonly rowsPerThread: number;
  readonly colsPerThread: number;
  /** 128-bit words of each plane staged through workgroup memory per step. */
  readonly vec4PerStage: number;
}

/** Register blockings tried in order: the largest whose accumulators fit the budget wins. */
const REGISTER_BLOCKS: readonly (readonly [number, number])[] = [[4, 4], [4, 2], [2, 2], [2, 1], [1, 1]];

/**
 * Accumulators per thread: 32 u32 keeps the register file of a GPU thread (255 on NVIDIA) clear of
 * spills with the operand words beside them, yet gives a 4×4 block (16 AND+popcount per 8 loads)
 * to dense single-group tallies.
 */
const MAX_ACCUMULATORS = 32;

/** Stage depth: 2 vec4 (256 bits) per plane when it fits, so a barrier pair covers 8 words of work. */
const VEC4_PER_STAGE_CHOICES = [2, 1];

/**
 * Picks the geometry. Workgroup memory is kept to half the device limit so that two workgroups can
 * share a multiprocessor (one computes while the other loads).
 */
export function chooseTally2Geometry(
  numGroups: number, numPlanesA: number, numPlanesB: number, caps: GpuCapabilities,
): Tally2Geometry {
  const [rowsPerThread, colsPerThread] =
    REGISTER_BLOCKS.find(([m, n]) => Math.max(1, numGroups) * m * n <= MAX_ACCUMULATORS) ?? [1, 1];
  const threads = caps.maxComputeInvocationsPerWorkgroup >= 256 ? 16 : 8;
  const tileRows = threads * rowsPerThread;
  const tileCols = threads * colsPerThread;
  const budget = caps.maxComputeWorkgroupStorageSize / 2;
  const stageBytes = (vec4: number): number => (tileRows * numPlanesA + tileCols * numPlanesB) * vec4 * 16;
  const vec4PerStage = VEC4_PER_STAGE_CHOICES.find((v) => stageBytes(v) <= budget);
  if (vec4PerStage === undefined) {
    throw new RangeError(`${numPlanesA}+${numPlanesB} planes need ${stageBytes(1)} bytes of workgroup memory, the device has ${caps.maxComputeWorkgroupStorageSize}`);
  }
  return { threadsX: threads, threadsY: threads, rowsPerThread, colsPerThread, vec4PerStage };
}
