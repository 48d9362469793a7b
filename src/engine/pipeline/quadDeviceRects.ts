// The requests of a rank's 4-way tiles on the device: rectangles of row pairs × column pairs much larger than the quad
// plan's tiles (a GPU GEMM runs at its rate only on many workgroup tiles), made of whole tiles of the rank's part, so
// that the plan's decomposition, and each rank's quadruples, stay the same on every backend.
//
// A rank's tiles are a run of the plan's order: per row band (the tiles of one rowFirst, consecutive columns up to the
// last column pair, except perhaps the rank's last band) and bands in order. Consecutive bands that reach the last
// column pair merge into one rectangle from the first band's first column: a later band starts at or after it, and its
// cells left of its own first tile have k ≤ j (the plan dropped those tiles as holding no quadruple), which the device
// skips. A band wider than a request is cut into runs of whole tiles.
import { quadsOfTile, type QuadTile } from '../../parallel/index.js';

/** A device request: row pairs [rowFirst, rowEnd) × column pairs [colFirst, colEnd), and the plan tiles it holds. */
export interface QuadDeviceRect {
  readonly rowFirst: number;
  readonly rowEnd: number;
  readonly colFirst: number;
  readonly colEnd: number;
  readonly tiles: readonly QuadTile[];
}

/** How rectangles are cut. */
export interface QuadDeviceRectOptions {
  /** Column pairs of the run (the plan's last column pair + 1). */
  readonly numPairs: number;
  /** Most pairs (rows × columns) of a rectangle; a single tile may have more. */
  readonly maxPairs: number;
  /** The plan's tile width (column pairs), which cuts of a wide band follow. */
  readonly colsPerTile: number;
  /** Put the first tile in a rectangle of its own (a top-N run: its records set the bar for the requests after it). */
  readonly firstTileAlone: boolean;
}

/** Rectangles covering exactly `tiles` (the rank's tiles in plan order), in plan order. */
export function quadDeviceRects(tiles: readonly QuadTile[], options: QuadDeviceRectOptions): QuadDeviceRect[] {
  const rects: QuadDeviceRect[] = [];
  let rest = tiles;
  if (options.firstTileAlone && tiles.length > 0) {
    rects.push(rectOf([tiles[0]]));
    rest = tiles.slice(1);
  }
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
