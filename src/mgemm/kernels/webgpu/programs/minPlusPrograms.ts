// Program factories of the min-plus kernel set (mgemm/minPlusContract.ts, SPEC §8): the 2-way numerators
// Σ_f min(a, b), the 3-way ones Σ_f ((min(a,b) + min(a,c)) + min(b,c)) − min(a,b,c), and the vector sums Σ_f a,
// in the arithmetic of wgsl/minPlusArithmetic.ts (soft floats, or exact integers for integer-valued operands).
//
// One output per invocation, its fields added one after another in field order (the order §8 fixes); a workgroup
// computes a TILE × TILE tile of one "piece" (a rectangle of the request within one resident chunk per operand,
// listed in the `pieces` table, minplus/minPlusPieces.ts) and stages KC fields of its rows in workgroup memory
// (field-major, so the inner loop reads consecutive words across invocations). Workgroups are numbered over the
// tiles of the dispatch's pieces; each finds its piece by binary search over their first tiles.
// Operands are the chunks' words (array<u32>): value f of chunk row r at word r·rowWords + f·wordsPerValue.
// Output: group-major, `out[g·groupWords + outOffset + r·numCols + c]` = word g of the sum (double: low, high).
import type { ValuePrecision } from '../../../minPlusContract.js';
import { minPlusArithmeticWgsl, valueBitsAt, wordsPerValue, type MinPlusArithmetic } from './wgsl/minPlusArithmetic.js';
import { lastAtMostWgsl } from './wgsl/lastAtMost.js';
import type { UniformField, WgslProgram } from './wgslProgram.js';

/** Rows and columns of a workgroup's tile (one output per invocation). */
export const MIN_PLUS_TILE = 16;
/** Fields staged per step: 2-way stages two operands, 3-way four arrays (x, z, min(x,y), min(y,z)) within 16 KiB. */
const FIELDS_PER_STEP_2 = 32;
const FIELDS_PER_STEP_3 = 16;
/** Threads per workgroup of the vector sums (one row each). */
export const REAL_SUMS_WORKGROUP = 64;

/** Words per piece of a 2-way request: aRow, bRow (chunk rows), numRows, numCols, outOffset, colTiles, tileFirst, rowOrigin, colOrigin. */
export const PIECE2_WORDS = 9;
/** Words per piece of a 3-way request: xRow, yRow, zRow (chunk rows), numRows, numCols, outOffset, colTiles, tileFirst. */
export const PIECE3_WORDS = 8;
const TILE_FIRST_2 = 6;
const TILE_FIRST_3 = 7;

const PIECE_UNIFORMS: readonly UniformField[] = [
  { name: 'pieceFirst', type: 'u32' }, { name: 'numPieces', type: 'u32' }, { name: 'numTiles', type: 'u32' },
  { name: 'numWorkgroupsX', type: 'u32' }, { name: 'rowWords', type: 'u32' }, { name: 'numField', type: 'u32' },
  { name: 'groupWords', type: 'u32' },
];

/** What a min-plus program is made for: the run's precision and the arithmetic of its requests. */
export interface MinPlusProgramKey {
  readonly precision: ValuePrecision;
  readonly arithmetic: MinPlusArithmetic;
}

/** Declarations shared by the 2-way and 3-way programs: arithmetic, tile constants, the piece search. */
function pieceDeclarations(key: MinPlusProgramKey, pieceWords: number, tileFirstWord: number, fieldsPerStep: number): string {
  return [
    minPlusArithmeticWgsl(key.precision, key.arithmetic),
    `const TILE = ${MIN_PLUS_TILE}u;`, `const KC = ${fieldsPerStep}u;`, `const WG = ${MIN_PLUS_TILE * MIN_PLUS_TILE}u;`,
    `const WPV = ${wordsPerValue(key.precision)}u;`, `const PIECE_WORDS = ${pieceWords}u;`,
    lastAtMostWgsl('pieceOf', 'u.numPieces', (i) => `pieces[(u.pieceFirst + ${i}) * PIECE_WORDS + ${tileFirstWord}u]`),
  ].join('\n');
}

/** WGSL: the workgroup's piece `p`, its tile origin (r0, c0); returns early from workgroups past the dispatch's tiles. */
const FIND_TILE = `  let wgIndex = wg.y * u.numWorkgroupsX + wg.x;
  if (wgIndex >= u.numTiles) { return; }
  let p = (u.pieceFirst + pieceOf(wgIndex)) * PIECE_WORDS;`;

/** WGSL: the sum's words at (r, c) of the piece, when inside it. */
const STORE_SUM = (numWords: number): string => `  let r = r0 + lid.y;
  let c = c0 + lid.x;
  if (r < numRows && c < numCols) {
    let bits = mpResultBits(s);
    let o = outOffset + r * numCols + c;
    out[o] = bits.x;${numWords === 2 ? '\n    out[u.groupWords + o] = bits.y;' : ''}
  }`;

function storageOf(operands: readonly string[]): WgslProgram['storage'] {
  return [
    { name: 'pieces', access: 'read', elementType: 'u32' },
    ...operands.map((name) => ({ name, access: 'read' as const, elementType: 'u32' as const })),
    { name: 'out', access: 'read_write', elementType: 'u32' },
  ];
}

/** The 2-way numerators of the pieces of one dispatch (A and B: one chunk each). */
export function createMinPlus2Program(key: MinPlusProgramKey): WgslProgram {
  const load = (buffer: string, row: string): string => `mpFromBits(${valueBitsAt(key.precision, buffer, `(${row}) * u.rowWords + f * WPV`)})`;
  return {
    cacheKey: `minPlus2/${key.precision}/${key.arithmetic}`,
    workgroupSize: [MIN_PLUS_TILE, MIN_PLUS_TILE],
    storage: storageOf(['A', 'B']),
    uniforms: [...PIECE_UNIFORMS, { name: 'strictUpper', type: 'u32' }],
    extensions: [],
    declarations: [
      pieceDeclarations(key, PIECE2_WORDS, TILE_FIRST_2, FIELDS_PER_STEP_2),
      'var<workgroup> As: array<MpValue, TILE * KC>;', 'var<workgroup> Bs: array<MpValue, TILE * KC>;',
    ].join('\n'),
    mainBody: `${FIND_TILE}
  let aRow = pieces[p];
  let bRow = pieces[p + 1u];
  let numRows = pieces[p + 2u];
  let numCols = pieces[p + 3u];
  let outOffset = pieces[p + 4u];
  let t = wgIndex - pieces[p + 6u];
  let r0 = (t / pieces[p + 5u]) * TILE;
  let c0 = (t % pieces[p + 5u]) * TILE;
  // strictUpper: a tile whose every column is at or left of every row (request coordinates) is not needed.
  if (u.strictUpper == 1u && pieces[p + 8u] + c0 + TILE - 1u <= pieces[p + 7u] + r0) { return; }
  var s = MP_ZERO;
  for (var f0 = 0u; f0 < u.numField; f0 += KC) {
    for (var e = li; e < TILE * KC; e += WG) {
      let i = e / KC;
      let f = f0 + e % KC;
      var av = MP_ZERO;
      var bv = MP_ZERO;
      if (f < u.numField && r0 + i < numRows) { av = ${load('A', 'aRow + r0 + i')}; }
      if (f < u.numField && c0 + i < numCols) { bv = ${load('B', 'bRow + c0 + i')}; }
      As[(e % KC) * TILE + i] = av;
      Bs[(e % KC) * TILE + i] = bv;
    }
    workgroupBarrier();
    let kEnd = min(KC, u.numField - f0);
    for (var k = 0u; k < kEnd; k++) {
      s = mpAdd(s, mpMin(As[k * TILE + lid.y], Bs[k * TILE + lid.x]));
    }
    workgroupBarrier();
  }
${STORE_SUM(wordsPerValue(key.precision))}`,
  };
}

/**
 * The 3-way numerators of the pieces of one dispatch (x, y, z: one chunk each). `u.lastMin` says which pairwise min is
 * §8's min(b,c), added last (0: min(x,y), 1: min(x,z), 2: min(y,z); the operands' global order, pairMinOrder); the
 * first addition commutes, so its order within does not matter.
 */
export function createMinPlus3Program(key: MinPlusProgramKey): WgslProgram {
  const load = (buffer: string, row: string): string => `mpFromBits(${valueBitsAt(key.precision, buffer, `(${row}) * u.rowWords + f * WPV`)})`;
  return {
    cacheKey: `minPlus3/${key.precision}/${key.arithmetic}`,
    workgroupSize: [MIN_PLUS_TILE, MIN_PLUS_TILE],
    storage: storageOf(['X', 'Y', 'Z']),
    uniforms: [...PIECE_UNIFORMS, { name: 'lastMin', type: 'u32' }],
    extensions: [],
    declarations: [
      pieceDeclarations(key, PIECE3_WORDS, TILE_FIRST_3, FIELDS_PER_STEP_3),
      'var<workgroup> Xs: array<MpValue, TILE * KC>;', 'var<workgroup> Zs: array<MpValue, TILE * KC>;',
      'var<workgroup> XYs: array<MpValue, TILE * KC>;', 'var<workgroup> YZs: array<MpValue, TILE * KC>;',
    ].join('\n'),
    mainBody: `${FIND_TILE}
  let xRow = pieces[p];
  let yRow = pieces[p + 1u];
  let zRow = pieces[p + 2u];
  let numRows = pieces[p + 3u];
  let numCols = pieces[p + 4u];
  let outOffset = pieces[p + 5u];
  let t = wgIndex - pieces[p + 7u];
  let r0 = (t / pieces[p + 6u]) * TILE;
  let c0 = (t % pieces[p + 6u]) * TILE;
  let last = u.lastMin;
  var s = MP_ZERO;
  for (var f0 = 0u; f0 < u.numField; f0 += KC) {
    for (var e = li; e < TILE * KC; e += WG) {
      let i = e / KC;
      let f = f0 + e % KC;
      var xv = MP_ZERO;
      var yv = MP_ZERO;
      var zv = MP_ZERO;
      if (f < u.numField) { yv = ${load('Y', 'yRow')}; }
      if (f < u.numField && r0 + i < numRows) { xv = ${load('X', 'xRow + r0 + i')}; }
      if (f < u.numField && c0 + i < numCols) { zv = ${load('Z', 'zRow + c0 + i')}; }
      let at = (e % KC) * TILE + i;
      Xs[at] = xv;
      Zs[at] = zv;
      XYs[at] = mpMin(xv, yv);
      YZs[at] = mpMin(yv, zv);
    }
    workgroupBarrier();
    let kEnd = min(KC, u.numField - f0);
    for (var k = 0u; k < kEnd; k++) {
      let z = Zs[k * TILE + lid.x];
      let xy = XYs[k * TILE + lid.y];
      let xz = mpMin(Xs[k * TILE + lid.y], z);
      let yz = YZs[k * TILE + lid.x];
      let bc = select(select(xy, xz, last == 1u), yz, last == 2u);
      let ab = select(xy, xz, last == 0u);
      let ac = select(yz, xz, last == 2u);
      s = mpAdd(s, mpSub(mpAdd(mpAdd(ab, ac), bc), mpMin(xy, z)));
    }
    workgroupBarrier();
  }
${STORE_SUM(wordsPerValue(key.precision))}`,
  };
}

/** Per-row sums Σ_f a in field order (soft arithmetic): out[2·(outRowFirst + row)], + 1 = the sum's IEEE words. */
export function createRealSumsProgram(precision: ValuePrecision): WgslProgram {
  return {
    cacheKey: `realSums/${precision}`,
    workgroupSize: [REAL_SUMS_WORKGROUP, 1],
    storage: [{ name: 'P', access: 'read', elementType: 'u32' }, { name: 'out', access: 'read_write', elementType: 'u32' }],
    uniforms: [
      { name: 'numRows', type: 'u32' }, { name: 'outRowFirst', type: 'u32' }, { name: 'rowWords', type: 'u32' },
      { name: 'numField', type: 'u32' }, { name: 'numWorkgroupsX', type: 'u32' },
    ],
    extensions: [],
    declarations: [minPlusArithmeticWgsl(precision, 'soft'), `const WPV = ${wordsPerValue(precision)}u;`].join('\n'),
    mainBody: `  let row = (wg.y * u.numWorkgroupsX + wg.x) * ${REAL_SUMS_WORKGROUP}u + li;
  if (row >= u.numRows) { return; }
  var s = MP_ZERO;
  for (var f = 0u; f < u.numField; f++) {
    s = mpAdd(s, mpFromBits(${valueBitsAt(precision, 'P', 'row * u.rowWords + f * WPV')}));
  }
  let bits = mpResultBits(s);
  out[2u * (u.outRowFirst + row)] = bits.x;
  out[2u * (u.outRowFirst + row) + 1u] = bits.y;`,
  };
}
