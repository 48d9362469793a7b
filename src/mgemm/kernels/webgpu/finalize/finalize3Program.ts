// Program factory of 3-way finalize on the device: tallies of the slices' rectangles of an mGEMM3 sub-block (where
// the GEMM left them) → r_abc of the eight entries by inclusion–exclusion (exact u32) → the SPEC §3 values in soft double
// (wgsl/softDouble.ts; the operations of src/engine/finalize3.ts and core/formulas.ts combine3, bit for bit)
// → threshold (core/thresholds.ts on float32 bits) → exact checksum partial sums (core/checksum.ts
// tripleRowWeights: rv·iv in 128-bit integers) and appended records.
//
// One dispatch finalizes one sub-block of a stacked GEMM (sliceStacks.ts): a table of rectangles, one per slice
// the sub-block holds rows of (FINALIZE3_RECT_FIELDS, FINALIZE3_RECT_WORDS words each, in `sliceWords` at
// rectsFirst). Each workgroup (16 × 16 threads) walks the tiles of TILE × TILE triples of all rectangles (2 × 2
// per thread), grid-stride, finding a tile's rectangle by binary search of the rectangles' first tiles; so a
// dispatch needs at most FINALIZE3_MAX_WORKGROUPS partials, in 2-way finalize's layout (finalize2Program.ts):
// [S as 4 words, entries, zeros, 0, 0] each, and the same status words [records appended, needs-host flag].
// Tally layout: group g, row r, column c of a rectangle at g·groupWords + tallyFirst + r·rowStride + c.
// `sliceWords` holds the request's finalize words (tripleFinalizeWebgpu.ts requestFinalizeWords): per-vector
// words (mgemm/tripleFinalize.ts) of the rows, j and the columns, and, dense, T[ccm] of each row and T[mcc] of
// each column, at a rectangle's offsets; then the rectangle tables. `pairIK` is the dense block-pair matrix of
// T[cmc]. A passing entry outside
// [0, 16) sets status[1]: the host then finalizes the request (all its slices) itself, as the CPU path would
// (error included).

import { TRIPLE_VECTOR_WORDS } from '../../../tripleFinalize.js';
import { FINALIZE2_PARTIAL_WORDS } from './finalize2Program.js';
import { CHECKSUM_TERMS_PER_FOLD, checksumPartialDeclarations, checksumPartialWgsl, checksumWeightWgsl, FLOAT32_THRESHOLD_WGSL } from '../programs/wgsl/exactChecksum.js';
import { lastAtMostWgsl } from '../programs/wgsl/lastAtMost.js';
import { SOFT_DOUBLE_WGSL } from '../programs/wgsl/softDouble.js';
import type { WgslProgram } from '../programs/wgslProgram.js';

/**
 * Triples per side of one tile: 2 × 2 triples (32 entries) per thread, about half of finalize2's 64 entries per
 * thread since each 3-way entry costs one soft multiply more. Not tuned on a GPU yet.
 */
export const FINALIZE3_TILE = 32;
/**
 * Workgroups of one dispatch at most (each loops over tiles): a request holds a few sub-blocks and the engine makes
 * hundreds of requests per unit, so per-tile partials would make the read-back large; 1024 workgroups still fill a large GPU.
 */
export const FINALIZE3_MAX_WORKGROUPS = 1024;

const THREADS_PER_SIDE = 16;
const TRIPLES_PER_THREAD_SIDE = FINALIZE3_TILE / THREADS_PER_SIDE;
// A thread folds its checksum columns after each tile.
if (TRIPLES_PER_THREAD_SIDE ** 2 * 8 > CHECKSUM_TERMS_PER_FOLD) throw new Error('finalize3: more checksum terms per tile than a fold takes');

/** Threshold kinds as the uniform `thresholdKind` carries them. */
export const FINALIZE3_THRESHOLD_KIND = { none: 0, single: 1, multi3: 2 } as const;

/**
 * Fields of one rectangle in the table, in order (Finalize3Rect). A rectangle's tiles are numbered from tileFirst
 * on (the tiles of the rectangles before it), tilesX per row of tiles.
 */
export const FINALIZE3_RECT_FIELDS = [
  'tileFirst', 'tilesX',
  // Rectangle shape and where its tallies lie in each group.
  'numRows', 'numCols', 'tallyFirst',
  // Slice row / column of rectangle row / column 0, and the slice's rows and columns (a run3 request's slice
  // is what the names call the request); record keys of the slice start at keyFirst (its first triple · 8).
  'rowFirst', 'colFirst', 'requestRows', 'requestCols', 'keyFirst',
  // Global vector indices of slice row 0, of j and of slice column 0.
  'iVectorFirst', 'jVectorGlobal', 'kVectorFirst',
  // Dense T[cmc]: the block-pair matrix's row / column of slice row / column 0.
  'ikRowFirst', 'ikColFirst',
  // Word offsets in sliceWords of the slice's row 0, j, column 0 and pair counts.
  'rowWordsFirst', 'jWordsFirst', 'colWordsFirst', 'pairWordsFirst',
] as const;

/** Words of one rectangle in the table (its fields, padded to a multiple of 4). */
export const FINALIZE3_RECT_WORDS = Math.ceil(FINALIZE3_RECT_FIELDS.length / 4) * 4;

/** A rectangle's table fields, by name. */
export type Finalize3Rect = Record<(typeof FINALIZE3_RECT_FIELDS)[number], number>;

const UNIFORMS = [
  // The sub-block's tally layout.
  'rowStride', 'groupWords',
  // The rectangle table: where in sliceWords, how many rectangles, their tiles in all.
  'rectsFirst', 'numRects', 'numTiles',
  // nv mod 714025 for checksum uids; dense T[cmc]: row stride of the block-pair matrix.
  'numVectorMod', 'ikStride',
  // The dispatch width, and the index of its first partial.
  'numWorkgroups', 'partialFirst',
  'thresholdKind', 'threshold0', 'threshold1', 'threshold2', 'threshold3', 'threshold4',
  'writeRecords', 'recordCapacity',
  // SPEC §3 constants: C, m, and doubles as (lo, hi) bits.
  'countedBits', 'numField', 'multLo', 'multHi', 'rsumLo', 'rsumHi',
] as const;

/** Uniform values of one dispatch, by name. */
export type Finalize3Uniforms = Record<(typeof UNIFORMS)[number], number>;

/** WGSL of the eight tallies T[uvw] (index 4u + 2v + w) of one triple: dense from pair counts and sums, sparse from the GEMM. */
function tripleTalliesWgsl(sparse: boolean): string {
  if (sparse) {
    // Term groups compute T[7], T[6], …, T[0] in this order (src/engine/tallyLayout.ts tally3Plan).
    return `
fn tripleTallies(t: u32, rq: u32, cq: u32) -> array<u32, 8> {
  var T: array<u32, 8>;
  for (var g = 0u; g < 8u; g++) { T[7u - g] = tallies[g * u.groupWords + t]; }
  return T;
}`;
  }
  return `
fn tripleTallies(t: u32, rq: u32, cq: u32) -> array<u32, 8> {
  let pairs = R.pairWordsFirst;
  return array<u32, 8>(
    u.numField,
    sliceWords[COL_VECTORS + cq * VW],
    sliceWords[J_VECTOR],
    sliceWords[pairs + R.requestRows + cq],
    sliceWords[ROW_VECTORS + rq * VW],
    pairIK[(R.ikRowFirst + rq) * u.ikStride + R.ikColFirst + cq],
    sliceWords[pairs + rq],
    tallies[t]);
}`;
}

/**
 * WGSL of the single-threshold screen: an f32 estimate of a triple's eight values decides, before any soft-double
 * work, that none of them can pass. The estimate takes the factors truncated to f32 (relative error < 2^-23
 * each: rsum, mult, three g's; sparse rsum is an f32 division, 2.5 ulp), r rounded to f32 (2^-24) and five f32
 * products (2^-24 each): about 2^-20 from the exact value at most, with its sign. A value passes only if
 * fround(v) > T (T = threshold0 as f32), so when every estimate is below T·(1 − 2^-15) — a margin 32 times
 * that error — every v ≤ T: the triple is skipped, as the exact path would have rejected each entry. Factors
 * outside f32's normal range (or a NaN estimate) let the triple through to the exact path.
 */
function screenWgsl(sparse: boolean): string {
  const rsum = sparse
    ? `  if (sliceWords[ROW_VECTORS + rq * VW + 1u] == 0u || sliceWords[J_VECTOR + 1u] == 0u || sliceWords[COL_VECTORS + cq * VW + 1u] == 0u) { return false; }
  let cijk = r[0] + r[1] + r[2] + r[3] + r[4] + r[5] + r[6] + r[7];
  if (cijk == 0u) { return false; }
  let rsum = 1.0 / f32(cijk);`
    : `  let rsum = RSUM_F32;`;
  return `
/** A double truncated to f32 (relative error < 2^-23); out of f32's normal range it clears SCREEN_EXACT. */
fn sdToF32Truncated(d: vec2<u32>) -> f32 {
  if (sdIsZero(d)) { return 0.0; }
  let e = i32(sdExp(d)) - 896;
  if (e < 1 || e > 254) { SCREEN_EXACT = false; return 0.0; }
  return bitcast<f32>((d.y & SD_SIGN) | (u32(e) << 23u) | ((d.y & 0xfffffu) << 3u) | (d.x >> 29u));
}

/** Whether any entry of the triple may pass the single threshold (false only when none can). */
fn mayPassSingle(t: u32, rq: u32, cq: u32) -> bool {
  let r = entryTallies(u.countedBits, tripleTallies(t, rq, cq));
${rsum}
  SCREEN_EXACT = true;
  let vi = ROW_VECTORS + rq * VW;
  let vk = COL_VECTORS + cq * VW;
  let gi = array<f32, 2>(sdToF32Truncated(vectorDouble(vi + 6u)), sdToF32Truncated(vectorDouble(vi + 8u)));
  let gj = array<f32, 2>(sdToF32Truncated(vectorDouble(J_VECTOR + 6u)), sdToF32Truncated(vectorDouble(J_VECTOR + 8u)));
  let gk = array<f32, 2>(sdToF32Truncated(vectorDouble(vk + 6u)), sdToF32Truncated(vectorDouble(vk + 8u)));
  if (!SCREEN_EXACT || !MULT_RSUM_F32_OK) { return true; }
  let bound = bitcast<f32>(u.threshold0) * (1.0 - 1.0 / 32768.0);
  var passes = false;
  for (var e = 0u; e < 8u; e++) {
    let estimate = (((MULT_F32 * (rsum * f32(r[e]))) * gi[e >> 2u]) * gj[(e >> 1u) & 1u]) * gk[e & 1u];
    passes = passes || !(estimate < bound);
  }
  return passes;
}`;
}

/** WGSL of the eight values of one triple (entry bits a, b, c at 4a + 2b + c). */
function tripleValuesWgsl(sparse: boolean): string {
  const rsum = sparse
    ? `  // Sparse: rsum = 1/cijk, cijk = Σ r; 0 when any count is 0 (core/formulas.ts sparseValue3).
  let cijk = r[0] + r[1] + r[2] + r[3] + r[4] + r[5] + r[6] + r[7];
  var values: array<vec2<u32>, 8>;
  if (sliceWords[ROW_VECTORS + rq * VW + 1u] == 0u || sliceWords[J_VECTOR + 1u] == 0u || sliceWords[COL_VECTORS + cq * VW + 1u] == 0u || cijk == 0u) {
    return values;
  }
  let rsum = sdFactor(sdDiv(ONE, sdFromU32(cijk)));`
    : `  var values: array<vec2<u32>, 8>;
  let rsum = RSUM;`;
  return `
/** r_abc from T[uvw] with C counted bits (src/engine/finalize3.ts); u32 arithmetic wraps, and every r is exact. */
fn entryTallies(C: u32, T: array<u32, 8>) -> array<u32, 8> {
  let r110 = C * T[6] - T[7];
  let r101 = C * T[5] - T[7];
  let r011 = C * T[3] - T[7];
  return array<u32, 8>(
    C * (C * (C * T[0] - T[1] - T[2] - T[4]) + T[3] + T[5] + T[6]) - T[7],
    C * (C * T[1] - T[3]) - r101,
    C * (C * T[2] - T[3]) - r110,
    r011,
    C * (C * T[4] - T[5]) - r110,
    r101,
    r110,
    T[7]);
}

/**
 * (((x·g_lo)·g_mid)·g_hi) with the g's of i, j, k ordered as core/formulas.ts combine3's three exchanges order
 * them, given its comparisons f_j < f_i, f_k < f_i and f_k < f_j: the first exchange orders i and j; the
 * second compares k with the larger of them, and only if k moved down does the third compare k with the smaller.
 */
fn orderedProduct(x: vec2<u32>, gi: vec2<u32>, gj: vec2<u32>, gk: vec2<u32>, jBelowI: bool, kBelowI: bool, kBelowJ: bool) -> vec2<u32> {
  let gFirst = select(gi, gj, jBelowI);
  let gSecond = select(gj, gi, jBelowI);
  let kBelowSecond = select(kBelowJ, kBelowI, jBelowI);
  let kBelowFirst = kBelowSecond && select(kBelowI, kBelowJ, jBelowI);
  let gLo = select(gFirst, gk, kBelowFirst);
  let gMid = select(gSecond, select(gk, gFirst, kBelowFirst), kBelowSecond);
  let gHi = select(gk, gSecond, kBelowSecond);
  return sdMul(sdMul(sdMul(x, gLo), gMid), gHi);
}

fn vectorDouble(at: u32) -> vec2<u32> {
  return vec2<u32>(sliceWords[at], sliceWords[at + 1u]);
}

/** Bit 2u + v set iff y_v < x_u: the four comparisons of one vector pair's f's that the eight entries use. */
fn belowMask(x0: vec2<u32>, x1: vec2<u32>, y0: vec2<u32>, y1: vec2<u32>) -> u32 {
  return select(0u, 1u, sdLessNonNegative(y0, x0)) | select(0u, 2u, sdLessNonNegative(y1, x0))
    | select(0u, 4u, sdLessNonNegative(y0, x1)) | select(0u, 8u, sdLessNonNegative(y1, x1));
}

fn maskBit(mask: u32, at: u32) -> bool {
  return ((mask >> at) & 1u) != 0u;
}

/** f_a at word 2 + 2a, g_a at word 6 + 2a of a vector's words (mgemm/tripleFinalize.ts). */
fn tripleValues(t: u32, rq: u32, cq: u32) -> array<vec2<u32>, 8> {
  let r = entryTallies(u.countedBits, tripleTallies(t, rq, cq));
${rsum}
  let vi = ROW_VECTORS + rq * VW;
  let vk = COL_VECTORS + cq * VW;
  // The triple's f's are compared once (12 comparisons, not 3 for each of the 8 entries).
  let fi0 = vectorDouble(vi + 2u);
  let fi1 = vectorDouble(vi + 4u);
  let fj0 = vectorDouble(J_VECTOR + 2u);
  let fj1 = vectorDouble(J_VECTOR + 4u);
  let fk0 = vectorDouble(vk + 2u);
  let fk1 = vectorDouble(vk + 4u);
  let jBelowI = belowMask(fi0, fi1, fj0, fj1);
  let kBelowI = belowMask(fi0, fi1, fk0, fk1);
  let kBelowJ = belowMask(fj0, fj1, fk0, fk1);
  let gi0 = vectorDouble(vi + 6u);
  let gi1 = vectorDouble(vi + 8u);
  let gj0 = vectorDouble(J_VECTOR + 6u);
  let gj1 = vectorDouble(J_VECTOR + 8u);
  let gk0 = vectorDouble(vk + 6u);
  let gk1 = vectorDouble(vk + 8u);
  for (var e = 0u; e < 8u; e++) {
    let a = e >> 2u;
    let b = (e >> 1u) & 1u;
    let c = e & 1u;
    let x = sdMulSharedFactor(sdMulU32(rsum, r[e]), MULT, MULT_IS_SHORT);
    values[e] = orderedProduct(x, select(gi0, gi1, a != 0u), select(gj0, gj1, b != 0u), select(gk0, gk1, c != 0u),
      maskBit(jBelowI, 2u * a + b), maskBit(kBelowI, 2u * a + c), maskBit(kBelowJ, 2u * b + c));
  }
  return values;
}`;
}

export interface Finalize3Program extends WgslProgram {
  readonly tile: number;
}

/** The finalize program of dense or sparse 3-way formulas (thresholds and records are uniforms). */
export function createFinalize3Program(options: { readonly sparse: boolean }): Finalize3Program {
  const declarations = `${SOFT_DOUBLE_WGSL}
const ONE = vec2<u32>(0u, 0x3ff00000u);
const VW = ${TRIPLE_VECTOR_WORDS}u;
const TILE = ${FINALIZE3_TILE}u;
const SIDE = ${THREADS_PER_SIDE}u;
const NUM_THREADS = ${THREADS_PER_SIDE * THREADS_PER_SIDE}u;
/** Run constants as factors: mult (and whether its significand is short), dense rsum. */
var<private> MULT: SdFactor;
var<private> MULT_IS_SHORT: bool;
var<private> RSUM: SdFactor;
/** The screen's f32 factors (mayPassSingle); false when mult or rsum is outside f32's normal range. */
var<private> MULT_F32: f32;
var<private> RSUM_F32: f32;
var<private> MULT_RSUM_F32_OK: bool;
var<private> SCREEN_EXACT: bool;
/** The rectangle of the tile at hand (loadRect). */
struct Rect {
${FINALIZE3_RECT_FIELDS.map((f) => `  ${f}: u32,`).join('\n')}
};
var<private> R: Rect;
/** Word offsets in sliceWords of the rows', j's and the columns' vector words (of R). */
var<private> ROW_VECTORS: u32;
var<private> J_VECTOR: u32;
var<private> COL_VECTORS: u32;
${checksumPartialDeclarations(THREADS_PER_SIDE * THREADS_PER_SIDE)}
/** Loads rectangle k of the table into R (and its vector word offsets). */
fn loadRect(k: u32) {
  let at = u.rectsFirst + k * ${FINALIZE3_RECT_WORDS}u;
${FINALIZE3_RECT_FIELDS.map((f, idx) => `  R.${f} = sliceWords[at + ${idx}u];`).join('\n')}
  ROW_VECTORS = R.rowWordsFirst;
  J_VECTOR = R.jWordsFirst;
  COL_VECTORS = R.colWordsFirst;
}
/** The rectangle holding a tile: the last whose first tile is at most it. */
${lastAtMostWgsl('rectOfTile', 'u.numRects', (i) => `sliceWords[u.rectsFirst + ${i} * ${FINALIZE3_RECT_WORDS}u]`)}
${tripleTalliesWgsl(options.sparse)}
${tripleValuesWgsl(options.sparse)}
${screenWgsl(options.sparse)}
${checksumWeightWgsl()}
${FLOAT32_THRESHOLD_WGSL}
/** Which of the eight entries pass (bit 4a + 2b + c): core/thresholds.ts markPassingEntries. */
fn passingEntries(f: array<u32, 8>) -> u32 {
  if (u.thresholdKind == 0u) { return 255u; }
  if (u.thresholdKind == 1u) {
    var mask = 0u;
    for (var e = 0u; e < 8u; e++) { if (above(f[e], u.threshold0)) { mask |= 1u << e; } }
    return mask;
  }
  // multi3: thresholds by the number of 1 bits (LLL, LLH, LHH, HHH), and LLL+HHH on the float32 sum of two positive values.
  let byOnes = array<u32, 4>(u.threshold0, u.threshold1, u.threshold2, u.threshold3);
  let lllhhh = positive(f[0]) && positive(f[7])
    && above(sdToF32Bits(sdAdd(sdFromF32Bits(f[0]), sdFromF32Bits(f[7]))), u.threshold4);
  var mask = select(0u, 0x81u, lllhhh);
  for (var e = 0u; e < 8u; e++) { if (above(f[e], byOnes[countOneBits(e)])) { mask |= 1u << e; } }
  return mask;
}`;

  const body = `
  MULT = sdFactor(vec2<u32>(u.multLo, u.multHi));
  MULT_IS_SHORT = sdFactorIsShort(MULT);
  RSUM = sdFactor(vec2<u32>(u.rsumLo, u.rsumHi));
  SCREEN_EXACT = true;
  MULT_F32 = sdToF32Truncated(vec2<u32>(u.multLo, u.multHi));
  RSUM_F32 = sdToF32Truncated(vec2<u32>(u.rsumLo, u.rsumHi));
  MULT_RSUM_F32_OK = SCREEN_EXACT;
  var sum = vec4<u32>(0u);
  var entries = 0u;
  var zeros = 0u;
  for (var tileIdx = wg.x; tileIdx < u.numTiles; tileIdx += u.numWorkgroups) {
    loadRect(rectOfTile(tileIdx));
    let gj = R.jVectorGlobal;
    let tile = tileIdx - R.tileFirst;
    let r0 = (tile / R.tilesX) * TILE;
    let c0 = (tile % R.tilesX) * TILE;
    for (var ii = 0u; ii < ${TRIPLES_PER_THREAD_SIDE}u; ii++) {
      let r = r0 + lid.y + ii * SIDE;
      if (r >= R.numRows) { continue; }
      let rq = R.rowFirst + r;
      let gi = R.iVectorFirst + rq;
      for (var kk = 0u; kk < ${TRIPLES_PER_THREAD_SIDE}u; kk++) {
        let c = c0 + lid.x + kk * SIDE;
        if (c >= R.numCols) { continue; }
        let cq = R.colFirst + c;
        let gk = R.kVectorFirst + cq;
        let t = R.tallyFirst + r * u.rowStride + c;
        if (u.thresholdKind == 1u && !mayPassSingle(t, rq, cq)) { continue; }
        let values = tripleValues(t, rq, cq);
        var f: array<u32, 8>;
        for (var e = 0u; e < 8u; e++) { f[e] = sdToF32Bits(values[e]); }
        let mask = passingEntries(f);
        if (mask == 0u) { continue; }
        // uid: coordinates sorted descending, ((c0·nv + c1)·nv + c2)·8 + bits (core/checksum.ts tripleRowWeights);
        // rank 0 = the largest coordinate, whose entry bit is the high bit.
        let rankI = select(0u, 1u, gj > gi) + select(0u, 1u, gk > gi);
        let rankJ = select(0u, 1u, gi > gj) + select(0u, 1u, gk > gj);
        let rankK = 3u - rankI - rankJ;
        let cHi = select(select(gk, gj, rankJ == 0u), gi, rankI == 0u);
        let cLo = select(select(gk, gj, rankJ == 2u), gi, rankI == 2u);
        let cMid = select(select(gk, gj, rankJ == 1u), gi, rankI == 1u);
        let tripleMod = (mulMod((mulMod(cHi % RMOD, u.numVectorMod) + cMid % RMOD) % RMOD, u.numVectorMod) + cLo % RMOD) % RMOD;
        let tripleResidues = checksumResidues((tripleMod * 8u) % RMOD);
        for (var e = 0u; e < 8u; e++) {
          if ((mask & (1u << e)) == 0u) { continue; }
          entries += 1u;
          let v = values[e];
          if (u.writeRecords != 0u) {
            let at = atomicAdd(&status[0], 1u);
            if (at < u.recordCapacity) {
              records[2u * at] = f[e];
              records[2u * at + 1u] = R.keyFirst + (((rq * R.requestCols + cq) << 3u) | e);
            }
          }
          if (sdIsZero(v)) { zeros += 1u; continue; }
          if ((v.y & SD_SIGN) != 0u || sdExp(v) >= 1027u) { atomicStore(&status[1], 1u); continue; }
          let bits = ((e >> 2u) << (2u - rankI)) | (((e >> 1u) & 1u) << (2u - rankJ)) | ((e & 1u) << (2u - rankK));
          checksumAddTerm(checksumWeight(checksumResiduesPlus(tripleResidues, bits)), sdFloorTimes2p56(v));
        }
      }
    }
    sum = checksumFold(sum);
  }
${checksumPartialWgsl('u.partialFirst + wg.x', FINALIZE2_PARTIAL_WORDS)}`;

  return {
    cacheKey: `finalize3/${options.sparse ? 'sparse' : 'dense'}`,
    workgroupSize: [THREADS_PER_SIDE, THREADS_PER_SIDE],
    storage: [
      { name: 'tallies', access: 'read', elementType: 'u32' },
      { name: 'sliceWords', access: 'read', elementType: 'u32' },
      // Dense only: layout 'auto' leaves out bindings a shader does not use.
      ...(options.sparse ? [] : [{ name: 'pairIK', access: 'read', elementType: 'u32' } as const]),
      { name: 'partials', access: 'read_write', elementType: 'u32' },
      { name: 'status', access: 'read_write', elementType: 'atomic<u32>' },
      { name: 'records', access: 'read_write', elementType: 'u32' },
    ],
    uniforms: UNIFORMS.map((name) => ({ name, type: 'u32' as const })),
    extensions: [],
    declarations,
    mainBody: body,
    tile: FINALIZE3_TILE,
  };
}
