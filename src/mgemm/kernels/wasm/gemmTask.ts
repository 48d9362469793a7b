// Splitting a popcount-GEMM request into row-panel tasks, one per thread, balanced by work.

import type { PlaneMatrix, PopcountGemmRequest } from '../../contract.js';

/** Rows [rowBegin, rowEnd) against columns [colBegin, bCount) of a request (request-local indices). */
export interface RowPanel {
  readonly rowBegin: number;
  readonly rowEnd: number;
  readonly colBegin: number;
}

/** The unit of work one thread computes; plain data, so it can be posted to a worker. */
export interface GemmTask {
  readonly request: PopcountGemmRequest;
  readonly panel: RowPanel;
  /** One aCount × bCount row-major array per term group; the task writes only its panel. */
  readonly outputs: readonly Uint32Array[];
  /**
   * The caller's names of the request's operands (operandIdOf): the same id, the same words — a matrix is not changed
   * after it is first passed to a kernel set — so a kernel may keep forms derived from them across tasks. Absent or
   * null: none (operands such as the 3-way pair products, rewritten between tasks).
   */
  readonly operandIds?: { readonly a: number; readonly b: number } | null;
}

const operandIds = new WeakMap<PlaneMatrix, number>();
let lastOperandId = 0;

/** A name of `matrix` unique in this thread (from 1), the same for every request that passes the same object. */
export function operandIdOf(matrix: PlaneMatrix): number {
  let id = operandIds.get(matrix);
  if (id === undefined) {
    id = ++lastOperandId;
    operandIds.set(matrix, id);
  }
  return id;
}

/** How finely planRowPanels may cut a request. */
export interface RowPanelPlanOptions {
  /** At most this many panels (the thread count). */
  readonly maxPanels: number;
  /** Panel boundaries are multiples of this (the microkernel's MR) so that no tile is split. */
  readonly rowAlign: number;
  /**
   * A panel gets at least this many word-pair operations (AND + popcount of two u32): below it,
   * posting to another thread (~0.1 ms) costs more than the work it moves.
   */
  readonly minWordOpsPerPanel: number;
}

/** Columns of row r that the request needs: with strictUpper only c > r. */
function neededCols(request: PopcountGemmRequest, r: number): number {
  return request.strictUpper ? Math.max(0, request.bCount - 1 - r) : request.bCount;
}

/**
 * Cuts rows into contiguous panels of about equal work (needed entries × K words). With strictUpper the
 * top rows are long and the bottom rows short, so panels get taller going down; each panel starts its
 * columns just right of its first row, since nothing left of the diagonal is needed.
 */
export function planRowPanels(request: PopcountGemmRequest, options: RowPanelPlanOptions): RowPanel[] {
  const { aCount, bCount, strictUpper } = request;
  const kWordsAllGroups = request.termGroups.reduce((sum, group) => sum + group.length, 0) * request.a.wordsPerPlane;
  const rowWork: number[] = [];
  let totalWork = 0;
  for (let r = 0; r < aCount; r++) {
    rowWork.push(neededCols(request, r));
    totalWork += rowWork[r];
  }
  if (totalWork === 0 || kWordsAllGroups === 0) return [];
  const byWork = Math.floor((totalWork * kWordsAllGroups) / Math.max(1, options.minWordOpsPerPanel));
  const numPanels = Math.max(1, Math.min(options.maxPanels, byWork, Math.ceil(aCount / options.rowAlign)));

  const panels: RowPanel[] = [];
  let rowBegin = 0;
  let row = 0;
  let workSoFar = 0;
  for (let p = 1; p <= numPanels; p++) {
    const target = (totalWork * p) / numPanels;
    while (row < aCount && (workSoFar < target || row % options.rowAlign !== 0)) workSoFar += rowWork[row++];
    if (p === numPanels) row = aCount;
    const colBegin = strictUpper ? rowBegin + 1 : 0;
    if (row > rowBegin && colBegin < bCount) panels.push({ rowBegin, rowEnd: row, colBegin });
    rowBegin = row;
  }
  return panels;
}
