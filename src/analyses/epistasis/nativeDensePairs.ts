// Dense 2-way epistasis finalize through the native scorer (native/nativePairScores.ts): one call per pair block
// scores every pair, sums its exact checksum part and selects its records as the sink's addTupleValueRow would — the
// JS path (epistasisPairs.ts DensePairScorer) spent two thirds of a 2-way run's CPU time there, more than the GEMM.
import { nativeRecordSelectionOf, tupleRecordSelectionOf, type FinalizeContext, type PairBlock } from '../index.js';
import type { BlockGenotypeCounts } from './epistasisFinalize.js';
import type { EpistasisFinalizeSettings } from './epistasisPairs.js';
import { k2ScaleOf, LN2 } from './epistasisScores.js';
import { loadNativePairScorer } from './native/nativePairScores.js';

/**
 * Scores the unique pairs of a dense run's `block` natively into `ctx.sink` (checksum part and records); the number
 * of pairs, or null when the native scorer is unavailable or the sink does not hand out its selection (then the JS
 * path scores the block).
 */
export function finalizeDensePairsNatively(
  settings: EpistasisFinalizeSettings, ctx: FinalizeContext, block: PairBlock, tallies: readonly Uint32Array[], counts: BlockGenotypeCounts,
): number | null {
  const loaded = loadNativePairScorer();
  if (!loaded.available) return null;
  const sinkSelection = tupleRecordSelectionOf(ctx.sink);
  const selection = sinkSelection === null ? null : nativeRecordSelectionOf(sinkSelection);
  if (sinkSelection === null || selection === null) return null;
  const [controls, cases] = settings.classSizes;
  const { tables } = settings;
  const scores = loaded.scorer.scoreDensePairs({
    tallies,
    numCols: block.numCols,
    rowsReal: Math.max(0, Math.min(block.numRows, block.rows.numVectorReal - block.rowFirst)),
    colsReal: Math.max(0, Math.min(block.numCols, block.cols.numVectorReal - block.colFirst)),
    strictUpper: block.strictUpper,
    rowVectorFirst: block.rows.vectorFirst + block.rowFirst,
    colVectorFirst: block.cols.vectorFirst + block.colFirst,
    rowCounts: counts.of(block.rows).subarray(4 * block.rowFirst),
    colCounts: counts.of(block.cols).subarray(4 * block.colFirst),
    controls, cases, numVector: sinkSelection.numVector,
  }, { score: settings.score, logFactorial: tables.logFactorial, nLogN: tables.nLogN, k2Scale: k2ScaleOf(tables), ln2: LN2 }, selection);
  ctx.sink.checksum.merge(scores.checksumLimbs, scores.entries, scores.zeros);
  ctx.sink.addRecordWords(scores.recordWords, scores.numRecords);
  return scores.numPairs;
}
