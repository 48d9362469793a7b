// The jr / ir loops of the min-plus GEMM: one packed A block against one packed B block, one microkernel call per
// MR × NR tile (microkernels2.ts, microkernels3.ts). Loop order as BLIS: jr outer, so one B micro-panel stays in L1
// while the A micro-panels stream from L2. Blocks are padded to whole tiles by packing.

import { MR_F32, MR_F64, NR_F32, NR_F64, minPlus2Microkernel_f32_4x8, minPlus2Microkernel_f64_4x4 } from './microkernels2';
import { MR3_F32, MR3_F64, NR3_F32, NR3_F64, minPlus3Microkernel_f32_4x8, minPlus3Microkernel_f64_4x4 } from './microkernels3';

/**
 * C block += Σ_f min(A, B) over a block of `numFields` fields, double. With `strictUpper` ≠ 0, tiles whose every
 * entry has row ≥ column are skipped: the block's first row and column are `rowGlobal` and `colGlobal`.
 */
export function minPlus2MacrokernelF64(
  aBlock: usize, bBlock: usize, cBlock: usize, numRowsPad: i32, numColsPad: i32, numFields: i32, ldcBytes: usize,
  rowGlobal: i32, colGlobal: i32, strictUpper: i32,
): void {
  const aPanelBytes = <usize>(MR_F64 * numFields) << 3;
  const bPanelBytes = <usize>(NR_F64 * numFields) << 3;
  for (let jr = 0; jr < numColsPad; jr += NR_F64) {
    // A tile starting at row ir holds some r < c iff rowGlobal + ir < colGlobal + jr + NR - 1.
    const irEnd = strictUpper ? min(numRowsPad, colGlobal + jr + NR_F64 - 1 - rowGlobal) : numRowsPad;
    const bPanel = bBlock + <usize>(jr / NR_F64) * bPanelBytes;
    const cColumn = cBlock + (<usize>jr << 3);
    for (let ir = 0; ir < irEnd; ir += MR_F64) {
      minPlus2Microkernel_f64_4x4(aBlock + <usize>(ir / MR_F64) * aPanelBytes, bPanel, numFields, cColumn + <usize>ir * ldcBytes, ldcBytes);
    }
  }
}

/** C block += Σ_f min(A, B), single (as minPlus2MacrokernelF64). */
export function minPlus2MacrokernelF32(
  aBlock: usize, bBlock: usize, cBlock: usize, numRowsPad: i32, numColsPad: i32, numFields: i32, ldcBytes: usize,
  rowGlobal: i32, colGlobal: i32, strictUpper: i32,
): void {
  const aPanelBytes = <usize>(MR_F32 * numFields) << 2;
  const bPanelBytes = <usize>(NR_F32 * numFields) << 2;
  for (let jr = 0; jr < numColsPad; jr += NR_F32) {
    const irEnd = strictUpper ? min(numRowsPad, colGlobal + jr + NR_F32 - 1 - rowGlobal) : numRowsPad;
    const bPanel = bBlock + <usize>(jr / NR_F32) * bPanelBytes;
    const cColumn = cBlock + (<usize>jr << 2);
    for (let ir = 0; ir < irEnd; ir += MR_F32) {
      minPlus2Microkernel_f32_4x8(aBlock + <usize>(ir / MR_F32) * aPanelBytes, bPanel, numFields, cColumn + <usize>ir * ldcBytes, ldcBytes);
    }
  }
}

/** C block += Σ_f 3-way term, double; `last` as in microkernels3.ts (chosen per tile, outside the field loop). */
export function minPlus3MacrokernelF64(
  aBlock: usize, bBlock: usize, cBlock: usize, numRowsPad: i32, numColsPad: i32, numFields: i32, ldcBytes: usize, last: i32,
): void {
  const aPanelBytes = <usize>(2 * MR3_F64 * numFields) << 3;
  const bPanelBytes = <usize>(2 * NR3_F64 * numFields) << 3;
  for (let jr = 0; jr < numColsPad; jr += NR3_F64) {
    const bPanel = bBlock + <usize>(jr / NR3_F64) * bPanelBytes;
    const cColumn = cBlock + (<usize>jr << 3);
    for (let ir = 0; ir < numRowsPad; ir += MR3_F64) {
      const aPanel = aBlock + <usize>(ir / MR3_F64) * aPanelBytes;
      const c = cColumn + <usize>ir * ldcBytes;
      if (last == 2) minPlus3TileF64Last2(aPanel, bPanel, numFields, c, ldcBytes);
      else if (last == 1) minPlus3TileF64Last1(aPanel, bPanel, numFields, c, ldcBytes);
      else minPlus3TileF64Last0(aPanel, bPanel, numFields, c, ldcBytes);
    }
  }
}

/** C block += Σ_f 3-way term, single. */
export function minPlus3MacrokernelF32(
  aBlock: usize, bBlock: usize, cBlock: usize, numRowsPad: i32, numColsPad: i32, numFields: i32, ldcBytes: usize, last: i32,
): void {
  const aPanelBytes = <usize>(2 * MR3_F32 * numFields) << 2;
  const bPanelBytes = <usize>(2 * NR3_F32 * numFields) << 2;
  for (let jr = 0; jr < numColsPad; jr += NR3_F32) {
    const bPanel = bBlock + <usize>(jr / NR3_F32) * bPanelBytes;
    const cColumn = cBlock + (<usize>jr << 2);
    for (let ir = 0; ir < numRowsPad; ir += MR3_F32) {
      const aPanel = aBlock + <usize>(ir / MR3_F32) * aPanelBytes;
      const c = cColumn + <usize>ir * ldcBytes;
      if (last == 2) minPlus3TileF32Last2(aPanel, bPanel, numFields, c, ldcBytes);
      else if (last == 1) minPlus3TileF32Last1(aPanel, bPanel, numFields, c, ldcBytes);
      else minPlus3TileF32Last0(aPanel, bPanel, numFields, c, ldcBytes);
    }
  }
}

// One function per value of `last`, each calling the inlined microkernel with a constant: the optimizer folds the
// term's branches inside each (a single inlined copy called with `last` would merge the copies and branch per field).
function minPlus3TileF64Last0(a: usize, b: usize, numFields: i32, c: usize, ldcBytes: usize): void {
  minPlus3Microkernel_f64_4x4(a, b, numFields, c, ldcBytes, 0);
}

function minPlus3TileF64Last1(a: usize, b: usize, numFields: i32, c: usize, ldcBytes: usize): void {
  minPlus3Microkernel_f64_4x4(a, b, numFields, c, ldcBytes, 1);
}

function minPlus3TileF64Last2(a: usize, b: usize, numFields: i32, c: usize, ldcBytes: usize): void {
  minPlus3Microkernel_f64_4x4(a, b, numFields, c, ldcBytes, 2);
}

function minPlus3TileF32Last0(a: usize, b: usize, numFields: i32, c: usize, ldcBytes: usize): void {
  minPlus3Microkernel_f32_4x8(a, b, numFields, c, ldcBytes, 0);
}

function minPlus3TileF32Last1(a: usize, b: usize, numFields: i32, c: usize, ldcBytes: usize): void {
  minPlus3Microkernel_f32_4x8(a, b, numFields, c, ldcBytes, 1);
}

function minPlus3TileF32Last2(a: usize, b: usize, numFields: i32, c: usize, ldcBytes: usize): void {
  minPlus3Microkernel_f32_4x8(a, b, numFields, c, ldcBytes, 2);
}
