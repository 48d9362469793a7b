// r²'s windowed bands in native code (native/nativeR2Band.ts): one call per band computes the tallies of every pair in
// the window by popcounts on the packed planes, r², the exact checksum part and the records, into the sink — where the
// engine's path (the kernel set's GEMM over window sub-blocks, then finalizeR2Pairs) spent ~25 + ~27 ns a pair.
import { nativeRecordSelectionOf, tupleRecordSelectionOf, type FinalizeContext, type PairWindowBand } from '../index.js';
import { loadNativeR2Addon } from './native/nativeR2Band.js';

/** The uids (j·nv + i)·4 + 3 stay exact doubles on the JS path (and below 2^64 natively) for nv < 2^25. */
const MAX_NUM_VECTOR = 2 ** 25;

/** Records of the calls on this thread, grown as needed (a band's ~1.5 MiB, cache-warm and without page faults). */
let recordScratch = new Uint32Array(0);

/**
 * Computes `band` natively into `ctx.sink`; the pairs in the window, or null when the addon is unavailable or the band
 * or sink is not one it takes (a histogram, a per-entry threshold, planes not 8-byte aligned): then the engine's path.
 */
export function finalizeR2WindowBand(ctx: FinalizeContext, band: PairWindowBand): number | null {
  const loaded = loadNativeR2Addon();
  if (!loaded.available) return null;
  const { rows, cols, window } = band;
  const numVector = window.bandEnd.length;
  if (numVector >= MAX_NUM_VECTOR || rows.planes.numPlanes !== 4 || rows.planes.wordsPerPlane !== cols.planes.wordsPerPlane) return null;
  if (rows.planes.words.byteOffset % 8 !== 0 || cols.planes.words.byteOffset % 8 !== 0) return null;
  const sinkSelection = tupleRecordSelectionOf(ctx.sink, { windowApplied: true });
  const selection = sinkSelection === null ? null : nativeRecordSelectionOf(sinkSelection);
  if (selection === null) return null;
  const panels = new Int32Array(5 * band.panels.length);
  let maxPairs = 0;
  band.panels.forEach(({ rowFirst, numRows, colFirst, numCols, strictUpper }, p) => {
    panels.set([rowFirst, numRows, colFirst, numCols, strictUpper ? 1 : 0], 5 * p);
    maxPairs += numRows * numCols;
  });
  if (selection.writesRecords && recordScratch.length < 3 * maxPairs) recordScratch = new Uint32Array(Math.max(3 * maxPairs, 2 * recordScratch.length));
  const outcome = loaded.addon.r2WindowBand({
    rowWords: rows.planes.words, rowNumVectors: rows.planes.numVectors, rowVectorFirst: rows.vectorFirst, rowsReal: rows.numVectorReal,
    colWords: cols.planes.words, colNumVectors: cols.planes.numVectors, colVectorFirst: cols.vectorFirst, colsReal: cols.numVectorReal,
    wordsPerPlane: rows.planes.wordsPerPlane, numVector,
    bandBegin: window.bandBegin, bandEnd: window.bandEnd, chrBegin: window.chrBegin, chrEnd: window.chrEnd, interChr: window.spec.interChr,
    panels,
  }, selection, recordScratch);
  ctx.sink.checksum.merge(outcome.checksumLimbs, outcome.entries, outcome.zeros);
  ctx.sink.addRecordWords(recordScratch, outcome.numRecords);
  return outcome.numPairs;
}
