// Dense 2-way epistasis finalize through the native scorer (native/nativePairScores.ts): one call per pair block
// scores every pair, sums its exact checksum part and selects its records as the sink's addTupleValueRow would — the
// JS path (epistasisPairs.ts DensePairScorer) spent two thirds of a 2-way run's CPU time there, more than the GEMM —;
// and one call per band (PairBandFinalize.finalizeDenseBand) computes its panels' tallies too and scores them while
// they are in cache, where the GEMM's tallies went through memory between the kernel and the scorer.
import { nativeRecordSelectionOf, tupleRecordSelectionOf, type FinalizeContext, type NativeRecordSelection, type PairBlock, type PairDenseBand } from '../index.js';
import type { BlockGenotypeCounts } from './epistasisFinalize.js';
import type { EpistasisFinalizeSettings } from './epistasisPairs.js';
import { KIND_G0, KIND_G1, planeOf } from './epistasisPlanes.js';
import { k2ScaleOf, LN2 } from './epistasisScores.js';
import { loadNativePairScorer, type NativePairScorer, type NativePanelScores, type NativeScoring } from './native/nativePairScores.js';

/** The scorer and the sink's selection, or null when either is unavailable (then the JS path or the engine's). */
function nativeScoringOf(ctx: FinalizeContext): { readonly scorer: NativePairScorer; readonly selection: NativeRecordSelection; readonly numVector: number } | null {
  const loaded = loadNativePairScorer();
  if (!loaded.available) return null;
  const sinkSelection = tupleRecordSelectionOf(ctx.sink);
  const selection = sinkSelection === null ? null : nativeRecordSelectionOf(sinkSelection);
  if (sinkSelection === null || selection === null) return null;
  return { scorer: loaded.scorer, selection, numVector: sinkSelection.numVector };
}

function scoringOf(settings: EpistasisFinalizeSettings): NativeScoring {
  const { tables } = settings;
  return { score: settings.score, logFactorial: tables.logFactorial, nLogN: tables.nLogN, k2Scale: k2ScaleOf(tables), ln2: LN2 };
}

/** Adds a call's checksum part and records to the sink; its pairs. */
function applyScores(ctx: FinalizeContext, scores: NativePanelScores): number {
  ctx.sink.checksum.merge(scores.checksumLimbs, scores.entries, scores.zeros);
  ctx.sink.addRecordWords(scores.recordWords, scores.numRecords);
  return scores.numPairs;
}

/**
 * Scores the unique pairs of a dense run's `block` natively into `ctx.sink` (checksum part and records); the number
 * of pairs, or null when the native scorer is unavailable or the sink does not hand out its selection (then the JS
 * path scores the block).
 */
export function finalizeDensePairsNatively(
  settings: EpistasisFinalizeSettings, ctx: FinalizeContext, block: PairBlock, tallies: readonly Uint32Array[], counts: BlockGenotypeCounts,
): number | null {
  const native = nativeScoringOf(ctx);
  if (native === null) return null;
  const [controls, cases] = settings.classSizes;
  return applyScores(ctx, native.scorer.scoreDensePairs({
    tallies,
    numCols: block.numCols,
    rowsReal: Math.max(0, Math.min(block.numRows, block.rows.numVectorReal - block.rowFirst)),
    colsReal: Math.max(0, Math.min(block.numCols, block.cols.numVectorReal - block.colFirst)),
    strictUpper: block.strictUpper,
    rowVectorFirst: block.rows.vectorFirst + block.rowFirst,
    colVectorFirst: block.cols.vectorFirst + block.colFirst,
    rowCounts: counts.of(block.rows).subarray(4 * block.rowFirst),
    colCounts: counts.of(block.cols).subarray(4 * block.colFirst),
    controls, cases, numVector: native.numVector,
  }, scoringOf(settings), native.selection));
}

/** The planes of genotype 0 and 1 of controls, then of cases (the band's tallies: pairTermGroups(false)'s products). */
const GENOTYPE_PLANES = Int32Array.of(planeOf(0, KIND_G0), planeOf(0, KIND_G1), planeOf(1, KIND_G0), planeOf(1, KIND_G1));

/**
 * Computes and scores a dense run's `band` natively into `ctx.sink` (pairBands.ts: the same checksum part and records
 * as the GEMM's tallies scored panel by panel; the SNPs' class genotype counts from the planes too); its pairs, or null when the scorer or the sink's selection is
 * unavailable or the blocks' planes are not laid out alike and 8-byte aligned (then the engine computes the band).
 */
export function finalizeDenseBandNatively(
  settings: EpistasisFinalizeSettings, ctx: FinalizeContext, band: PairDenseBand, options: { readonly scalar?: boolean } = {},
): number | null {
  const native = nativeScoringOf(ctx);
  const { rows, cols } = band;
  if (native === null || rows.planes.wordsPerPlane !== cols.planes.wordsPerPlane || rows.planes.numPlanes !== cols.planes.numPlanes) return null;
  if (rows.planes.words.byteOffset % 8 !== 0 || cols.planes.words.byteOffset % 8 !== 0) return null;
  const [controls, cases] = settings.classSizes;
  const panels = new Int32Array(5 * band.panels.length);
  band.panels.forEach(({ rowFirst, numRows, colFirst, numCols, strictUpper }, p) => panels.set([rowFirst, numRows, colFirst, numCols, strictUpper ? 1 : 0], 5 * p));
  return applyScores(ctx, native.scorer.scoreDenseBand({
    rowWords: rows.planes.words, rowNumVectors: rows.planes.numVectors, rowVectorFirst: rows.vectorFirst, rowsReal: rows.numVectorReal,
    colWords: cols.planes.words, colNumVectors: cols.planes.numVectors, colVectorFirst: cols.vectorFirst, colsReal: cols.numVectorReal,
    numPlanes: rows.planes.numPlanes, wordsPerPlane: rows.planes.wordsPerPlane, genotypePlanes: GENOTYPE_PLANES,
    classWords: Int32Array.from(settings.classWords.flat()),
    controls, cases, numVector: native.numVector, panels, scalar: options.scalar === true,
  }, scoringOf(settings), native.selection));
}
