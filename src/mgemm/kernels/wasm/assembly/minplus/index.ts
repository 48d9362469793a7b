// Entry of the min-plus GEMM wasm module (build/wasm/minPlusGemm.wasm): what the TypeScript driver calls.

import { MR_F32, MR_F64, NR_F32, NR_F64 } from './microkernels2';
import { MR3_F32, MR3_F64, NR3_F32, NR3_F64 } from './microkernels3';

export { minPlus2MacrokernelF32, minPlus2MacrokernelF64, minPlus3MacrokernelF32, minPlus3MacrokernelF64 } from './macrokernels';
export { ceilingFields, minAddCeiling } from './ceiling';

/**
 * The microkernels' tiles, packed as decimal digits `MR2·1000 + NR2·100 + MR3·10 + NR3` (each below 10) for the
 * driver to check against its own table: `single` ≠ 0 for the f32x4 kernels.
 */
export function microkernelTiles(single: i32): i32 {
  return single ? MR_F32 * 1000 + NR_F32 * 100 + MR3_F32 * 10 + NR3_F32 : MR_F64 * 1000 + NR_F64 * 100 + MR3_F64 * 10 + NR3_F64;
}

/** First byte of linear memory that this module does not use itself; the driver's buffers start here. */
export function heapBase(): usize {
  return __heap_base;
}
