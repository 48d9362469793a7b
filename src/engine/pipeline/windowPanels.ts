// Panels of a windowed 2-way run (an LD window, core/pairWindow.ts): only tiles that touch the window's band are
// computed, so the work grows with vectors × window width rather than vectors².
import { windowColumnsOfRows, type PairWindowLimits } from '../../core/pairWindow.js';
import type { PairBlock } from '../../analyses/index.js';
import type { IndexRange } from '../../parallel/index.js';
import type { VectorBlock } from '../blocks/vectorBlock.js';

/** Local rows × local columns of a step; `strictUpper` (the diagonal block): only pairs with row < col. */
export interface WindowRegion {
  readonly rowRange: IndexRange;
  readonly colRange: IndexRange;
  readonly strictUpper: boolean;
}

/** Rows per panel at least: fewer would make GEMM calls whose overhead outweighs the pairs they save. */
const MIN_WINDOW_PANEL_ROWS = 32;

/**
 * Rows per panel of a windowed run: about half the window's mean width (vectors one side of a vector). A panel of R
 * rows computes the band's R × width pairs plus about R²/2 of the staircase around it, so R = width/2 computes ≈ 1.25×
 * the band; smaller R means more, smaller GEMM calls.
 */
export function windowPanelRows(limits: PairWindowLimits, maxRows: number): number {
  const numVector = limits.bandEnd.length;
  let width = 0;
  for (let v = 0; v < numVector; v++) width += limits.bandEnd[v] - v - 1;
  const meanWidth = numVector === 0 ? 0 : width / numVector;
  return Math.max(1, Math.min(maxRows, Math.max(MIN_WINDOW_PANEL_ROWS, Math.ceil(meanWidth / 2))));
}

/** Geometry of one panel: local rows and columns of the step's blocks. */
export interface PanelGeometry {
  readonly rowFirst: number;
  readonly numRows: number;
  readonly colFirst: number;
  readonly numCols: number;
  readonly strictUpper: boolean;
}

/**
 * The panels of `region` that touch the window, rows in chunks of `rowsPerPanel`; each chunk's columns are the
 * window's columns of its rows (windowColumnsOfRows), cut into tiles of at most `pairsPerPanel / rows` columns. On the
 * diagonal block a chunk's columns from its first row on start with one `strictUpper` tile. The same panels on every
 * backend, so device finalize writes the host's records in the host's order.
 */
export function* windowPanelGeometry(
  rowVectorFirst: number, colVectorFirst: number, region: WindowRegion, limits: PairWindowLimits,
  shape: { readonly rowsPerPanel: number; readonly pairsPerPanel: number },
): Generator<PanelGeometry> {
  const { rowRange, colRange, strictUpper } = region;
  for (let rowFirst = rowRange.begin; rowFirst < rowRange.end; rowFirst += shape.rowsPerPanel) {
    const numRows = Math.min(shape.rowsPerPanel, rowRange.end - rowFirst);
    const rowEnd = rowFirst + numRows;
    const maxCols = Math.max(1, Math.floor(shape.pairsPerPanel / numRows));
    const colBegin = strictUpper ? Math.max(colRange.begin, rowFirst) : colRange.begin;
    const rows = { begin: rowVectorFirst + rowFirst, end: rowVectorFirst + rowEnd };
    const cols = { begin: colVectorFirst + colBegin, end: colVectorFirst + colRange.end };
    for (const interval of windowColumnsOfRows(limits, rows, cols)) {
      let begin = interval.begin - colVectorFirst;
      const end = interval.end - colVectorFirst;
      if (strictUpper && begin < rowEnd) {
        // Columns from the chunk's own rows on: only pairs right of the diagonal, in one tile that starts on it (the
        // kernels' strictUpper requests start rows and columns at one vector, mgemm/contract.ts) and takes the band
        // right of the rows too, so that a chunk is one GEMM call.
        const tileEnd = Math.min(end, rowFirst + Math.max(maxCols, numRows));
        yield { rowFirst, numRows, colFirst: rowFirst, numCols: tileEnd - rowFirst, strictUpper: true };
        begin = tileEnd;
      }
      for (let colFirst = begin; colFirst < end; colFirst += maxCols) {
        yield { rowFirst, numRows, colFirst, numCols: Math.min(maxCols, end - colFirst), strictUpper: false };
      }
    }
  }
}

/** {@link windowPanelGeometry} as the pipeline's pair blocks of `rows` × `cols`. */
export function* windowPanelsOf(
  rows: VectorBlock, cols: VectorBlock, region: WindowRegion, limits: PairWindowLimits,
  shape: { readonly rowsPerPanel: number; readonly pairsPerPanel: number },
): Generator<PairBlock> {
  for (const panel of windowPanelGeometry(rows.vectorFirst, cols.vectorFirst, region, limits, shape)) yield { rows, cols, ...panel };
}

/**
 * Rows per sub-block of a band task (finalize/pairBands.ts): a panel's rows are computed in chunks of this many, each
 * against only the window's columns of its rows, so the GEMM and the finalize skip most of the staircase outside the
 * band that a panel of R rows holds (~R²/2 pairs; ~R·16/2 in chunks of 16). A multiple of the microkernels' 4 rows;
 * smaller chunks make more kernel calls (a few µs each).
 */
export const WINDOW_SUB_BLOCK_ROWS = 16;

/**
 * The parts of `panel` that hold its pairs in the window, in row order: its rows in chunks of `rowsPerChunk`, each
 * against the hull of its rows' window columns within the panel (windowColumnsOfRows; chunks without any are left
 * out). Finalizing them one after another adds the panel's window pairs in the panel's order (row by row, columns
 * ascending), so records come out as the whole panel's would. A strictUpper chunk starts its columns at its first row.
 */
export function windowSubBlocks(
  panel: PanelGeometry, vectorFirst: { readonly rows: number; readonly cols: number }, limits: PairWindowLimits, rowsPerChunk: number,
): PanelGeometry[] {
  const out: PanelGeometry[] = [];
  const colEnd = panel.colFirst + panel.numCols;
  const rowEnd = panel.rowFirst + panel.numRows;
  for (let rowFirst = panel.rowFirst; rowFirst < rowEnd; rowFirst += rowsPerChunk) {
    const numRows = Math.min(rowsPerChunk, rowEnd - rowFirst);
    const colBegin = panel.strictUpper ? rowFirst : panel.colFirst;
    if (colBegin >= colEnd) break;
    const rows = { begin: vectorFirst.rows + rowFirst, end: vectorFirst.rows + rowFirst + numRows };
    const intervals = windowColumnsOfRows(limits, rows, { begin: vectorFirst.cols + colBegin, end: vectorFirst.cols + colEnd });
    if (intervals.length === 0) continue;
    const hullEnd = intervals[intervals.length - 1].end - vectorFirst.cols;
    const colFirst = panel.strictUpper ? rowFirst : intervals[0].begin - vectorFirst.cols;
    out.push({ rowFirst, numRows, colFirst, numCols: hullEnd - colFirst, strictUpper: panel.strictUpper });
  }
  return out;
}
