// The ceiling the min-plus kernels are measured against (tools/bench-cpu): the 2-way microkernel's rate when all
// its operands sit in L1, i.e. this core's issue rate of the kernel's SIMD loads, mins and adds, with no packing,
// no L2/L3 traffic and no threads. (A loop of mins and adds on registers alone cannot show it here: with 15 vector
// registers its min → add chains are latency-bound, below the microkernel, whose mins read memory.)

import { minPlus2Microkernel_f32_4x8, minPlus2Microkernel_f64_4x4 } from './microkernels2';

/** Fields of the ceiling's tile: 4 rows + 4 (8) columns × 256 fields = 16 KiB, in L1. */
const CEILING_FIELDS: i32 = 256;

/**
 * Runs the 2-way microkernel `iterations` times on one tile at `arena` (64 KiB of zeros or any finite
 * non-negative values; zeros are not subnormal, so they run at full speed) and returns one of its sums.
 * `single` ≠ 0: the f32x4 kernel. Min+add lane pairs done: iterations × 16 (32 single) × CEILING_FIELDS.
 */
export function minAddCeiling(iterations: i32, single: i32, arena: usize): f64 {
  const a = arena, b = arena + 16384, c = arena + 32768;
  for (let i = 0; i < iterations; i++) {
    if (single) minPlus2Microkernel_f32_4x8(a, b, CEILING_FIELDS, c, 32);
    else minPlus2Microkernel_f64_4x4(a, b, CEILING_FIELDS, c, 32);
  }
  return single ? <f64>load<f32>(c) : load<f64>(c);
}

/** Fields per microkernel call of minAddCeiling. */
export function ceilingFields(): i32 {
  return CEILING_FIELDS;
}
