// The requests of a rank's 4-way tiles on the device: rectangles of row pairs × column pairs much larger than the quad
// plan's tiles (a GPU GEMM runs at its rate only on many workgroup tiles), made of whole tiles of the rank's part, so
// that the plan's decomposition, and each rank's quadruples, stay the same on every backend.
//
// A rank's tiles are a run of the plan's order: per row band (the tiles of one rowFirst, consecutive columns up to the
// last column pair, except perhaps the rank's last band) and bands in order. Consecutive bands that reach the last
// column pair merge into one rectangle from the first band's first column: a later band starts at or after it, and its
// cells left of its own first tile have k ≤ j (the plan dropped those tiles as holding no quadruple), which the device
// skips. A band wider than a request is cut into runs of whole tiles. A top-N run starts with a ramp of small
// requests, each run alone, so that the bar the large ones get comes from enough quadruples (pipeline2.ts's ramp).
import { quadsOfTile, type QuadTile } from '../../parallel/index.js';

/** A device request: row pairs [rowFirst, rowEnd) × column pairs [colFirst, colEnd), and the plan tiles it holds. */
export interface QuadDeviceRect {
  readonly rowFirst: number;
  readonly rowEnd: number;
  readonly colFirst: number;
  readonly colEnd: number;
  readonly tiles: readonly QuadTile[];
  /** A head of a top-N run's ramp: finished before the next request starts, whose bar it tightens. */
  readonly rampHead?: boolean;
}

/** How rectangles are cut. */
export interface QuadDeviceRectOptions {
  /** Column pairs of the run (the plan's last column pair + 1). */
  readonly numPairs: number;
  /** Most pairs (rows × columns) of a rectangle; a single tile may have more. */
  readonly maxPairs: number;
  /** The plan's tile width (column pairs), which cuts of a wide band follow. */
  readonly colsPerTile: number;
  /** Vectors of the run (to count a tile's quadruples). */
  readonly numVector: number;
  /**
   * A top-N run's ramp: the first requests hold at least these many quadruples each, in order (whole tiles of one band
   * each, so a head may take several requests), and run alone; empty for other runs. The first head's records set
   * the bar; a tile near the plan's start can hold a handful of quadruples, too few to bar anything.
   */
  readonly rampHeadQuads: readonly number[];
}

/** Rectangles covering exactly `tiles` (the rank's tiles in plan order), in plan order. */
export function quadDeviceRects(tiles: readonly QuadTile[], options: QuadDeviceRectOptions): QuadDeviceRect[] {
  const rects: QuadDeviceRect[] = [];
  let next = 0;
  for (const target of options.rampHeadQuads) {
    for (let quads = 0; quads < target && next < tiles.length;) {
      const first = next;
      const fits = (tile: QuadTile): boolean =>
        tile.rowFirst === tiles[first].rowFirst && (tile.rowEnd - tile.rowFirst) * (tile.colEnd - tiles[first].colFirst) <= options.maxPairs;
      while (next < tiles.length && quads < target && (next === first || fits(tiles[next]))) {
        quads += quadsOfTile(options.numVector, tiles[next]);
        next++;
      }
      rects.push({ ...rectOf(tiles.slice(first, next)), rampHead: true });
    }
  }
  const rest = tiles.slice(next);
  let group: QuadDeviceRect[] = [];
  const flush = (): void => {
    if (group.length === 0) return;
    const first = group[0];
    const last = group[group.length - 1];
    const rect = { rowFirst: first.rowFirst, rowEnd: last.rowEnd, colFirst: first.colFirst, colEnd: first.colEnd, tiles: group.flatMap((b) => b.tiles) };
    rects.push(...cutWide(rect, options));
    group = [];
  };
  for (const band of bandsOf(rest)) {
    const head = group[0];
    const rows = group.length === 0 ? 0 : group[group.length - 1].rowEnd - head.rowFirst;
    const joins = head !== undefined && head.colEnd === options.numPairs && band.colEnd === options.numPairs && head.colFirst <= band.colFirst &&
      (rows + band.rowEnd - band.rowFirst) * (options.numPairs - head.colFirst) <= options.maxPairs;
    if (!joins) flush();
    group.push(band);
  }
  flush();
  return rects;
}

/** A run's column pairs [colFirst, colEnd) whose pair planes are built and held at once, and its tiles. */
export interface QuadColumnChunk {
  readonly colFirst: number;
  readonly colEnd: number;
  /** The tiles whose columns lie in the chunk, in plan order. */
  readonly tiles: readonly QuadTile[];
}

/**
 * `tiles` (a rank's, in plan order, columns on the plan's grid of `colsPerTile`) grouped by column chunks of at most
 * `maxCols` column pairs (whole tiles; at least one tile wide) from the tiles' first column, chunks without a tile
 * left out: the column-pair planes of a chunk are built once for all its tiles.
 */
export function quadColumnChunks(tiles: readonly QuadTile[], options: { readonly colsPerTile: number; readonly maxCols: number; readonly numPairs: number }): QuadColumnChunk[] {
  if (tiles.length === 0) return [];
  const { colsPerTile, numPairs } = options;
  const colBase = tiles.reduce((least, tile) => Math.min(least, tile.colFirst), numPairs);
  const width = Math.max(1, Math.floor(options.maxCols / colsPerTile)) * colsPerTile;
  const byChunk = new Map<number, QuadTile[]>();
  for (const tile of tiles) {
    const chunk = Math.floor((tile.colFirst - colBase) / width);
    if (tile.colEnd > colBase + (chunk + 1) * width) throw new Error(`quad tile columns [${tile.colFirst}, ${tile.colEnd}) off the grid of ${colsPerTile}`);
    const list = byChunk.get(chunk) ?? [];
    list.push(tile);
    byChunk.set(chunk, list);
  }
  return [...byChunk.entries()].sort(([a], [b]) => a - b).map(([chunk, chunkTiles]) => {
    const colFirst = colBase + chunk * width;
    return { colFirst, colEnd: Math.min(numPairs, colFirst + width), tiles: chunkTiles };
  });
}

/** Quadruples of a rectangle: those of its tiles (its other cells have k ≤ j). */
export function quadsOfRect(numVector: number, rect: QuadDeviceRect): number {
  return rect.tiles.reduce((sum, tile) => sum + quadsOfTile(numVector, tile), 0);
}

/** The bands of a run of tiles: consecutive tiles of one rowFirst, as one rectangle each. */
function bandsOf(tiles: readonly QuadTile[]): QuadDeviceRect[] {
  const bands: QuadDeviceRect[] = [];
  let first = 0;
  for (let t = 1; t <= tiles.length; t++) {
    if (t < tiles.length && tiles[t].rowFirst === tiles[first].rowFirst) continue;
    bands.push(rectOf(tiles.slice(first, t)));
    first = t;
  }
  return bands;
}

/** The rectangle of tiles of one band. */
function rectOf(tiles: readonly QuadTile[]): QuadDeviceRect {
  const first = tiles[0];
  return { rowFirst: first.rowFirst, rowEnd: first.rowEnd, colFirst: first.colFirst, colEnd: tiles[tiles.length - 1].colEnd, tiles };
}

/** A rectangle of more than maxPairs (a single band, as merging stops short of it) cut into runs of whole tiles. */
function cutWide(rect: QuadDeviceRect, options: QuadDeviceRectOptions): QuadDeviceRect[] {
  const rows = rect.rowEnd - rect.rowFirst;
  if (rows * (rect.colEnd - rect.colFirst) <= options.maxPairs || rect.tiles.some((t) => t.rowFirst !== rect.rowFirst)) return [rect];
  const width = Math.max(1, Math.floor(options.maxPairs / rows / options.colsPerTile)) * options.colsPerTile;
  const cuts: QuadDeviceRect[] = [];
  for (let colFirst = rect.colFirst; colFirst < rect.colEnd; colFirst += width) {
    const colEnd = Math.min(rect.colEnd, colFirst + width);
    cuts.push({ ...rect, colFirst, colEnd, tiles: rect.tiles.filter((t) => t.colFirst >= colFirst && t.colFirst < colEnd) });
  }
  return cuts;
}
