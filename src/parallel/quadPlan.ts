// The 4-way plan: every quadruple i < j < k < l once, as a row pair (i, j) against a column pair (k, l) with j < k.
// Row pairs are ordered by j then i, column pairs by k then l, so the valid cells (j < k) of the pair × pair matrix
// form a staircase; the matrix is cut into tiles of pairs, tiles with no valid cell are dropped, and the rest are
// split among ranks × phases × stages in contiguous runs of about equal work. Vectors are not distributed: every rank
// reads all of them (4-way data are small: the work grows as nv^4, the data as nv).
import { UserError } from '../core/errors.js';

/** A tile: row pairs [rowFirst, rowEnd) (j-major order) × column pairs [colFirst, colEnd) (k-major order). */
export interface QuadTile {
  readonly rowFirst: number;
  readonly rowEnd: number;
  readonly colFirst: number;
  readonly colEnd: number;
}

/** What the plan cuts: the vectors, the tile shape, and the part (rank, phase, stage) asked for. */
export interface QuadPlanInput {
  readonly numVector: number;
  readonly rowsPerTile: number;
  readonly colsPerTile: number;
  /** Parts: ranks × phases × stages; the part of (rank, phase, stage) is quadPartIndex's. */
  readonly numPart: number;
  readonly partIdx: number;
}

/** Most vectors of a 4-way run: SPEC §5's uid of a quadruple, nv^4, stays below 2^53. */
export const MAX_QUAD_VECTORS = 9000;

/** Number of pairs of `numVector` vectors. */
export function numPairs(numVector: number): number {
  return (numVector * (numVector - 1)) / 2;
}

/** Row pair index of (i, j), i < j, in j-major order: j(j−1)/2 + i. */
export function rowPairIndex(i: number, j: number): number {
  return (j * (j - 1)) / 2 + i;
}

/** First column pair index of first vector k in k-major order: the pairs (k', l) with k' < k come before. */
export function firstColPairOf(numVector: number, k: number): number {
  return k * numVector - (k * (k + 1)) / 2;
}

/** (i, j) of each row pair of [first, end): `i[r]`, `j[r]` for r = index − first. */
export function rowPairsOf(first: number, end: number): { readonly i: Int32Array; readonly j: Int32Array } {
  const i = new Int32Array(end - first);
  const j = new Int32Array(end - first);
  let jj = rowPairJ(first);
  for (let index = first; index < end; index++) {
    if (index >= rowPairIndex(0, jj + 1)) jj++;
    j[index - first] = jj;
    i[index - first] = index - rowPairIndex(0, jj);
  }
  return { i, j };
}

/** (k, l) of each column pair of [first, end) of `numVector` vectors. */
export function colPairsOf(numVector: number, first: number, end: number): { readonly k: Int32Array; readonly l: Int32Array } {
  const k = new Int32Array(end - first);
  const l = new Int32Array(end - first);
  let kk = 0;
  // The first k whose pairs reach past `first` (binary search: firstColPairOf is increasing in k).
  let hi = numVector - 1;
  while (kk < hi) {
    const mid = (kk + hi + 1) >> 1;
    if (firstColPairOf(numVector, mid) <= first) kk = mid;
    else hi = mid - 1;
  }
  for (let index = first; index < end; index++) {
    while (index >= firstColPairOf(numVector, kk + 1)) kk++;
    k[index - first] = kk;
    l[index - first] = kk + 1 + index - firstColPairOf(numVector, kk);
  }
  return { k, l };
}

/** The j of row pair `index` (j-major order). */
export function rowPairJ(index: number): number {
  let j = Math.floor((1 + Math.sqrt(1 + 8 * index)) / 2);
  while (rowPairIndex(0, j) > index) j--;
  while (rowPairIndex(0, j + 1) <= index) j++;
  return j;
}

/** Unique quadruples of a tile: per row pair (i, j) the column pairs with k > j (rows of one j at a time). */
export function quadsOfTile(numVector: number, tile: QuadTile): number {
  let count = 0;
  for (let j = rowPairJ(tile.rowFirst), first = tile.rowFirst; first < tile.rowEnd; j++) {
    const end = Math.min(tile.rowEnd, rowPairIndex(0, j + 1));
    count += (end - first) * Math.max(0, tile.colEnd - Math.max(tile.colFirst, firstColPairOf(numVector, j + 1)));
    first = end;
  }
  return count;
}

/** Every tile with a valid cell, in order (row tiles outer), with its work (unique quadruples). */
export function quadTiles(numVector: number, rowsPerTile: number, colsPerTile: number): { readonly tile: QuadTile; readonly work: number }[] {
  const total = numPairs(numVector);
  const tiles: { tile: QuadTile; work: number }[] = [];
  for (let rowFirst = 0; rowFirst < total; rowFirst += rowsPerTile) {
    const rowEnd = Math.min(total, rowFirst + rowsPerTile);
    // Columns with k > the tile's smallest j: earlier columns have no valid cell.
    const colStart = firstColPairOf(numVector, rowPairJ(rowFirst) + 1);
    for (let colFirst = Math.floor(colStart / colsPerTile) * colsPerTile; colFirst < total; colFirst += colsPerTile) {
      const tile = { rowFirst, rowEnd, colFirst, colEnd: Math.min(total, colFirst + colsPerTile) };
      const work = quadsOfTile(numVector, tile);
      if (work > 0) tiles.push({ tile, work });
    }
  }
  return tiles;
}

/** Part of (rank, phase, stage): ranks outer, then phases, then stages. */
export function quadPartIndex(rank: number, numPhase: number, phaseIdx: number, numStage: number, stageIdx: number): number {
  return (rank * numPhase + phaseIdx) * numStage + stageIdx;
}

/**
 * The tiles of part `partIdx` of `numPart`: the tiles whose work starts in the part's share [W·p/P, W·(p+1)/P) of
 * the total work W, so parts are contiguous runs and every tile belongs to exactly one part.
 */
export function quadPlan(input: QuadPlanInput): QuadTile[] {
  const { numVector, numPart, partIdx } = input;
  if (numVector < 4) throw new UserError(`4-way needs at least 4 vectors (got ${numVector})`);
  if (numVector > MAX_QUAD_VECTORS) throw new UserError(`4-way takes at most ${MAX_QUAD_VECTORS} vectors (got ${numVector}): a quadruple's checksum uid would pass 2^53`);
  if (!Number.isSafeInteger(partIdx) || partIdx < 0 || partIdx >= numPart) throw new RangeError(`part ${partIdx} of ${numPart}`);
  const tiles = quadTiles(numVector, input.rowsPerTile, input.colsPerTile);
  const total = tiles.reduce((sum, t) => sum + t.work, 0);
  const begin = (total * partIdx) / numPart;
  const end = (total * (partIdx + 1)) / numPart;
  const mine: QuadTile[] = [];
  let before = 0;
  for (const { tile, work } of tiles) {
    if (before >= begin && before < end) mine.push(tile);
    before += work;
  }
  return mine;
}
