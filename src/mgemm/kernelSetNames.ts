// Names of kernel sets that load on demand (min-plus, WebGPU): here, so that naming one loads none of their modules.
import type { ValuePrecision } from './minPlusContract.js';
import { minPlusTilesOf } from './kernels/minplus/minPlusBlockSizes.js';

/** Name of the blocked JS min-plus kernel set (its microkernel's geometry). */
export const MIN_PLUS_CPU_NAME = 'minplus-js_4x4';
export const MIN_PLUS_REF_NAME = 'minplus-ref';

/** Name of the wasm SIMD min-plus kernel set of a precision: its vector type and 2-way tile (`minplus-wasm-f64x2_4x4`). */
export function minPlusWasmName(precision: ValuePrecision): string {
  const { mr2, nr2 } = minPlusTilesOf(precision);
  return `minplus-wasm-${precision === 'double' ? 'f64x2' : 'f32x4'}_${mr2}x${nr2}`;
}

/** The WebGPU min-plus kernel set's name: its tile geometry (one output per invocation of a 16 × 16 workgroup). */
export const MIN_PLUS_WEBGPU_NAME = 'webgpu-minplus_16x16';

/** WebGPU kernel set names: `webgpu-` and the family that runs factorable requests (bitwise, subgroup-matrix or dot4). */
export const WEBGPU_KERNEL_SET_PREFIX = 'webgpu-';
