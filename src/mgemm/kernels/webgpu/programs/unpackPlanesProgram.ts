// Program factory: rows of bit planes that crossed to the device packed — per row, each plane's words [first, end)
// one after another (PlaneMatrix.planeWordRanges: outside them the plane is zero) — written out whole. Word w of plane
// p of row r is its packed word when first_p ≤ w < end_p and zero otherwise, so the operand is the host's matrix word
// for word (the buffer's zero initialization is not relied on). One thread per word written.

import type { PlaneMatrix, PlaneWordRange } from '../../../contract.js';
import type { WgslProgram } from './wgslProgram.js';

/** Threads per workgroup (a 1-D grid folded into x and y). */
export const UNPACK_WORKGROUP = 256;

/** Rows of `numPlanes` planes of `wordsPerPlane` words, of which plane p is sent as its words `ranges[p]`. */
export interface PackedPlaneRows {
  readonly numPlanes: number;
  readonly wordsPerPlane: number;
  readonly ranges: readonly PlaneWordRange[];
}

/**
 * The packed form of rows of this shape: its planes' word ranges (PlaneMatrix.planeWordRanges, a null one the whole
 * plane), or null when whole rows go instead: no ranges, or ranges that leave out less than a quarter of a row
 * (packing and unpacking would cost more than the words saved).
 */
export function packedPlaneRowsOf(shape: Pick<PlaneMatrix, 'numPlanes' | 'wordsPerPlane' | 'planeWordRanges'>): PackedPlaneRows | null {
  const given = shape.planeWordRanges ?? null;
  if (given === null) return null;
  const { numPlanes, wordsPerPlane } = shape;
  const ranges = Array.from({ length: numPlanes }, (_, p): PlaneWordRange => {
    const range = given[p] ?? null;
    if (range === null) return [0, wordsPerPlane];
    const first = Math.min(Math.max(0, range[0]), wordsPerPlane);
    return [first, Math.min(Math.max(first, range[1]), wordsPerPlane)];
  });
  const packed: PackedPlaneRows = { numPlanes, wordsPerPlane, ranges };
  return 4 * packedRowWords(packed) > 3 * numPlanes * wordsPerPlane ? null : packed;
}

/** Words of one packed row: the planes' ranges one after another. */
export function packedRowWords(rows: PackedPlaneRows): number {
  return rows.ranges.reduce((sum, [first, end]) => sum + (end - first), 0);
}

/**
 * Uniforms: `rowFirst` (the first row written, in the target), `numRows` (rows in `src`, packed from its word 0),
 * `numWorkgroupsX` (the folded grid's width).
 */
export function createUnpackPlanesProgram(rows: PackedPlaneRows): WgslProgram {
  const { numPlanes, wordsPerPlane, ranges } = rows;
  if (ranges.length !== numPlanes) throw new RangeError(`${ranges.length} ranges for ${numPlanes} planes`);
  const offsets: number[] = [];
  let offset = 0;
  for (const [first, end] of ranges) {
    if (!(first >= 0 && first <= end && end <= wordsPerPlane)) throw new RangeError(`range [${first}, ${end}) outside a plane of ${wordsPerPlane} words`);
    offsets.push(offset);
    offset += end - first;
  }
  const list = (values: readonly number[]): string => `array<u32, ${numPlanes}>(${values.map((v) => `${v}u`).join(', ')})`;
  return {
    cacheKey: `unpackPlanes:${numPlanes}:${wordsPerPlane}:${ranges.map(([first, end]) => `${first}-${end}`).join('.')}`,
    workgroupSize: [UNPACK_WORKGROUP, 1],
    storage: [
      { name: 'src', access: 'read', elementType: 'u32' },
      { name: 'dst', access: 'read_write', elementType: 'u32' },
    ],
    uniforms: [{ name: 'rowFirst', type: 'u32' }, { name: 'numRows', type: 'u32' }, { name: 'numWorkgroupsX', type: 'u32' }],
    extensions: [],
    declarations: [
      `const WORDS_PER_PLANE = ${wordsPerPlane}u;`,
      `const ROW_WORDS = ${numPlanes * wordsPerPlane}u;`,
      `const PACKED_ROW_WORDS = ${offset}u;`,
      `var<private> rangeFirst: array<u32, ${numPlanes}> = ${list(ranges.map(([first]) => first))};`,
      `var<private> rangeEnd: array<u32, ${numPlanes}> = ${list(ranges.map(([, end]) => end))};`,
      `var<private> packedOffset: array<u32, ${numPlanes}> = ${list(offsets)};`,
    ].join('\n'),
    mainBody: `  let id = (wg.y * u.numWorkgroupsX + wg.x) * ${UNPACK_WORKGROUP}u + li;
  if (id >= u.numRows * ROW_WORDS) { return; }
  let row = id / ROW_WORDS;
  let q = id % ROW_WORDS;
  let p = q / WORDS_PER_PLANE;
  let w = q % WORDS_PER_PLANE;
  var v = 0u;
  if (w >= rangeFirst[p] && w < rangeEnd[p]) {
    v = src[row * PACKED_ROW_WORDS + packedOffset[p] + (w - rangeFirst[p])];
  }
  dst[(u.rowFirst + row) * ROW_WORDS + q] = v;`,
  };
}
