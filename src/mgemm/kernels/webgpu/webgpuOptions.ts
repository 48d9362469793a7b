// Options of the WebGPU kernel set (createPopcountGemmWebgpu) and the limits it works with once the device's own
// limits are known: binding and read-back sizes, the resident-operand budget, the u8 expansion size, the kernel
// family asked for and the tensor-core staging. Tests set the sizes small to drive many chunks, sub-blocks and submits.

import type { KernelFamily } from './plan/kernelChoice.js';
import { OUTPUT_BYTES_PER_DISPATCH } from './plan/requestPlan.js';
import { DEFAULT_U8_STAGING, type U8GemmStaging } from './programs/u8GemmProgram.js';
import type { GpuCapabilities } from './runtime/gpuAdapter.js';

export interface WebgpuPopcountGemmOptions {
  /**
   * Largest storage binding used, in bytes (default and ceiling: the device's limit). Tests set it
   * small to drive operands and outputs through several chunks and sub-blocks.
   */
  readonly maxBindingBytes?: number;
  /** GPU bytes of resident operands before the least recently used are freed (default 4 GiB). */
  readonly residentBytes?: number;
  /** Kernel family (default `auto`: tensor cores when the adapter has them, see kernelChoice.ts). */
  readonly kernel?: KernelFamily | 'auto';
  /**
   * Bytes of one expanded u8 operand (default EXPANDED_BYTES; the binding size bounds it too). Tests set it small to
   * cut few fields into K slabs (u8Slabs.ts: a slab's expansion of U8_SLAB_ROWS rows fits it).
   */
  readonly u8ExpansionBytes?: number;
  /** Workgroup-memory staging of the tensor-core kernel (default DEFAULT_U8_STAGING); benchmarks sweep it. */
  readonly u8Staging?: U8GemmStaging;
  /** Which of the host's GPUs: slot modulo their number (the node-local rank; default: the first GPU). */
  readonly gpuSlot?: number;
  /**
   * Output bytes read back per submit of a 3-way request (default and ceiling OUTPUT_BYTES_PER_DISPATCH,
   * or the device's buffer size); with device finalize, output bytes per round of its one submit (rounds reuse
   * the output buffer). Tests set it small to drive many slices through several submits or rounds.
   */
  readonly maxReadBackBytes?: number;
}

const DEFAULT_RESIDENT_BYTES = 4 * 2 ** 30;
/** Bytes of one expanded u8 operand (rows × 32 bytes per plane word of a K slab): bounds the rows of a u8 sub-block. */
const EXPANDED_BYTES = 512 << 20;
/**
 * GPU bytes of kept u8 expansions (operands/expandedOperands.ts), as much as the resident bit planes: a 4-way run
 * multiplies every request by the same column-pair planes, 16 expansions of ~270 MiB at 256 SNPs × 16,384 samples,
 * which a 512 MiB budget expanded anew for each sub-block (docs/performance.md).
 */
export const KEPT_EXPANSION_BYTES = 4 * 2 ** 30;

/** The options resolved against the device's limits. */
export interface WebgpuLimits {
  readonly maxBindingBytes: number;
  readonly residentBytes: number;
  readonly kernel: KernelFamily | 'auto';
  /** Bytes of one expanded u8 operand (within a binding). */
  readonly expansionBytes: number;
  /** GPU bytes of u8 expansions of whole operand chunks kept across requests (each within a binding). */
  readonly keptExpansionBytes: number;
  readonly u8Staging: U8GemmStaging;
  readonly maxReadBackBytes: number;
}

/** The limits of a kernel set with `options` on a device of `caps` (an option never exceeds the device's limit). */
export function resolveWebgpuLimits(options: WebgpuPopcountGemmOptions, caps: GpuCapabilities): WebgpuLimits {
  const maxBindingBytes = Math.min(caps.maxStorageBufferBindingSize, options.maxBindingBytes ?? caps.maxStorageBufferBindingSize);
  return {
    maxBindingBytes,
    residentBytes: options.residentBytes ?? DEFAULT_RESIDENT_BYTES,
    kernel: options.kernel ?? 'auto',
    expansionBytes: Math.min(maxBindingBytes, options.u8ExpansionBytes ?? EXPANDED_BYTES),
    // Runs that set a small expansion (tests driving K slabs) keep as little, so that expansions are evicted and refused.
    keptExpansionBytes: options.u8ExpansionBytes ?? KEPT_EXPANSION_BYTES,
    u8Staging: options.u8Staging ?? DEFAULT_U8_STAGING,
    maxReadBackBytes: Math.min(OUTPUT_BYTES_PER_DISPATCH, caps.maxBufferSize, options.maxReadBackBytes ?? OUTPUT_BYTES_PER_DISPATCH),
  };
}
