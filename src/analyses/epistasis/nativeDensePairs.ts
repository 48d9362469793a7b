// Dense 2-way epistasis finalize through the native scorer (native/nativePairScores.ts): one call per pair block
// scores every pair, sums its exact checksum part and selects its records as the sink's addTupleValueRow would — the
// JS path (epistasisPairs.ts DensePairScorer) spent two thirds of a 2-way run's CPU time there, more than the GEMM.
import { tupleRecordSelectionOf, type FinalizeContext, type PairBlock, type TupleRecordSelection } from '../index.js';
import type { BlockGenotypeCounts } from './epistasisFinalize.js';
import type { EpistasisFinalizeSettings } from './epistasisPairs.js';
import { k2ScaleOf, LN2 } from './epistasisScores.js';
import { loadNativePairScorer, type NativeRecordSelection } from './native/nativePairScores.js';

const BAR_BITS = new Uint32Array(1);
const BAR_FLOAT = new Float32Array(BAR_BITS.buffer);

/** What the addon applies of a sink's selection, or null for a threshold it does not take (CoMet's per-entry forms). */
function nativeSelectionOf(selection: TupleRecordSelection): NativeRecordSelection | null {
  const { threshold, bar, top } = selection;
  if (threshold.kind !== 'none' && threshold.kind !== 'single') return null;
  BAR_BITS[0] = bar?.valueBits ?? 0;
  return {
    writesRecords: selection.writesRecords,
    threshold: threshold.kind === 'single' ? threshold.value : null,
    bar: bar === null ? null : { atLeast: bar.keep === 'atLeast', value: BAR_FLOAT[0] },
    topCount: top?.count ?? 0,
    topLarger: top?.stronger !== 'smaller',
  };
}

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
  const selection = sinkSelection === null ? null : nativeSelectionOf(sinkSelection);
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
