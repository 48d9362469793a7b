// How a 2-way request is cut into sub-blocks (requestPlan.ts SubBlock): along A's and B's resident row chunks
// (operands/residentPlanes.ts), then into blocks of at most maxRows × maxCols whose outputs fit one storage binding
// and the dispatch's output bytes. Pure: the planner (requestPlanner.ts) gives the chunks and the kernel's limits.

import type { PopcountGemmRequest } from '../../../contract.js';
import type { PlaneChunk } from '../operands/residentPlanes.js';
import type { SubBlock } from './requestPlan.js';

/** What bounds a sub-block of a kernel family. */
export interface SubBlockLimits {
  readonly maxRows: number;
  readonly maxCols: number;
  /** Sub-block rows and columns are multiples of these (except the last). */
  readonly rowUnit: number;
  readonly colUnit: number;
  /** Output words of a sub-block of rows × cols (all its groups). */
  readonly outWords: (rows: number, cols: number) => number;
  /** Output bytes of a sub-block at most (all its groups); one binding (`maxBindingBytes`) bounds it too. */
  readonly outputBytes: number;
  readonly maxBindingBytes: number;
}

/**
 * The sub-blocks of `request` over A's and B's chunks; sub-blocks wholly below the diagonal of a strictUpper
 * request are left out.
 */
export function cutSubBlocks(
  request: PopcountGemmRequest, aChunks: readonly PlaneChunk[], bChunks: readonly PlaneChunk[], limits: SubBlockLimits,
): SubBlock[] {
  const maxOutWords = Math.floor(Math.min(limits.maxBindingBytes, limits.outputBytes) / 4);
  const { rowUnit, colUnit } = limits;
  const roundDown = (n: number, total: number, unit: number): number => (n >= total ? total : Math.max(unit, Math.floor(n / unit) * unit));
  const blocks: SubBlock[] = [];
  for (const aChunk of aChunks) {
    const rowLo = Math.max(request.aFirst, aChunk.firstRow);
    const rowHi = Math.min(request.aFirst + request.aCount, aChunk.firstRow + aChunk.numRows);
    if (rowHi <= rowLo) continue;
    for (const bChunk of bChunks) {
      const colLo = Math.max(request.bFirst, bChunk.firstRow);
      const colHi = Math.min(request.bFirst + request.bCount, bChunk.firstRow + bChunk.numRows);
      if (colHi <= colLo) continue;
      // Columns such that one rowUnit-high block fits (outWords(rowUnit, colUnit) / colUnit words per column).
      const colsFit = Math.floor((maxOutWords * colUnit) / limits.outWords(rowUnit, colUnit));
      const colsPer = roundDown(Math.min(limits.maxCols, colsFit), colHi - colLo, colUnit);
      for (let colFirst = colLo; colFirst < colHi; colFirst += colsPer) {
        const numCols = Math.min(colsPer, colHi - colFirst);
        const rowsFit = Math.floor(maxOutWords / limits.outWords(rowUnit, numCols)) * rowUnit;
        const rowsPer = roundDown(Math.min(limits.maxRows, rowsFit), rowHi - rowLo, rowUnit);
        for (let rowFirst = rowLo; rowFirst < rowHi; rowFirst += rowsPer) {
          const numRows = Math.min(rowsPer, rowHi - rowFirst);
          // Under strictUpper only r < c is needed: a sub-block whose every row is ≥ every column has nothing.
          if (request.strictUpper && rowFirst >= colFirst + numCols - 1) continue;
          blocks.push({ aChunk, bChunk, rowFirst, numRows, colFirst, numCols });
        }
      }
    }
  }
  return blocks;
}
