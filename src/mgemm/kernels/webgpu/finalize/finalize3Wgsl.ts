// WGSL of the 3-way finalize program (finalize3Program.ts) with SPEC §3's formulas, by variant: the eight tallies
// T[uvw] of one triple (dense: from per-vector words and block-pair counts; sparse: from the GEMM's eight groups), the
// single-threshold f32 screen that skips triples none of whose entries can pass, the eight SPEC §3 values of a
// triple in soft double (r_abc by inclusion–exclusion, combine3's ordered products), and what one triple does with
// them (threshold, checksum, records). They read the names the program declares (u, R, sliceWords, ROW_VECTORS,
// J_VECTOR, COL_VECTORS, VW, …).
import type { HistogramLayout } from '../../../../core/histogramLayout.js';
import { histogramCacheWgsl, histogramWgsl } from '../programs/wgsl/histogramWgsl.js';

/** The eight entries of a triple, in the order tripleValues returns them (4a + 2b + c). */
const TRIPLE_ENTRY_BITS = [0, 1, 2, 3, 4, 5, 6, 7];

/**
 * WGSL statements giving `tripleMod`, the checksum uid of a triple's sorted coordinates mod RMOD, and `rankI`,
 * `rankJ`, `rankK` (0 = the largest coordinate) of gi, gj, gk: ((cHi·nv + cMid)·nv + cLo) mod RMOD.
 */
export const TRIPLE_UID_WGSL = `        let rankI = select(0u, 1u, gj > gi) + select(0u, 1u, gk > gi);
        let rankJ = select(0u, 1u, gi > gj) + select(0u, 1u, gk > gj);
        let rankK = 3u - rankI - rankJ;
        let cHi = select(select(gk, gj, rankJ == 0u), gi, rankI == 0u);
        let cLo = select(select(gk, gj, rankJ == 2u), gi, rankI == 2u);
        let cMid = select(select(gk, gj, rankJ == 1u), gi, rankI == 1u);
        let tripleMod = (mulMod((mulMod(cHi % RMOD, u.numVectorMod) + cMid % RMOD) % RMOD, u.numVectorMod) + cLo % RMOD) % RMOD;`;

/** Statements run once per thread before its triples: the run constants as factors. */
export const FORMULA_SETUP_WGSL = `  MULT = sdFactor(vec2<u32>(u.multLo, u.multHi));
  MULT_IS_SHORT = sdFactorIsShort(MULT);
  RSUM = sdFactor(vec2<u32>(u.rsumLo, u.rsumHi));
  SCREEN_EXACT = true;
  MULT_F32 = sdToF32Truncated(vec2<u32>(u.multLo, u.multHi));
  RSUM_F32 = sdToF32Truncated(vec2<u32>(u.rsumLo, u.rsumHi));
  MULT_RSUM_F32_OK = SCREEN_EXACT;
`;

/** Module-scope declarations of the formula variant: run factors, tallies, values, screen, histogram, thresholds. */
export function formulaDeclarations(sparse: boolean, histogram: HistogramLayout | null, options: { readonly numThreads: number; readonly tuplesPerFlush: number }): string {
  return `/** Run constants as factors: mult (and whether its significand is short), dense rsum. */
var<private> MULT: SdFactor;
var<private> MULT_IS_SHORT: bool;
var<private> RSUM: SdFactor;
/** The screen's f32 factors (mayPassSingle); false when mult or rsum is outside f32's normal range. */
var<private> MULT_F32: f32;
var<private> RSUM_F32: f32;
var<private> MULT_RSUM_F32_OK: bool;
var<private> SCREEN_EXACT: bool;
${tripleTalliesWgsl(sparse)}
${tripleValuesWgsl(sparse)}
${screenWgsl(sparse)}
${histogram === null ? '' : histogramWgsl(histogram, TRIPLE_ENTRY_BITS)}
${histogram === null ? '' : histogramCacheWgsl(histogram, TRIPLE_ENTRY_BITS, options)}
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
}

/**
 * One triple of the formula variant (in the program's loop, with t, rq, cq, gi, gj, gk): its eight values, the
 * threshold, records of passing entries keyed (triple · 8 + entry bits), and the checksum of passing entries.
 */
export function formulaTripleWgsl(histogram: HistogramLayout | null): string {
  return `${histogram === null ? `        if (u.thresholdKind == 1u && !mayPassSingle(t, rq, cq)) { continue; }
` : ''}        let values = tripleValues(t, rq, cq);
${histogram === null ? '' : '        histogramCacheCount(values);\n'}        var f: array<u32, 8>;
        for (var e = 0u; e < 8u; e++) { f[e] = sdToF32Bits(values[e]); }
        let mask = passingEntries(f);
        if (mask == 0u) { continue; }
        // uid: coordinates sorted descending, ((c0·nv + c1)·nv + c2)·8 + bits (core/checksum.ts tripleRowWeights);
        // rank 0 = the largest coordinate, whose entry bit is the high bit.
${TRIPLE_UID_WGSL}
        let tripleResidues = checksumResidues((tripleMod * 8u) % RMOD);
        for (var e = 0u; e < 8u; e++) {
          if ((mask & (1u << e)) == 0u) { continue; }
          entries += 1u;
          let v = values[e];
          if (u.writeRecords != 0u && keptByBar(f[e])) {
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
        }`;
}

/** WGSL of the eight tallies T[uvw] (index 4u + 2v + w) of one triple: dense from pair counts and sums, sparse from the GEMM. */
export function tripleTalliesWgsl(sparse: boolean): string {
  if (sparse) {
    // Term groups compute T[7], T[6], …, T[0] in this order (src/analyses/comet/cometTallies.ts tally3Plan).
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
export function screenWgsl(sparse: boolean): string {
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
export function tripleValuesWgsl(sparse: boolean): string {
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
/** r_abc from T[uvw] with C counted bits (src/analyses/comet/tripleValues.ts); u32 arithmetic wraps, and every r is exact. */
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
