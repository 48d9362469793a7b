// The outer BLIS loops (jc → pc → pack B → ic → pack A → macrokernel) of one GemmTask on one wasm instance.

import type { TermGroup } from '../../contract.js';
import { C_BLOCK_BYTES_MAX, KC_WORDS, MC_ROWS, MICROKERNEL_MR, MICROKERNEL_NR, NC_COLS_MAX, roundUp } from './blockSizes.js';
import type { GemmTask } from './gemmTask.js';
import { packMicroPanels, type TermOperand } from './packing.js';
import type { PopcountGemmWasmInstance } from './wasmModule.js';

/** Computes every term group of `task` and writes its panel of each output. */
export function runGemmTask(instance: PopcountGemmWasmInstance, task: GemmTask): void {
  task.request.termGroups.forEach((group, groupIdx) => runTermGroup(instance, task, group, task.outputs[groupIdx]));
}

/** Widest B block: NC_COLS_MAX, narrowed so that the C block (rows × NC u32) fits C_BLOCK_BYTES_MAX. */
function chooseNcCols(numRowsPad: number, numCols: number): number {
  const byBudget = Math.floor(C_BLOCK_BYTES_MAX / (numRowsPad * 4) / MICROKERNEL_NR) * MICROKERNEL_NR;
  return Math.max(MICROKERNEL_NR, Math.min(NC_COLS_MAX, roundUp(numCols, MICROKERNEL_NR), byBudget));
}

/**
 * One term group, one pass: K is the group's term-expanded length (terms × wordsPerPlane). Groups are
 * not fused: each has its own K layout, and the packing a fused pass would share is ≤ 1/MC of the work.
 */
function runTermGroup(instance: PopcountGemmWasmInstance, task: GemmTask, group: TermGroup, out: Uint32Array): void {
  const { a, b, aFirst, bFirst, bCount, strictUpper } = task.request;
  const { rowBegin, rowEnd, colBegin } = task.panel;
  const kWords = group.length * a.wordsPerPlane;
  const numRows = rowEnd - rowBegin;
  const numCols = bCount - colBegin;
  if (kWords === 0 || numRows <= 0 || numCols <= 0) return;
  const aOperand: TermOperand = { matrix: a, termPlanes: group.map((term) => term[0]) };
  const bOperand: TermOperand = { matrix: b, termPlanes: group.map((term) => term[1]) };

  // Arena: packed A block, packed B block, C block; every part a multiple of 64 bytes.
  const numRowsPad = roundUp(numRows, MICROKERNEL_MR);
  const ncColsMax = chooseNcCols(numRowsPad, numCols);
  const aBlockByte = instance.arenaBase;
  const bBlockByte = aBlockByte + MC_ROWS * KC_WORDS * 4;
  const cBlockByte = bBlockByte + ncColsMax * KC_WORDS * 4;
  const words = instance.reserveArena(cBlockByte + numRowsPad * ncColsMax * 4 - instance.arenaBase);
  const cBlockWord = cBlockByte / 4;

  for (let jc = 0; jc < numCols; jc += ncColsMax) {
    const nc = Math.min(ncColsMax, numCols - jc);
    const ncPad = roundUp(nc, MICROKERNEL_NR);
    // strictUpper: rows at or below the block's last column have nothing to compute in it.
    const rowLimit = strictUpper ? Math.min(numRows, Math.max(0, colBegin + jc + nc - 1 - rowBegin)) : numRows;
    if (rowLimit === 0) continue;
    words.fill(0, cBlockWord, cBlockWord + roundUp(rowLimit, MICROKERNEL_MR) * ncPad);
    for (let pc = 0; pc < kWords; pc += KC_WORDS) {
      const kc = Math.min(KC_WORDS, kWords - pc);
      packMicroPanels({
        operand: bOperand,
        firstRow: bFirst + colBegin + jc,
        numRows: nc,
        kBegin: pc,
        kcWords: kc,
        rowsPerPanel: MICROKERNEL_NR,
        dst: words,
        dstWord: bBlockByte / 4,
      });
      for (let ic = 0; ic < rowLimit; ic += MC_ROWS) {
        const mc = Math.min(MC_ROWS, rowLimit - ic);
        const mcPad = roundUp(mc, MICROKERNEL_MR);
        packMicroPanels({
          operand: aOperand,
          firstRow: aFirst + rowBegin + ic,
          numRows: mc,
          kBegin: pc,
          kcWords: kc,
          rowsPerPanel: MICROKERNEL_MR,
          dst: words,
          dstWord: aBlockByte / 4,
        });
        instance.macrokernel({
          aBlockByte,
          bBlockByte,
          cBlockByte: cBlockByte + ic * ncPad * 4,
          numRowsPad: mcPad,
          numColsPad: ncPad,
          numSteps: kc / 2,
          ldcBytes: ncPad * 4,
          rowGlobal: rowBegin + ic,
          colGlobal: colBegin + jc,
          strictUpper,
        });
      }
    }
    for (let r = 0; r < rowLimit; r++) {
      const cRowWord = cBlockWord + r * ncPad;
      out.set(words.subarray(cRowWord, cRowWord + nc), (rowBegin + r) * bCount + colBegin + jc);
    }
  }
}
