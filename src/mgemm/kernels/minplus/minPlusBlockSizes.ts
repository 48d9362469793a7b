// Block sizes of the wasm min-plus GEMM (the BLIS MR/NR/KC/MC/NC table) with the reasoning for each.
import type { ValuePrecision } from '../../minPlusContract.js';

/** The microkernels' tiles (MR × NR, 2-way and 3-way); must equal the AssemblyScript ones, checked at load. */
export interface MinPlusTiles {
  readonly mr2: number;
  readonly nr2: number;
  readonly mr3: number;
  readonly nr3: number;
}

/** Double: 4 × 4 (8 f64x2 accumulators); single: 4 × 8 (8 f32x4 accumulators); see assembly/minplus/. */
export function minPlusTilesOf(precision: ValuePrecision): MinPlusTiles {
  return precision === 'double' ? { mr2: 4, nr2: 4, mr3: 4, nr3: 4 } : { mr2: 4, nr2: 8, mr3: 4, nr3: 8 };
}

/**
 * KC, fields per packed block: a 3-way double micro-panel (4 values + 4 pair mins per field) is 64 bytes per field,
 * 16 KiB at 256 fields, so the B micro-panel and the streaming A micro-panel both sit in the 48 KiB L1. Sums are
 * stored to C and reloaded between blocks, which is exact (minPlusKernels.ts), so KC does not change any result.
 */
export const KC_FIELDS = 256;

/** MC, rows of A per packed block: 128 rows × 256 fields × 16 bytes (3-way double) = 512 KiB, within the 2 MiB L2. */
export const MC_ROWS = 128;

/** NC, the most B columns per packed block: 2048 × 256 × 16 bytes = 8 MiB in L3, read once per A block. */
export const NC_COLS_MAX = 2048;

/**
 * The C block (a task's rows × NC sums) is accumulated in wasm memory across field blocks before it is copied out;
 * NC shrinks for tall tasks so that it stays under this many bytes (memory, not speed).
 */
export const C_BLOCK_BYTES_MAX = 64 * 1024 * 1024;

/** Round `value` up to a multiple of `multiple`. */
export function roundUp(value: number, multiple: number): number {
  return Math.ceil(value / multiple) * multiple;
}
