// Block sizes of the wasm popcount-GEMM (the BLIS MR/NR/KC/MC/NC table) with the reasoning for each.

/** Rows of A per microkernel tile (MR); must equal the AssemblyScript MR, checked when an instance loads. */
export const MICROKERNEL_MR = 4;
/** Rows of B per microkernel tile (NR); must equal the AssemblyScript NR. */
export const MICROKERNEL_NR = 4;

/**
 * KC, in u32 words of the term-expanded K dimension (a multiple of 4 so every block is whole 128-bit
 * lanes, hence an even number of the microkernel's 64-bit steps). 1024 words = 4 KiB per packed row:
 * one B micro-panel (NR rows, 16 KiB) stays in the 48 KiB L1 while A micro-panels stream past it, and a
 * dense CCC 2-way problem of 8192 fields (4 terms × 256 words) needs one K block only.
 */
export const KC_WORDS = 1024;

/** MC, rows of A per packed block: 128 × 4 KiB = 512 KiB, a quarter of the 2 MiB L2, re-read once per B micro-panel. */
export const MC_ROWS = 128;

/**
 * NC, the most B rows per packed block: 2048 × 4 KiB = 8 MiB, which lives in L3 and is read once per A block.
 * Larger NC only saves A repacking, which is already ≤ 1/NC of the work.
 */
export const NC_COLS_MAX = 2048;

/**
 * The C block (a task's rows × NC, u32) is accumulated in wasm memory across K blocks before it is copied
 * out; NC shrinks for tall tasks so that the block stays under this many bytes (memory, not speed).
 */
export const C_BLOCK_BYTES_MAX = 64 * 1024 * 1024;

/** Round `value` up to a multiple of `multiple`. */
export function roundUp(value: number, multiple: number): number {
  return Math.ceil(value / multiple) * multiple;
}
