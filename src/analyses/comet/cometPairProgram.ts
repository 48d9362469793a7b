// CoMet's 2-way CCC/DUO values (SPEC §3) as a device value program (mgemm/pairFinalize.ts PairValueProgram): the
// four entries of each pair's table in soft double, bit-exact with core/formulas.ts (dense: denseValue2 from
// per-vector g factors; sparse: sparseValue2 from counts and the four tallies), the run's constants and the
// per-vector words it reads.
import { denseFactors2, type FormulaConstants } from '../../core/formulas.js';
import { formulaConstantsOnDevice, type PairValueProgram } from '../../mgemm/index.js';

/**
 * u32 words per vector: `[s1, count, g0.lo, g0.hi, g1.lo, g1.hi, 0, 0]` — s1 = Σ c1 over all fields, count = present
 * fields (sparse), and for dense formulas the doubles `g_a = 1 − p·(((1/C)·(1/m))·s_a)` (s0 = C·m − s1) as IEEE bits.
 */
export const COMET_PAIR_VECTOR_WORDS = 8;

/** C, m, and the doubles mult, p, dense rsum = (1/C²)·(1/m) and 1/C as (lo, hi) bits. */
const CONSTANT_NAMES = ['countedBits', 'numField', 'multLo', 'multHi', 'paramLo', 'paramHi', 'rsumLo', 'rsumHi', 'recipCLo', 'recipCHi'] as const;

/** What dense and sparse share. Term groups read: dense [cc]; sparse [cc, cm, mc, mm] (cometTallies.ts termGroups2). */
const COMMON_WGSL = `
/** Run constants: mult as a factor (and whether its significand is short), rsum (dense) as a factor, p. */
var<private> MULT: SdFactor;
var<private> MULT_IS_SHORT: bool;
var<private> RSUM: SdFactor;
var<private> PARAM: vec2<u32>;
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

const DENSE_WGSL = `${COMMON_WGSL}
/** Dense: f = ((1/C)·(1/m))·s is increasing in s, so the order of the f's is that of the s's. */
fn pairValues(vi: u32, vj: u32, t: u32, gi: u32, gj: u32) -> array<vec2<u32>, 4> {
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

const SPARSE_WGSL = `${COMMON_WGSL}
/** Sparse: core/formulas.ts sparseValue2, the per-pair factors computed once for the four entries. */
fn pairValues(vi: u32, vj: u32, t: u32, gi: u32, gj: u32) -> array<vec2<u32>, 4> {
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

const SETUP = `  MULT = sdFactor(vec2<u32>(u.multLo, u.multHi));
  MULT_IS_SHORT = sdFactorIsShort(MULT);
  RSUM = sdFactor(vec2<u32>(u.rsumLo, u.rsumHi));
  PARAM = vec2<u32>(u.paramLo, u.paramHi);`;

function program(sparse: boolean): PairValueProgram {
  return {
    cacheKey: `comet/${sparse ? 'sparse' : 'dense'}`,
    wgsl: sparse ? SPARSE_WGSL : DENSE_WGSL,
    setup: SETUP,
    entryBits: [0, 1, 2, 3],
    vectorWords: COMET_PAIR_VECTOR_WORDS,
    constantNames: CONSTANT_NAMES,
  };
}

const DENSE_PROGRAM = program(false);
const SPARSE_PROGRAM = program(true);

/** The value program of dense or sparse CCC/DUO. */
export function cometPairProgram(sparse: boolean): PairValueProgram {
  return sparse ? SPARSE_PROGRAM : DENSE_PROGRAM;
}

const bitsView = new DataView(new ArrayBuffer(8));
function doubleWords(x: number): [lo: number, hi: number] {
  bitsView.setFloat64(0, x, true);
  return [bitsView.getUint32(0, true), bitsView.getUint32(4, true)];
}

/**
 * The program's constants for a run (in CONSTANT_NAMES order), with rsum and 1/C computed as core/formulas.ts does;
 * null when the device library cannot keep the run's values exact (formulaConstantsOnDevice).
 */
export function cometPairConstants(k: FormulaConstants, numField: number): number[] | null {
  if (!formulaConstantsOnDevice({ multiplier: k.multiplier, param: k.param, numField })) return null;
  const { recipC, rsum } = denseFactors2(k, numField);
  return [k.countedBits, numField, ...doubleWords(k.multiplier), ...doubleWords(k.param), ...doubleWords(rsum), ...doubleWords(recipC)];
}

/**
 * Per-vector words (COMET_PAIR_VECTOR_WORDS each) for `numVectors` rows, the first `numReal` real: s1, count, and for
 * dense formulas g_a = 1 − p·f_a with f_a = ((1/C)·(1/m))·s_a — the operations of pairValues.ts and combine2.
 */
export function cometPairVectorWords(
  k: FormulaConstants, numField: number, sparse: boolean, numVectors: number, numReal: number,
  sums: ArrayLike<number>, counts: ArrayLike<number>,
): Uint32Array {
  const words = new Uint32Array(numVectors * COMET_PAIR_VECTOR_WORDS);
  const C = k.countedBits;
  const { recipCrc } = denseFactors2(k, numField);
  const doubles = new Float64Array(words.buffer);
  for (let l = 0; l < numReal; l++) {
    const s1 = sums[l];
    const at = l * COMET_PAIR_VECTOR_WORDS;
    words[at] = s1;
    words[at + 1] = sparse ? counts[l] : numField;
    if (!sparse) {
      doubles[at / 2 + 1] = 1 - k.param * (recipCrc * (C * numField - s1));
      doubles[at / 2 + 2] = 1 - k.param * (recipCrc * s1);
    }
  }
  return words;
}
