// The outer BLIS loops of the wasm min-plus GEMM (jc → pc → pack B → ic → pack A → macrokernel) for one 2-way or
// 3-way tile job (minPlusKernels.ts MinPlus2Tile / MinPlus3Tile) on one wasm instance. Sums stay in a C block in
// wasm memory across field blocks (stored and reloaded exactly, so each is still added in field order) and are
// copied out once per column block.
import type { ValuePrecision } from '../../minPlusContract.js';
import { C_BLOCK_BYTES_MAX, KC_FIELDS, MC_ROWS, NC_COLS_MAX, minPlusTilesOf, roundUp } from './minPlusBlockSizes.js';
import type { MinPlus2Tile, MinPlus3Tile } from './minPlusKernels.js';
import { packMicroPanels, packMicroPanelsWithMins } from './minPlusPacking.js';
import type { MinPlusWasmInstance } from './minPlusWasmModule.js';

/** The arena of one job: packed A block, packed B block, C block (byte offsets), and the widest column block. */
interface Arena {
  readonly aBlockByte: number;
  readonly bBlockByte: number;
  readonly cBlockByte: number;
  readonly ncMax: number;
}

/**
 * Lays out the arena for `numRowsPad` rows against `numCols` columns; `valuesPerField` is 1 (2-way) or 2 (3-way
 * panels carry a pair min per value). NC is narrowed so that the C block stays under C_BLOCK_BYTES_MAX.
 */
function reserveArena(instance: MinPlusWasmInstance, numRowsPad: number, numCols: number, nr: number, valueBytes: number, valuesPerField: number): Arena {
  const byBudget = Math.floor(C_BLOCK_BYTES_MAX / (numRowsPad * valueBytes) / nr) * nr;
  const ncMax = Math.max(nr, Math.min(NC_COLS_MAX, roundUp(numCols, nr), byBudget));
  const aBlockByte = instance.arenaBase;
  const bBlockByte = aBlockByte + roundUp(MC_ROWS * KC_FIELDS * valuesPerField * valueBytes, 64);
  const cBlockByte = bBlockByte + roundUp(ncMax * KC_FIELDS * valuesPerField * valueBytes, 64);
  instance.reserveArena(cBlockByte + numRowsPad * ncMax * valueBytes - instance.arenaBase);
  return { aBlockByte, bBlockByte, cBlockByte, ncMax };
}

const precisionOf = (out: Float64Array | Float32Array): ValuePrecision => (out instanceof Float32Array ? 'single' : 'double');

/** Copies rows [0, numRows) × columns [0, nc) of the C block to `out` rows rowFirst + i, columns colFirst + j. */
function copyOut(mem: Float64Array | Float32Array, cIndex: number, ncPad: number, numRows: number, nc: number,
  out: Float64Array | Float32Array, rowFirst: number, ldOut: number, colFirst: number): void {
  for (let i = 0; i < numRows; i++) out.set(mem.subarray(cIndex + i * ncPad, cIndex + i * ncPad + nc), (rowFirst + i) * ldOut + colFirst);
}

/** The 2-way job: out[r][c] = Σ_f min(a, b) for rows [rowFirst, rowEnd), all bCount columns (tile's strictUpper). */
export function runMinPlus2Wasm(instance: MinPlusWasmInstance, t: MinPlus2Tile): void {
  const precision = precisionOf(t.out);
  const valueBytes = t.out.BYTES_PER_ELEMENT;
  const { mr2: MR, nr2: NR } = minPlusTilesOf(precision);
  const numRows = t.rowEnd - t.rowFirst;
  if (numRows <= 0 || t.bCount <= 0) return;
  const arena = reserveArena(instance, roundUp(numRows, MR), t.bCount, NR, valueBytes, 1);
  const [aIndex, bIndex, cIndex] = [arena.aBlockByte, arena.bBlockByte, arena.cBlockByte].map((byte) => byte / valueBytes);
  // strictUpper: columns c ≤ rowFirst are below every row's diagonal; neither packed nor computed.
  const colFirst = t.strictUpper ? Math.min(t.bCount, t.rowFirst + 1) : 0;
  for (let jc = colFirst; jc < t.bCount; jc += arena.ncMax) {
    const nc = Math.min(arena.ncMax, t.bCount - jc);
    const ncPad = roundUp(nc, NR);
    // strictUpper: local row r needs some column c > r in [jc, jc + nc), i.e. r < jc + nc - 1.
    const rowLimit = t.strictUpper ? Math.min(numRows, Math.max(0, jc + nc - 1 - t.rowFirst)) : numRows;
    if (rowLimit === 0) continue;
    instance.values(precision).fill(0, cIndex, cIndex + roundUp(rowLimit, MR) * ncPad);
    for (let pc = 0; pc < t.numField; pc += KC_FIELDS) {
      const kc = Math.min(KC_FIELDS, t.numField - pc);
      const mem = instance.values(precision);
      packMicroPanels({ source: t.b, firstRow: t.bFirst + jc, numRows: nc, fieldFirst: pc, numFields: kc, rowsPerPanel: NR, dst: mem, dstIndex: bIndex });
      for (let ic = 0; ic < rowLimit; ic += MC_ROWS) {
        const mc = Math.min(MC_ROWS, rowLimit - ic);
        packMicroPanels({ source: t.a, firstRow: t.aFirst + t.rowFirst + ic, numRows: mc, fieldFirst: pc, numFields: kc, rowsPerPanel: MR, dst: mem, dstIndex: aIndex });
        instance.macrokernel2(precision, {
          aBlockByte: arena.aBlockByte, bBlockByte: arena.bBlockByte, cBlockByte: arena.cBlockByte + ic * ncPad * valueBytes,
          numRowsPad: roundUp(mc, MR), numColsPad: ncPad, numFields: kc, ldcBytes: ncPad * valueBytes,
          rowGlobal: t.rowFirst + ic, colGlobal: jc, strictUpper: t.strictUpper,
        });
      }
    }
    copyOut(instance.values(precision), cIndex, ncPad, rowLimit, nc, t.out, t.rowFirst, t.bCount, jc);
  }
}

/** The 3-way job: out[r][c] = Σ_f term(x_r, y, z_c) for x rows [rowFirst, rowEnd), all zCount z columns. */
export function runMinPlus3Wasm(instance: MinPlusWasmInstance, t: MinPlus3Tile): void {
  const precision = precisionOf(t.out);
  const valueBytes = t.out.BYTES_PER_ELEMENT;
  const { mr3: MR, nr3: NR } = minPlusTilesOf(precision);
  const numRows = t.rowEnd - t.rowFirst;
  if (numRows <= 0 || t.zCount <= 0) return;
  const arena = reserveArena(instance, roundUp(numRows, MR), t.zCount, NR, valueBytes, 2);
  const [aIndex, bIndex, cIndex] = [arena.aBlockByte, arena.bBlockByte, arena.cBlockByte].map((byte) => byte / valueBytes);
  // Only the last addend's place matters (addition is commutative): it is SPEC §8's min(b, c).
  const last = t.order[2];
  for (let jc = 0; jc < t.zCount; jc += arena.ncMax) {
    const nc = Math.min(arena.ncMax, t.zCount - jc);
    const ncPad = roundUp(nc, NR);
    instance.values(precision).fill(0, cIndex, cIndex + roundUp(numRows, MR) * ncPad);
    for (let pc = 0; pc < t.numField; pc += KC_FIELDS) {
      const kc = Math.min(KC_FIELDS, t.numField - pc);
      const mem = instance.values(precision);
      packMicroPanelsWithMins({ source: t.z, firstRow: t.zFirst + jc, numRows: nc, fieldFirst: pc, numFields: kc, rowsPerPanel: NR, dst: mem, dstIndex: bIndex }, t.y, t.yRow);
      for (let ic = 0; ic < numRows; ic += MC_ROWS) {
        const mc = Math.min(MC_ROWS, numRows - ic);
        packMicroPanelsWithMins({ source: t.x, firstRow: t.xFirst + t.rowFirst + ic, numRows: mc, fieldFirst: pc, numFields: kc, rowsPerPanel: MR, dst: mem, dstIndex: aIndex }, t.y, t.yRow);
        instance.macrokernel3(precision, {
          aBlockByte: arena.aBlockByte, bBlockByte: arena.bBlockByte, cBlockByte: arena.cBlockByte + ic * ncPad * valueBytes,
          numRowsPad: roundUp(mc, MR), numColsPad: ncPad, numFields: kc, ldcBytes: ncPad * valueBytes, last,
        });
      }
    }
    copyOut(instance.values(precision), cIndex, ncPad, numRows, nc, t.out, t.rowFirst, t.zCount, jc);
  }
}
