// Pairs of a 2-way step or panel: all of them, and those an LD window keeps (the pipelines' counts of computed and kept pairs).
import { windowPairsIn, type PairWindowLimits } from '../../core/pairWindow.js';
import type { PairBlock } from '../../analyses/index.js';
import type { IndexRange } from '../../parallel/index.js';

/** Unique pairs of a step (pipeline2.ts PairStep), for progress accounting. */
export function pairsOfStep(step: { readonly isDiagonalBlock: boolean; readonly rowRange: IndexRange; readonly colRange: IndexRange }): number {
  const numRows = Math.max(0, step.rowRange.end - step.rowRange.begin);
  const numCols = Math.max(0, step.colRange.end - step.colRange.begin);
  // The diagonal block's ranges are the whole block on both sides: its strict upper triangle.
  return step.isDiagonalBlock ? (numRows * (numRows - 1)) / 2 : numRows * numCols;
}

/** Pairs of a panel (a strictUpper panel starts its rows and columns at one vector, mgemm/contract.ts). */
export function pairsInPanel(b: { numRows: number; numCols: number; strictUpper: boolean }): number {
  if (!b.strictUpper) return b.numRows * b.numCols;
  let n = 0;
  for (let r = 0; r < b.numRows; r++) n += Math.max(0, b.numCols - r - 1);
  return n;
}

/** Pairs of a panel that its run keeps: all of them, or those in the LD window. */
export function keptPairsInPanel(b: PairBlock, window: PairWindowLimits | null): number {
  if (window === null) return pairsInPanel(b);
  const rows = { begin: b.rows.vectorFirst + b.rowFirst, end: b.rows.vectorFirst + b.rowFirst + b.numRows };
  const cols = { begin: b.cols.vectorFirst + b.colFirst, end: b.cols.vectorFirst + b.colFirst + b.numCols };
  return windowPairsIn(window, rows, cols, { strictUpper: b.strictUpper });
}
