// Entry of the popcount-GEMM wasm module: what the TypeScript driver calls.

import { MR, NR } from './microkernel_4x4';

export { popcountMacrokernel } from './macrokernel';

/** Microkernel rows of A (MR); the driver checks it against its own block-size table. */
export function microkernelRows(): i32 {
  return MR;
}

/** Microkernel rows of B (NR). */
export function microkernelCols(): i32 {
  return NR;
}

/** First byte of linear memory that this module does not use itself; the driver's buffers start here. */
export function heapBase(): usize {
  return __heap_base;
}
