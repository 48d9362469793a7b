// Program factory of 2-way finalize on the device: tallies of one GEMM sub-block (where the GEMM left them)
// → the four SPEC §3 values of each pair in soft double (wgsl/softDouble.ts, bit-exact with the CPU's
// core/formulas.ts) → threshold (core/thresholds.ts semantics on float32 bits) → exact checksum partial sums
// (core/checksum.ts: rv·iv in 128-bit integers, one sum per workgroup) and appended records.
//
// Each workgroup takes a tile of TILE × TILE pairs (16 × 16 threads, 4 × 4 pairs each), reduces its
// threads' sums in workgroup memory and writes one partial: [S as 4 words, entries, zeros, 0, 0].
// Tally layout: group g, sub-block row r, column c at g·groupWords + r·rowStride + c. Per-vector words
// as mgemm/pairFinalize.ts says. A passing entry outside [0, 16) (or negative) sets status[1]: the host
// then finalizes the request itself, exactly as the CPU path would (including its error).
// Records are not appended here: each pair with a passing entry leaves its pass mask and values at its place in
// the request (pairRecordPrograms.ts then writes them out in key order).

import { PAIR_VECTOR_WORDS } from '../../../pairFinalize.js';
import { CHECKSUM_TERMS_PER_FOLD, checksumPartialDeclarations, checksumPartialWgsl, checksumWeightWgsl, FLOAT32_THRESHOLD_WGSL } from '../programs/wgsl/exactChecksum.js';
import { SOFT_DOUBLE_WGSL } from '../programs/wgsl/softDouble.js';
import type { WgslProgram } from '../programs/wgslProgram.js';

/** Pairs per side of one workgroup's tile. */
export const FINALIZE2_TILE = 64;
/** u32 words of one workgroup's partial result. */
export const FINALIZE2_PARTIAL_WORDS = 8;
/**
 * Status words: [records (2-way: the total of pairRecordPrograms.ts; 3-way: appended, may exceed the capacity),
 * needs-host flag].
 */
export const FINALIZE2_STATUS_WORDS = 4;

const THREADS_PER_SIDE = 16;
const PAIRS_PER_THREAD_SIDE = FINALIZE2_TILE / THREADS_PER_SIDE;
// A thread folds its checksum columns once, after all its entries.
if (PAIRS_PER_THREAD_SIDE ** 2 * 4 > CHECKSUM_TERMS_PER_FOLD) throw new Error('finalize2: more checksum terms per thread than a fold takes');

/** Threshold kinds as the uniform `thresholdKind` carries them. */
export const FINALIZE2_THRESHOLD_KIND = { none: 0, single: 1, multi2: 2 } as const;

const UNIFORMS = [
  // Sub-block shape and where its tallies lie.
  'numRows', 'numCols', 'rowStride', 'groupWords',
  // Matrix rows of sub-block row / column 0, and whether only row < column is wanted (same matrix).
  'rowFirst', 'colFirst', 'strictUpper',
  // Global vector index of matrix row 0 of A and of B; nv mod 714025 for checksum uids.
  'rowVectorFirst', 'colVectorFirst', 'numVectorMod',
  // Place in the request (pass masks and values): sub-block row / column 0 relative to the request, and its columns.
  'keyRowFirst', 'keyColFirst', 'keyNumCols',
  // Tiles of this sub-block, the dispatch width, and the index of its first partial.
  'tilesX', 'numTiles', 'dispatchX', 'partialFirst',
  'thresholdKind', 'threshold0', 'threshold1', 'threshold2', 'threshold3',
  'writeRecords',
  // SPEC §3 constants: C, m, and doubles as (lo, hi) bits.
  'countedBits', 'numField', 'multLo', 'multHi', 'paramLo', 'paramHi', 'rsumLo', 'rsumHi', 'recipCLo', 'recipCHi',
] as const;

/** Uniform values of one dispatch, by name. */
export type Finalize2Uniforms = Record<(typeof UNIFORMS)[number], number>;

/** WGSL of one pair's four values: dense from per-vector g factors, sparse from counts and the four tallies. */
function pairValuesWgsl(sparse: boolean): string {
  const common = `
/**
 * ((mult·(rsum·r))·g of the smaller f)·g of the larger f: core/formulas.ts combine2. The g's are ordered by
 * selects, not branches, so that threads of one pair order do not wait on the other's products.
 */
fn combine(rsum: SdFactor, r: u32, fiSmaller: bool, gi: vec2<u32>, gj: vec2<u32>) -> vec2<u32> {
  let x = sdMulSharedFactor(sdMulU32(rsum, r), MULT, MULT_IS_SHORT);
  return sdMul(sdMul(x, select(gj, gi, fiSmaller)), select(gi, gj, fiSmaller));
}
fn rowDouble(at: u32) -> vec2<u32> {
  return vec2<u32>(rowVec[at], rowVec[at + 1u]);
}
fn colDouble(at: u32) -> vec2<u32> {
  return vec2<u32>(colVec[at], colVec[at + 1u]);
}`;
  if (!sparse) {
    return `${common}
/** Dense: f = ((1/C)·(1/m))·s is increasing in s, so the order of the f's is that of the s's. */
fn pairValues(vi: u32, vj: u32, t: u32) -> array<vec2<u32>, 4> {
  let c = u.countedBits;
  let si1 = rowVec[vi];
  let sj1 = colVec[vj];
  let si0 = c * u.numField - si1;
  let sj0 = c * u.numField - sj1;
  let r11 = tallies[t];
  let r10 = c * si1 - r11;
  let r01 = c * sj1 - r11;
  let r00 = c * c * u.numField - c * si1 - c * sj1 + r11;
  let gi0 = rowDouble(vi + 2u);
  let gi1 = rowDouble(vi + 4u);
  let gj0 = colDouble(vj + 2u);
  let gj1 = colDouble(vj + 4u);
  return array<vec2<u32>, 4>(
    combine(RSUM, r00, si0 < sj0, gi0, gj0),
    combine(RSUM, r01, si0 < sj1, gi0, gj1),
    combine(RSUM, r10, si1 < sj0, gi1, gj0),
    combine(RSUM, r11, si1 < sj1, gi1, gj1));
}`;
  }
  return `${common}
/** Sparse: core/formulas.ts sparseValue2, the per-pair factors computed once for the four entries. */
fn pairValues(vi: u32, vj: u32, t: u32) -> array<vec2<u32>, 4> {
  let c = u.countedBits;
  let si1 = rowVec[vi];
  let ci = rowVec[vi + 1u];
  let sj1 = colVec[vj];
  let cj = colVec[vj + 1u];
  let r11 = tallies[t];
  let sIJ = tallies[u.groupWords + t];
  let sJI = tallies[2u * u.groupWords + t];
  let nIJ = tallies[3u * u.groupWords + t];
  let r10 = c * sIJ - r11;
  let r01 = c * sJI - r11;
  let r00 = c * c * nIJ - c * sIJ - c * sJI + r11;
  let cij = r00 + r01 + r10 + r11;
  let zero = vec2<u32>(0u, 0u);
  if (ci == 0u || cj == 0u || cij == 0u) { return array<vec2<u32>, 4>(zero, zero, zero, zero); }
  // x · double(n) as sdMulU32 (the same double), each factor split once.
  let loHi = sdMulU32(sdFactor(sdFromU32(min(ci, cj))), max(ci, cj));
  let loHiFactor = sdFactor(loHi);
  let recip = sdDiv(ONE, sdMulU32(loHiFactor, cij));
  let recipFactor = sdFactor(recip);
  let rci = sdMulFactor(sdMulU32(sdFactor(sdFromU32(cj)), cij), recipFactor);
  let rcj = sdMulFactor(sdMulU32(sdFactor(sdFromU32(ci)), cij), recipFactor);
  let rsum = sdFactor(sdMulFactor(loHi, recipFactor));
  let recipC = vec2<u32>(u.recipCLo, u.recipCHi);
  let recipCrci = sdFactor(sdMul(recipC, rci));
  let recipCrcj = sdFactor(sdMul(recipC, rcj));
  let fi0 = sdMulU32(recipCrci, c * ci - si1);
  let fi1 = sdMulU32(recipCrci, si1);
  let fj0 = sdMulU32(recipCrcj, c * cj - sj1);
  let fj1 = sdMulU32(recipCrcj, sj1);
  let gi0 = sdSub(ONE, sdMul(PARAM, fi0));
  let gi1 = sdSub(ONE, sdMul(PARAM, fi1));
  let gj0 = sdSub(ONE, sdMul(PARAM, fj0));
  let gj1 = sdSub(ONE, sdMul(PARAM, fj1));
  return array<vec2<u32>, 4>(
    combine(rsum, r00, sdLessNonNegative(fi0, fj0), gi0, gj0),
    combine(rsum, r01, sdLessNonNegative(fi0, fj1), gi0, gj1),
    combine(rsum, r10, sdLessNonNegative(fi1, fj0), gi1, gj0),
    combine(rsum, r11, sdLessNonNegative(fi1, fj1), gi1, gj1));
}`;
}

export interface Finalize2Program extends WgslProgram {
  readonly tile: number;
}

/** The finalize program of dense or sparse 2-way formulas (thresholds and records are uniforms). */
export function createFinalize2Program(options: { readonly sparse: boolean }): Finalize2Program {
  const declarations = `${SOFT_DOUBLE_WGSL}
const ONE = vec2<u32>(0u, 0x3ff00000u);
const TILE = ${FINALIZE2_TILE}u;
const SIDE = ${THREADS_PER_SIDE}u;
const NUM_THREADS = ${THREADS_PER_SIDE * THREADS_PER_SIDE}u;
/** Run constants: mult as a factor (and whether its significand is short), rsum (dense) as a factor, p. */
var<private> MULT: SdFactor;
var<private> MULT_IS_SHORT: bool;
var<private> RSUM: SdFactor;
var<private> PARAM: vec2<u32>;
${checksumPartialDeclarations(THREADS_PER_SIDE * THREADS_PER_SIDE)}
${pairValuesWgsl(options.sparse)}
${checksumWeightWgsl()}
${FLOAT32_THRESHOLD_WGSL}
/** Which of the four entries pass (bit 2a + b): core/thresholds.ts markPassingEntries. */
fn passingEntries(f: array<u32, 4>) -> u32 {
  if (u.thresholdKind == 0u) { return 15u; }
  if (u.thresholdKind == 1u) {
    var mask = 0u;
    for (var e = 0u; e < 4u; e++) { if (above(f[e], u.threshold0)) { mask |= 1u << e; } }
    return mask;
  }
  // multi2: LL, LH, HH thresholds, and LL+HH on the float32 sum of two positive values.
  let llhh = positive(f[0]) && positive(f[3])
    && above(sdToF32Bits(sdAdd(sdFromF32Bits(f[0]), sdFromF32Bits(f[3]))), u.threshold3);
  var mask = 0u;
  if (above(f[0], u.threshold0) || llhh) { mask |= 1u; }
  if (above(f[1], u.threshold1)) { mask |= 2u; }
  if (above(f[2], u.threshold1)) { mask |= 4u; }
  if (above(f[3], u.threshold2) || llhh) { mask |= 8u; }
  return mask;
}`;

  const body = `
  MULT = sdFactor(vec2<u32>(u.multLo, u.multHi));
  MULT_IS_SHORT = sdFactorIsShort(MULT);
  RSUM = sdFactor(vec2<u32>(u.rsumLo, u.rsumHi));
  PARAM = vec2<u32>(u.paramLo, u.paramHi);
  let tileIdx = wg.x + wg.y * u.dispatchX;
  if (tileIdx >= u.numTiles) { return; }
  let r0 = (tileIdx / u.tilesX) * TILE;
  let c0 = (tileIdx % u.tilesX) * TILE;
  var sum = vec4<u32>(0u);
  var entries = 0u;
  var zeros = 0u;
  for (var ii = 0u; ii < ${PAIRS_PER_THREAD_SIDE}u; ii++) {
    let r = r0 + lid.y + ii * SIDE;
    if (r >= u.numRows) { continue; }
    let row = u.rowFirst + r;
    let gi = u.rowVectorFirst + row;
    for (var jj = 0u; jj < ${PAIRS_PER_THREAD_SIDE}u; jj++) {
      let c = c0 + lid.x + jj * SIDE;
      let col = u.colFirst + c;
      if (c >= u.numCols || (u.strictUpper != 0u && row >= col)) { continue; }
      let gj = u.colVectorFirst + col;
      let values = pairValues(${PAIR_VECTOR_WORDS}u * row, ${PAIR_VECTOR_WORDS}u * col, r * u.rowStride + c);
      var f: array<u32, 4>;
      for (var e = 0u; e < 4u; e++) { f[e] = sdToF32Bits(values[e]); }
      let mask = passingEntries(f);
      if (mask == 0u) { continue; }
      if (u.writeRecords != 0u) {
        // Pair p of the request (row-major): its records' place in key order (pairRecordPrograms.ts).
        let p = (u.keyRowFirst + r) * u.keyNumCols + u.keyColFirst + c;
        passMasks[p] = mask;
        for (var e = 0u; e < 4u; e++) {
          if ((mask & (1u << e)) != 0u) { passValues[4u * p + e] = f[e]; }
        }
      }
      // uid of entry (a, b): coordinates sorted descending, (c0·nv + c1)·4 + bits (core/checksum.ts entryUid2).
      let hiIsI = gi > gj;
      let pairMod = (mulMod(select(gi, gj, !hiIsI) % RMOD, u.numVectorMod) + select(gj, gi, !hiIsI) % RMOD) % RMOD;
      let pairResidues = checksumResidues((pairMod * 4u) % RMOD);
      for (var e = 0u; e < 4u; e++) {
        if ((mask & (1u << e)) == 0u) { continue; }
        entries += 1u;
        let v = values[e];
        let a = e >> 1u;
        let b = e & 1u;
        if (sdIsZero(v)) { zeros += 1u; continue; }
        if ((v.y & SD_SIGN) != 0u || sdExp(v) >= 1027u) { atomicStore(&status[1], 1u); continue; }
        let bits = select(b * 2u + a, a * 2u + b, hiIsI);
        checksumAddTerm(checksumWeight(checksumResiduesPlus(pairResidues, bits)), sdFloorTimes2p56(v));
      }
    }
  }
  sum = checksumFold(sum);
${checksumPartialWgsl('u.partialFirst + tileIdx', FINALIZE2_PARTIAL_WORDS)}`;

  return {
    cacheKey: `finalize2/${options.sparse ? 'sparse' : 'dense'}`,
    workgroupSize: [THREADS_PER_SIDE, THREADS_PER_SIDE],
    storage: [
      { name: 'tallies', access: 'read', elementType: 'u32' },
      { name: 'rowVec', access: 'read', elementType: 'u32' },
      { name: 'colVec', access: 'read', elementType: 'u32' },
      { name: 'partials', access: 'read_write', elementType: 'u32' },
      { name: 'status', access: 'read_write', elementType: 'atomic<u32>' },
      { name: 'passMasks', access: 'read_write', elementType: 'u32' },
      { name: 'passValues', access: 'read_write', elementType: 'u32' },
    ],
    uniforms: UNIFORMS.map((name) => ({ name, type: 'u32' as const })),
    extensions: [],
    declarations,
    mainBody: body,
    tile: FINALIZE2_TILE,
  };
}
