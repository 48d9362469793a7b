// Host finalize of analyses whose pairs carry four exact counts (KING, the genotype distances): the loop over a block's
// unique pairs, a row at a time into `sink.addPairCountRow` — the counts to the checksum and the records, the value to
// a dense matrix. Each analysis gives only how a row of pairs' tallies become their counts and values (a loop of its own,
// so that it compiles to one tight loop: a call per pair through a shared function was a fifth of KING's finalize).
// Without records (a dense matrix, or the checksum alone) a block goes to the native finalize where it is
// built (nativePairCounts.ts): the same values and checksum in one call, the values then a row at a time to the sink
// (PairValueSink).
import type { FinalizeContext, PairBlock, ResultSink } from './analysis.js';
import { loadNativePairCountAddon, NATIVE_PAIR_COUNT_KINDS, type NativePairCountKind } from './nativePairCounts.js';

/** A sink's values of pairs whose counts' checksum part was merged into its checksum (PairValueSink). */
export interface PairValueRows {
  /** The run's vectors: the checksum's uids are (max · numVector + min) · 4 + entry. */
  readonly numVector: number;
  /** Pairs (i, j) for j = jFirst … jFirst + numCols − 1: `values[c]`, as addPairCountRow's `values` (to a dense matrix). */
  addRow(i: number, jFirst: number, numCols: number, values: Float64Array): void;
}

/**
 * A ResultSink that may take pair-count rows as values alone, their checksum part merged into its `checksum` by the
 * analysis (the native finalize below): `pairValueRows` is null while it writes records, keeps a window or counts a
 * histogram (then addPairCountRow).
 */
export interface PairValueSink {
  readonly pairValueRows: PairValueRows | null;
}

/** The sink's pairValueRows where it is a PairValueSink, else null. */
export function pairValueRowsOf(sink: ResultSink): PairValueRows | null {
  return 'pairValueRows' in sink ? (sink as ResultSink & PairValueSink).pairValueRows : null;
}

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
  options: { readonly native?: NativePairCountKind } = {},
): number {
  const { rows, cols } = block;
  const sink = ctx.sink;
  if (options.native !== undefined) {
    const numPairs = finalizedNatively(options.native, sink, block, tallies);
    if (numPairs !== null) return numPairs;
  }
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

/** Values of native blocks, grown as needed (one thread finalizes one block at a time). */
let nativeValues = new Float64Array(0);

/**
 * The block finalized by the native addon when the sink takes values alone (PairValueSink, no records) and the addon is
 * built; returns its pairs, or null for the JS path (which also reports a count out of range).
 */
function finalizedNatively(kind: NativePairCountKind, sink: ResultSink, block: PairBlock, tallies: readonly Uint32Array[]): number | null {
  const valueRows = pairValueRowsOf(sink);
  if (valueRows === null) return null;
  const native = loadNativePairCountAddon();
  if (!native.available) return null;
  const { rows, cols } = block;
  const numRows = Math.max(0, Math.min(block.numRows, rows.numVectorReal - block.rowFirst));
  const numCols = Math.max(0, Math.min(block.numCols, cols.numVectorReal - block.colFirst));
  if (nativeValues.length < numRows * numCols) nativeValues = new Float64Array(numRows * numCols);
  const rowVector = rows.vectorFirst + block.rowFirst;
  const colVector = cols.vectorFirst + block.colFirst;
  const outcome = native.addon.pairCountRows({
    kind: NATIVE_PAIR_COUNT_KINDS[kind], tallies, tallyStride: block.numCols, numRows, numCols, rowVector, colVector,
    rowFirst: block.rowFirst, colFirst: block.colFirst, strictUpper: block.strictUpper, numVector: valueRows.numVector,
  }, nativeValues);
  if (outcome === null) return null;
  sink.checksum.merge(outcome.checksumLimbs, outcome.entries, outcome.zeros);
  for (let r = 0; r < numRows; r++) {
    const c0 = block.strictUpper ? Math.max(0, r + 1 + block.rowFirst - block.colFirst) : 0;
    if (numCols <= c0) continue;
    valueRows.addRow(rowVector + r, colVector + c0, numCols - c0, nativeValues.subarray(r * numCols + c0, (r + 1) * numCols));
  }
  return outcome.numPairs;
}
