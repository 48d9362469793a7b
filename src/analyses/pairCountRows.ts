// Host finalize of analyses whose pairs carry four exact counts (KING, the genotype distances): the loop over a block's
// unique pairs, a row at a time into `sink.addPairCountRow` — the counts to the checksum and the records, the value to
// a dense matrix. Each analysis gives only how a row of pairs' tallies become their counts and values (a loop of its own,
// so that it compiles to one tight loop: a call per pair through a shared function was a fifth of KING's finalize).
import type { FinalizeContext, PairBlock } from './analysis.js';

/**
 * A row of pairs: from the tallies at indices tFirst … tFirst + numPairs − 1, pair c's four counts (already scaled) to
 * `counts[4c … 4c + 3]` and its value to `values[c]`.
 */
export type PairCountRowOf = (tallies: readonly Uint32Array[], tFirst: number, numPairs: number, out: { readonly counts: Float64Array; readonly values: Float64Array }) => void;

/**
 * Finalizes every unique pair of `block`; a pair is recorded when the run has no threshold or its value is not ≤ it
 * (so an undefined value, which PLINK prints, is kept). Returns the number of pairs.
 * @param analysisName names the analysis in the error for a per-entry threshold (the CLI refuses those).
 */
export function finalizePairCountRows(
  analysisName: string, pairCountRowOf: PairCountRowOf, ctx: FinalizeContext, block: PairBlock, tallies: readonly Uint32Array[],
): number {
  const { rows, cols } = block;
  const sink = ctx.sink;
  const threshold = sink.threshold.kind === 'single' ? sink.threshold.value : null;
  if (sink.threshold.kind !== 'none' && threshold === null) throw new Error(`${analysisName} takes one threshold (the CLI refuses per-entry ones)`);
  const rowsReal = Math.min(block.numRows, rows.numVectorReal - block.rowFirst);
  const colsReal = Math.min(block.numCols, cols.numVectorReal - block.colFirst);
  const counts = new Float64Array(4 * Math.max(0, colsReal));
  const values = new Float64Array(Math.max(0, colsReal));
  const recorded = new Uint8Array(Math.max(0, colsReal));
  const row = { counts, values };
  let numPairs = 0;
  for (let r = 0; r < rowsReal; r++) {
    const i = rows.vectorFirst + block.rowFirst + r;
    const c0 = block.strictUpper ? Math.max(0, r + 1 + block.rowFirst - block.colFirst) : 0;
    if (colsReal <= c0) continue;
    pairCountRowOf(tallies, r * block.numCols + c0, colsReal - c0, row);
    if (threshold === null) recorded.fill(1);
    else for (let c = 0; c < colsReal - c0; c++) recorded[c] = !(values[c] <= threshold) ? 1 : 0;
    sink.addPairCountRow({ i, jFirst: cols.vectorFirst + block.colFirst + c0, numCols: colsReal - c0, counts, values, recorded });
    numPairs += colsReal - c0;
  }
  return numPairs;
}
