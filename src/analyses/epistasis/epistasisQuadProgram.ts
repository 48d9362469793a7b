// 4-way case-control epistasis as a device value program (mgemm/pairFinalize.ts PairValueProgram, naming 'quads'): each
// quadruple's 81 × 2 table from its 162 tallies, its K2, MI or IG and its engine value, one value per quadruple, so that
// only the top-N candidates (and --score-threshold records) come back from a tile of pair planes × pair planes.
//
// Exact by construction, as the 2- and 3-way programs (epistasisPairProgram.ts gives the reasons): the value is the
// host's double bit for bit (epistasisQuads.ts finalizeEpistasisQuads: genotypeCellsInPlace, scoreOfEntries,
// engineValueOf). Cells are exact in u32; the scores are the host's sequence of IEEE operations in soft double on the
// host's own table (ln n! or n·ln n, n ≤ N + 1) bound as the request's row words. A quadruple i < j < k < l is always
// in canonical order (row pair (i, j), column pair (k, l)): no permutation of cells.
//
// Why the 162-group plan on the device for dense runs too: the host's dense plan takes the products with P at k or l
// from a second GEMM of row pairs × single vectors (numRows × numVectorCols × 54 tallies), which the finalize program
// cannot reach where it runs (its bindings are the tallies of one GEMM and two word arrays; the 3-way tallies per row
// pair would go through the host as per-row words, 54 · nv words per row pair). With every product from the one
// GEMM the program reads only its own tallies: 81 / 36 = 2.25× the dense GEMM's work (bounded by the u8 GEMM rate),
// against a download, re-upload and a second request per tile; the sweep of class words only (planeWordRanges)
// halves both.
import type { EpistasisScore } from '../../core/types.js';
import type { PairValueProgram } from '../../mgemm/index.js';
import type { QuadValues } from '../index.js';
import { MAX_WORDS_BYTES, SCORE_CONSTANTS_WGSL, tableWordsOf } from './epistasisPairProgram.js';
import type { EpistasisFinalizeSettings } from './epistasisPairs.js';
import { KINDS_PER_CLASS, NUM_CLASSES } from './epistasisPlanes.js';
import { quadTallyPlan } from './epistasisQuads.js';
import { k2ScaleOf } from './epistasisScores.js';

/** The host's score arithmetic on a quadruple's cells: epistasisScores.ts scoreOfEntries, interactionInformation, engineValueOf. */
const SCORES_WGSL = `${SCORE_CONSTANTS_WGSL}
/** One class's 81 cells of a quadruple's table, cell 27a + 9b + 3c + d for genotypes a of i, b of j, c of k, d of l. */
alias EpiQuadClass = array<u32, 81>;
/** Entry n of the run's table (ln n! or n·ln n), the double at rowVec[2n], rowVec[2n + 1]. */
fn epiTable(n: u32) -> vec2<u32> {
  return vec2<u32>(rowVec[2u * n], rowVec[2u * n + 1u]);
}
/** engineValueOf's clamp: Math.min(15.5, Math.max(0, v)) (a negative or −0 value is +0). */
fn epiClamp(v: vec2<u32>) -> vec2<u32> {
  if ((v.y & SD_SIGN) != 0u) { return EPI_ZERO; }
  return select(v, EPI_MAX_VALUE, sdLessNonNegative(EPI_MAX_VALUE, v));
}
/**
 * The class's cells from term groups first … first + 80 (kinds g0, g1, P of i, j, k, l: 27x + 9y + 3z + w): P becomes
 * genotype 2 along each axis (genotypeCellsInPlace; exact in u32, every intermediate a count).
 */
fn epiClassCells(first: u32, t: u32) -> EpiQuadClass {
  var e: EpiQuadClass;
  for (var m = 0u; m < 81u; m++) { e[m] = tallies[(first + m) * u.groupWords + t]; }
  for (var stride = 1u; stride < 81u; stride *= 3u) {
    for (var base = 0u; base < 81u; base++) {
      if ((base / stride) % 3u == 0u) { e[base + 2u * stride] -= e[base] + e[base + stride]; }
    }
  }
  return e;
}
/** K2 = Σ_c (ln(x+y+1)! − ln x! − ln y!), added cell by cell. */
fn epiK2(x: EpiQuadClass, y: EpiQuadClass) -> vec2<u32> {
  var sum = EPI_ZERO;
  for (var c = 0u; c < 81u; c++) {
    sum = sdAdd(sum, sdSub(sdSub(epiTable(x[c] + y[c] + 1u), epiTable(x[c])), epiTable(y[c])));
  }
  return sum;
}
/** mutualInformation's running sums over the cells, in cell order. */
struct EpiMiSums {
  joint: vec2<u32>,
  marginal: vec2<u32>,
  numControls: u32,
  numCases: u32,
}
fn epiMiAdd(s: ptr<function, EpiMiSums>, a: u32, b: u32) {
  (*s).joint = sdAdd((*s).joint, sdAdd(epiTable(a), epiTable(b)));
  (*s).marginal = sdAdd((*s).marginal, epiTable(a + b));
  (*s).numControls += a;
  (*s).numCases += b;
}
/** MI in bits: (Σ n_xy ln n_xy − Σ n_x ln n_x − n_0 ln n_0 − n_1 ln n_1 + N ln N) / (N ln 2); 0 for an empty table. */
fn epiMiOf(s: EpiMiSums) -> vec2<u32> {
  let total = s.numControls + s.numCases;
  if (total == 0u) { return EPI_ZERO; }
  let numerator = sdAdd(sdSub(sdSub(sdSub(s.joint, s.marginal), epiTable(s.numControls)), epiTable(s.numCases)), epiTable(total));
  return sdDiv(numerator, sdMul(sdFromU32(total), EPI_LN2));
}
fn epiMutualInformation(x: EpiQuadClass, y: EpiQuadClass) -> vec2<u32> {
  var s = EpiMiSums(EPI_ZERO, EPI_ZERO, 0u, 0u);
  for (var c = 0u; c < 81u; c++) { epiMiAdd(&s, x[c], y[c]); }
  return epiMiOf(s);
}
/** MI of the marginal table over the SNPs of keep (bit t: SNP t, SNP 0 slowest), its cells summed exactly in u32. */
fn epiMarginalMI(x: EpiQuadClass, y: EpiQuadClass, keep: u32) -> vec2<u32> {
  var mx: array<u32, 27>;
  var my: array<u32, 27>;
  for (var c = 0u; c < 81u; c++) {
    var m = 0u;
    for (var t = 0u; t < 4u; t++) {
      if ((keep & (1u << t)) != 0u) { m = 3u * m + (c / EPI_PLACE[t]) % 3u; }
    }
    mx[m] += x[c];
    my[m] += y[c];
  }
  var numMarginal = 1u;
  for (var t = 0u; t < countOneBits(keep); t++) { numMarginal *= 3u; }
  var s = EpiMiSums(EPI_ZERO, EPI_ZERO, 0u, 0u);
  for (var m = 0u; m < numMarginal; m++) { epiMiAdd(&s, mx[m], my[m]); }
  return epiMiOf(s);
}
/** Place value of SNP t's genotype in a cell index (SNP 0 slowest). */
const EPI_PLACE = array<u32, 4>(27u, 9u, 3u, 1u);
/** Subsets of the quadruple by size, in the order interactionInformation adds their MI terms (QUAD_SUBSETS_BY_SIZE). */
const EPI_SINGLES = array<u32, 4>(1u, 2u, 4u, 8u);
const EPI_PAIRS = array<u32, 6>(3u, 5u, 6u, 9u, 10u, 12u);
const EPI_TRIPLES = array<u32, 4>(7u, 11u, 13u, 14u);
/** IG = MI(ABCD) + (−Σ MI(triples) + Σ MI(pairs) − Σ MI(singles)), each sum from 0 in subset order (quadMobiusTerms). */
fn epiInteractionInformation(x: EpiQuadClass, y: EpiQuadClass) -> vec2<u32> {
  var singles = EPI_ZERO;
  for (var n = 0u; n < 4u; n++) { singles = sdAdd(singles, epiMarginalMI(x, y, EPI_SINGLES[n])); }
  var pairs = EPI_ZERO;
  for (var n = 0u; n < 6u; n++) { pairs = sdAdd(pairs, epiMarginalMI(x, y, EPI_PAIRS[n])); }
  var triples = EPI_ZERO;
  for (var n = 0u; n < 4u; n++) { triples = sdAdd(triples, epiMarginalMI(x, y, EPI_TRIPLES[n])); }
  // −t + p is p − t in IEEE arithmetic, bit for bit (zeros' signs too).
  return sdAdd(epiMutualInformation(x, y), sdSub(sdSub(pairs, triples), singles));
}`;

/** The engine value of each score from the quadruple's cells x (controls), y (cases): engineValueOf. */
const ENGINE_VALUE_WGSL: Record<EpistasisScore, string> = {
  k2: 'epiClamp(sdSub(EPI_FIFTEEN, sdMul(epiK2(x, y), vec2<u32>(u.k2ScaleLo, u.k2ScaleHi))))',
  mi: 'epiClamp(epiMutualInformation(x, y))',
  ig: 'epiClamp(sdAdd(epiInteractionInformation(x, y), EPI_FOUR))',
};

/** The value program of a score; the same with and without missing calls (162 tallies either way: the header says why). */
export function epistasisQuadProgram(score: EpistasisScore): PairValueProgram {
  return {
    cacheKey: `epistasis4/${score}`,
    wgsl: `${SCORES_WGSL}
fn pairValues(vi: u32, vj: u32, t: u32, gi: u32, gj: u32) -> array<vec2<u32>, 1> {
  // Never undefined: a quadruple with no sample called at all four SNPs scores as on the host (MI 0, K2 of empty cells).
  let x = epiClassCells(0u, t);
  let y = epiClassCells(81u, t);
  return array<vec2<u32>, 1>(${ENGINE_VALUE_WGSL[score]});
}`,
    setup: '',
    entryBits: [0],
    vectorWords: 0,
    constantNames: score === 'k2' ? ['k2ScaleLo', 'k2ScaleHi'] : [],
    naming: 'quads',
  };
}

/** Epistasis quadruple values on the device, or null when the run's table could exceed one storage binding. */
export function epistasisQuadValues(settings: EpistasisFinalizeSettings): QuadValues | null {
  const numField = settings.classSizes[0] + settings.classSizes[1];
  if (8 * (numField + 2) > MAX_WORDS_BYTES) return null;
  const k2Scale = new Uint32Array(new Float64Array([k2ScaleOf(settings.tables)]).buffer);
  const pairPlanesPerClass = KINDS_PER_CLASS * KINDS_PER_CLASS;
  return {
    program: epistasisQuadProgram(settings.score),
    constants: settings.score === 'k2' ? [k2Scale[0], k2Scale[1]] : [],
    tableWords: tableWordsOf(settings, numField),
    plan: quadTallyPlan(true),
    planeWordRanges: Array.from({ length: NUM_CLASSES * pairPlanesPerClass }, (_, plane) => settings.classWords[Math.floor(plane / pairPlanesPerClass)]),
  };
}
