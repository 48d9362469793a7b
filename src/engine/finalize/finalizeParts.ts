// How host finalize cuts its work into pool tasks: a panel of pairs into row ranges, a run of j-slices into slice
// ranges, a quad tile into row ranges, each of about a given number of tuples (hostFinalizer.ts combines the tasks'
// outcomes in this order).
import type { PairBlock, QuadTileView } from '../../analyses/index.js';
import type { QuadTileRun, TripleSliceRun } from './finalizeTasks.js';

/** Tasks per thread a panel or batch is cut into between the bounds (hostFinalizer.ts): threads that finish early find work. */
const TASKS_PER_THREAD = 4;

/** Tuples per task of a panel or batch of `numTuples` on `numThreads` threads, within [least, most]. */
export function tuplesPerTask(numTuples: number, numThreads: number, least: number, most: number): number {
  return Math.max(least, Math.min(most, Math.ceil(numTuples / (TASKS_PER_THREAD * numThreads))));
}

/** Pairs of row `r` of a panel: on the diagonal block (strictUpper) only those right of the diagonal. */
export function pairsOfRow(block: PairBlock, r: number): number {
  return block.strictUpper ? Math.max(0, block.numCols - Math.max(0, r + 1 + block.rowFirst - block.colFirst)) : block.numCols;
}

export function pairsOfPanel(block: PairBlock): number {
  let numPairs = 0;
  for (let r = 0; r < block.numRows; r++) numPairs += pairsOfRow(block, r);
  return numPairs;
}

/** Consecutive row ranges [r0, r1) of a panel of about `pairsPerPart` pairs each (a diagonal tile's rows shrink). */
export function* rowParts(block: PairBlock, pairsPerPart: number): Generator<{ r0: number; r1: number }> {
  let r0 = 0;
  let numPairs = 0;
  for (let r = 0; r < block.numRows; r++) {
    numPairs += pairsOfRow(block, r);
    if (numPairs >= pairsPerPart || r === block.numRows - 1) {
      yield { r0, r1: r + 1 };
      r0 = r + 1;
      numPairs = 0;
    }
  }
}

/** Rows [r0, r1) of a panel, with their tallies (row-major, numCols each). */
export function panelRows(block: PairBlock, tallies: readonly Uint32Array[], r0: number, r1: number): { block: PairBlock; tallies: Uint32Array[] } {
  return {
    block: { ...block, rowFirst: block.rowFirst + r0, numRows: r1 - r0 },
    tallies: tallies.map((t) => t.subarray(r0 * block.numCols, r1 * block.numCols)),
  };
}

/** Consecutive slice ranges [first, end) of `run` of about `perPart` triples each. */
export function* sliceParts(run: TripleSliceRun, perPart: number): Generator<{ first: number; end: number; numTriples: number }> {
  let first = 0;
  let numTriples = 0;
  for (let s = 0; s < run.slices.length; s++) {
    numTriples += run.slices[s].numI * run.slices[s].numK;
    if (numTriples >= perPart || s === run.slices.length - 1) {
      yield { first, end: s + 1, numTriples };
      first = s + 1;
      numTriples = 0;
    }
  }
}

/** Quadruples of row `r` of a quad tile: its columns with k > j (columns are k-major, so a suffix). */
export function quadsOfRow(tile: QuadTileView, r: number): number {
  const { colK } = tile;
  const j = tile.rowJ[r];
  let lo = 0, hi = colK.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (colK[mid] <= j) lo = mid + 1;
    else hi = mid;
  }
  return colK.length - lo;
}

/** Consecutive row ranges [r0, r1) of a quad tile of about `perPart` quadruples each (rows with none join a range). */
export function* quadRowParts(tile: QuadTileView, perPart: number): Generator<{ r0: number; r1: number; numQuads: number }> {
  let r0 = 0;
  let numQuads = 0;
  const numRows = tile.rowI.length;
  for (let r = 0; r < numRows; r++) {
    numQuads += quadsOfRow(tile, r);
    if (numQuads >= perPart || r === numRows - 1) {
      yield { r0, r1: r + 1, numQuads };
      r0 = r + 1;
      numQuads = 0;
    }
  }
}

/** Rows [r0, r1) of a quad tile, with their tallies (row-major). */
export function quadTileRows(run: QuadTileRun, r0: number, r1: number): QuadTileRun {
  const { tile } = run;
  const numCols = tile.colK.length, numVectorCols = tile.numVectorCols;
  return {
    tile: { ...tile, rowI: tile.rowI.subarray(r0, r1), rowJ: tile.rowJ.subarray(r0, r1) },
    tallies: run.tallies.map((t) => t.subarray(r0 * numCols, r1 * numCols)),
    vectorTallies: run.vectorTallies?.map((t) => t.subarray(r0 * numVectorCols, r1 * numVectorCols)) ?? null,
  };
}
