// Host finalize of analyses whose pairs carry four exact counts (KING, the genotype distances): the loop over a block's
// unique pairs, a row at a time into `sink.addPairCountRow` — the counts to the checksum and the records, the value to
// a dense matrix. Each analysis gives only how one pair's tallies become its counts and its value.
import type { FinalizeContext, PairBlock } from './analysis.js';

/** One pair: from the tallies at index `t`, its four counts (already scaled) to `counts[at … at + 3]`; returns its value. */
export type PairCountsOf = (tallies: readonly Uint32Array[], t: number, counts: Float64Array, at: number) => number;

/**
 * Finalizes every unique pair of `block`; a pair is recorded when the run has no threshold or its value is not ≤ it
 * (so an undefined value, which PLINK prints, is kept). Returns the number of pairs.
 * @param analysisName names the analysis in the error for a per-entry threshold (the CLI refuses those).
 */
export function finalizePairCountRows(
  analysisName: string, pairCountsOf: PairCountsOf, ctx: FinalizeContext, block: PairBlock, tallies: readonly Uint32Array[],
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
  let numPairs = 0;
  for (let r = 0; r < rowsReal; r++) {
    const i = rows.vectorFirst + block.rowFirst + r;
    const c0 = block.strictUpper ? Math.max(0, r + 1 + block.rowFirst - block.colFirst) : 0;
    for (let c = c0; c < colsReal; c++) {
      const value = pairCountsOf(tallies, r * block.numCols + c, counts, 4 * (c - c0));
      values[c - c0] = value;
      recorded[c - c0] = threshold === null || !(value <= threshold) ? 1 : 0;
    }
    if (colsReal > c0) {
      sink.addPairCountRow({ i, jFirst: cols.vectorFirst + block.colFirst + c0, numCols: colsReal - c0, counts, values, recorded });
      numPairs += colsReal - c0;
    }
  }
  return numPairs;
}
