// K slabs of the u8 path: with very many fields a whole expanded row is large (1 MiB at 2^20 fields), so the
// expansion budget would hold few rows, sub-blocks would shrink to a few workgroup tiles and the GPU would idle.
// Instead the fields are cut into slabs: each sub-block expands and multiplies one slab at a time, the GEMM
// adding into the output that the slabs before it left (u8GemmProgram.ts `accumulate`).

/**
 * Rows a u8 sub-block should reach: 4096 × 4096 outputs are 512 of the kernel's 128 × 256 workgroup tiles, several
 * waves on a GPU of ~130 multiprocessors, where 1024 × 1024 (32 tiles) leaves most of it idle (docs/performance.md,
 * K slabs).
 */
export const U8_SLAB_ROWS = 4096;

/** Slabs are whole multiples of this many bytes of a row (the kernel's longest K step; 4 words per plane). */
export const U8_SLAB_UNIT_BYTES = 128;

/** The fields of one slab, as words of each plane and as bytes of an expanded row (one byte per field). */
export interface U8Slab {
  readonly wordFirst: number;
  readonly numWords: number;
  /** Bytes of an expanded row of this slab: 32 per plane word. */
  readonly rowBytes: number;
}

export interface U8SlabPlan {
  /** The slabs in field order: one when whole rows fit U8_SLAB_ROWS rows in the budget. */
  readonly slabs: readonly U8Slab[];
  /** Bytes of an expanded row of the longest slab. */
  readonly slabBytes: number;
}

/**
 * Cuts rows of `kBytes` expanded bytes (a multiple of U8_SLAB_UNIT_BYTES) into slabs such that `budgetBytes` holds
 * U8_SLAB_ROWS expanded rows of a slab, or rows as long as the budget allows past that; slabs are never shorter than
 * U8_SLAB_UNIT_BYTES.
 */
export function planU8Slabs(kBytes: number, budgetBytes: number): U8SlabPlan {
  if (kBytes <= 0 || kBytes % U8_SLAB_UNIT_BYTES !== 0) throw new RangeError(`u8 rows of ${kBytes} bytes: not a positive multiple of ${U8_SLAB_UNIT_BYTES}`);
  const fitting = Math.floor(budgetBytes / U8_SLAB_ROWS / U8_SLAB_UNIT_BYTES) * U8_SLAB_UNIT_BYTES;
  const slabBytes = Math.min(kBytes, Math.max(U8_SLAB_UNIT_BYTES, fitting));
  const slabs: U8Slab[] = [];
  for (let byteFirst = 0; byteFirst < kBytes; byteFirst += slabBytes) {
    const rowBytes = Math.min(slabBytes, kBytes - byteFirst);
    slabs.push({ wordFirst: byteFirst / 32, numWords: rowBytes / 32, rowBytes });
  }
  return { slabs, slabBytes };
}
