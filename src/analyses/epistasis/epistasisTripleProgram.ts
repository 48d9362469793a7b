// 3-way case-control epistasis as a device value program (mgemm/tripleFinalize.ts TripleValueProgram): each triple's
// 27 × 2 table from its 54 tallies (dense: 16, with block-pair counts and class counts), its K2, MI or IG and its engine value, one value per triple named by the triple, so
// that only the top-N candidates (and --score-threshold records) come back.
//
// Exact by construction, as the 2-way program (epistasisPairProgram.ts, whose header gives the reasons): the value is
// the host's double bit for bit (epistasisFinalize.ts finalizeEpistasisTriples, epistasisScores.ts). Cells are exact
// in u32; the scores are the host's sequence of IEEE operations in soft double on the host's own table — ln n! (K2)
// or n·ln n (MI, IG) for n ≤ N + 1 — uploaded once per run as the request's run words. Both sides put the cells in
// the canonical order (the triple's SNPs by increasing global index, the first slowest) before scoring, whichever SNP
// the decomposition made i, j or k, so a triple's value never depends on the decomposition (epistasisCells.ts).
// Every intermediate is ±0 or normal (the soft-double library's precondition), as in 2-way.
import type { EpistasisScore } from '../../core/types.js';
import type { TripleValueProgram } from '../../mgemm/index.js';
import type { TripleValues } from '../index.js';
import { doubleWgsl, MAX_WORDS_BYTES, SCORE_CONSTANTS_WGSL, tableWordsOf } from './epistasisPairProgram.js';
import { genotypeCountsOf, type EpistasisFinalizeSettings } from './epistasisPairs.js';
import { pairTermGroups } from './epistasisPlanes.js';
import { k2ScaleOf } from './epistasisScores.js';

/** The host's score arithmetic on a triple's canonical cells: epistasisScores.ts scoreOfEntries, interactionInformation, engineValueOf. */
const SCORES_WGSL = `${SCORE_CONSTANTS_WGSL}
/** One class's cells of a genotype table (a marginal: its first 3 or 9). */
alias EpiClass = array<u32, 27>;
/** Entry n of the run's table (ln n! or n·ln n), the double at runWords[2n], runWords[2n + 1]. */
fn epiTable(n: u32) -> vec2<u32> {
  return vec2<u32>(runWords[2u * n], runWords[2u * n + 1u]);
}
/** engineValueOf's clamp: Math.min(15.5, Math.max(0, v)) (a negative or −0 value is +0). */
fn epiClamp(v: vec2<u32>) -> vec2<u32> {
  if ((v.y & SD_SIGN) != 0u) { return EPI_ZERO; }
  return select(v, EPI_MAX_VALUE, sdLessNonNegative(EPI_MAX_VALUE, v));
}
/**
 * A class's cells from its extended table e (kinds g0, g1, P of i, j, k: 9x + 3y + z): P becomes genotype 2 along each
 * axis (genotypeCellsInPlace: k, then j, then i; exact in u32, every intermediate a count), and the cell of genotypes
 * (a, b, c) goes to a·si + b·sj + c·sk, the canonical place.
 */
fn epiClassCells(extended: EpiClass, si: u32, sj: u32, sk: u32) -> EpiClass {
  var e = extended;
  for (var base = 0u; base < 27u; base += 3u) { e[base + 2u] -= e[base] + e[base + 1u]; }
  for (var base = 0u; base < 27u; base++) { if ((base / 3u) % 3u == 0u) { e[base + 6u] -= e[base] + e[base + 3u]; } }
  for (var base = 0u; base < 9u; base++) { e[base + 18u] -= e[base] + e[base + 9u]; }
  var cells: EpiClass;
  for (var m = 0u; m < 27u; m++) { cells[(m / 9u) * si + ((m / 3u) % 3u) * sj + (m % 3u) * sk] = e[m]; }
  return cells;
}
/** K2 = Σ_c (ln(x+y+1)! − ln x! − ln y!), added cell by cell. */
fn epiK2(x: EpiClass, y: EpiClass) -> vec2<u32> {
  var sum = EPI_ZERO;
  for (var c = 0u; c < 27u; c++) {
    sum = sdAdd(sum, sdSub(sdSub(epiTable(x[c] + y[c] + 1u), epiTable(x[c])), epiTable(y[c])));
  }
  return sum;
}
/** MI in bits of the first numCell cells: (Σ n_xy ln n_xy − Σ n_x ln n_x − n_0 ln n_0 − n_1 ln n_1 + N ln N) / (N ln 2). */
fn epiMutualInformation(x: EpiClass, y: EpiClass, numCell: u32) -> vec2<u32> {
  var joint = EPI_ZERO;
  var marginal = EPI_ZERO;
  var numControls = 0u;
  var numCases = 0u;
  for (var c = 0u; c < numCell; c++) {
    joint = sdAdd(joint, sdAdd(epiTable(x[c]), epiTable(y[c])));
    marginal = sdAdd(marginal, epiTable(x[c] + y[c]));
    numControls += x[c];
    numCases += y[c];
  }
  let total = numControls + numCases;
  if (total == 0u) { return EPI_ZERO; }
  let numerator = sdAdd(sdSub(sdSub(sdSub(joint, marginal), epiTable(numControls)), epiTable(numCases)), epiTable(total));
  return sdDiv(numerator, sdMul(sdFromU32(total), EPI_LN2));
}
/** MI of the marginal table over the SNPs of keep (bit t: SNP t, SNP 0 slowest), its cells summed exactly in u32. */
fn epiMarginalMI(x: EpiClass, y: EpiClass, keep: u32) -> vec2<u32> {
  var mx: EpiClass;
  var my: EpiClass;
  for (var c = 0u; c < 27u; c++) {
    let g = vec3<u32>(c / 9u, (c / 3u) % 3u, c % 3u);
    var m = 0u;
    if ((keep & 1u) != 0u) { m = 3u * m + g.x; }
    if ((keep & 2u) != 0u) { m = 3u * m + g.y; }
    if ((keep & 4u) != 0u) { m = 3u * m + g.z; }
    mx[m] += x[c];
    my[m] += y[c];
  }
  return epiMutualInformation(mx, my, select(3u, 9u, countOneBits(keep) == 2u));
}
/** IG = MI(ABC) − (MI(AB) + MI(AC) + MI(BC)) + (MI(A) + MI(B) + MI(C)), added as interactionInformation adds them. */
fn epiInteractionInformation(x: EpiClass, y: EpiClass) -> vec2<u32> {
  let pairs = sdAdd(sdAdd(epiMarginalMI(x, y, 3u), epiMarginalMI(x, y, 5u)), epiMarginalMI(x, y, 6u));
  let singles = sdAdd(sdAdd(epiMarginalMI(x, y, 1u), epiMarginalMI(x, y, 2u)), epiMarginalMI(x, y, 4u));
  return sdAdd(sdSub(epiMutualInformation(x, y, 27u), pairs), singles);
}
/** Canonical stride of a coordinate: 9 for the triple's smallest, 3 for its middle, 1 for its largest. */
fn epiStride(g: u32, o1: u32, o2: u32) -> u32 {
  let numAbove = select(0u, 1u, o1 > g) + select(0u, 1u, o2 > g);
  return select(select(1u, 3u, numAbove == 1u), 9u, numAbove == 2u);
}`;

/** The engine value of each score from the triple's canonical cells x (controls), y (cases): engineValueOf. */
const ENGINE_VALUE_WGSL: Record<EpistasisScore, string> = {
  k2: 'epiClamp(sdSub(EPI_FIFTEEN, sdMul(epiK2(x, y), vec2<u32>(u.k2ScaleLo, u.k2ScaleHi))))',
  mi: 'epiClamp(epiMutualInformation(x, y, 27u))',
  ig: 'epiClamp(sdAdd(epiInteractionInformation(x, y), EPI_FOUR))',
};

/** With missing calls: class cls's extended table is its 27 tallies, groups 27·cls + 9x + 3y + z (tripleTallyPlan). */
const SPARSE_EXTENDED_WGSL = `
fn epiExtended(cls: u32, t: u32, rq: u32, cq: u32) -> EpiClass {
  var e: EpiClass;
  for (var m = 0u; m < 27u; m++) { e[m] = tallies[(27u * cls + m) * u.groupWords + t]; }
  return e;
}`;

/**
 * Without (tripleTallyPlan, epistasisFinalize.ts TripleTableSource): the genotype products from groups
 * 8·cls + 4x + 2y + z; one P from the pair counts of the other two SNPs (group 4·cls + 2x + y of the matrix's row and
 * column vector: (j, i) reads group 4·cls + 2y + x); two P from the third SNP's class count (its per-vector words:
 * g0, g1 of controls, then of cases); PPP the class size.
 */
const DENSE_EXTENDED_WGSL = `
fn epiExtended(cls: u32, t: u32, rq: u32, cq: u32) -> EpiClass {
  var e: EpiClass;
  for (var x = 0u; x < 2u; x++) {
    for (var y = 0u; y < 2u; y++) {
      for (var z = 0u; z < 2u; z++) { e[9u * x + 3u * y + z] = tallies[(8u * cls + 4u * x + 2u * y + z) * u.groupWords + t]; }
      e[9u * x + 3u * y + 2u] = pairCountIJ(4u * cls + 2u * y + x, rq);
      e[9u * x + 6u + y] = pairCountIK(4u * cls + 2u * x + y, rq, cq);
      e[18u + 3u * x + y] = pairCountJK(4u * cls + 2u * x + y, cq);
    }
    e[9u * x + 8u] = rowWord(rq, 2u * cls + x);
    e[18u + 3u * x + 2u] = jWord(2u * cls + x);
    e[24u + x] = colWord(cq, 2u * cls + x);
  }
  e[26u] = select(u.numControls, u.numCases, cls == 1u);
  return e;
}`;

/** Per-vector words of a dense run: the vector's class genotype counts (epistasisPairs.ts genotypeCountsOf). */
const DENSE_VECTOR_WORDS = 4;

/**
 * The value program of a score, with missing calls (tripleTallyPlan's 54 tallies) or without (its 16 tallies, the
 * block-pair counts of pairTermGroups(false) and the vectors' class counts).
 */
export function epistasisTripleProgram(score: EpistasisScore, options: { readonly sparse: boolean }): TripleValueProgram {
  const { sparse } = options;
  return {
    cacheKey: `epistasis3/${score}/${sparse ? 'sparse' : 'dense'}`,
    wgsl: `${SCORES_WGSL}
${sparse ? SPARSE_EXTENDED_WGSL : DENSE_EXTENDED_WGSL}
fn tripleValue(t: u32, rq: u32, cq: u32, gi: u32, gj: u32, gk: u32) -> vec2<u32> {
  // Never undefined: a triple with no sample called at all three SNPs scores as on the host (MI 0, K2 of empty cells).
  let si = epiStride(gi, gj, gk);
  let sj = epiStride(gj, gi, gk);
  let sk = epiStride(gk, gi, gj);
  let x = epiClassCells(epiExtended(0u, t, rq, cq), si, sj, sk);
  let y = epiClassCells(epiExtended(1u, t, rq, cq), si, sj, sk);
  return ${ENGINE_VALUE_WGSL[score]};
}`,
    vectorWords: sparse ? 0 : DENSE_VECTOR_WORDS,
    constantNames: [...(sparse ? [] : ['numControls', 'numCases']), ...(score === 'k2' ? ['k2ScaleLo', 'k2ScaleHi'] : [])],
    pairCountGroups: sparse ? 0 : pairTermGroups(false).length,
  };
}

/** Epistasis triple values on the device, or null when the run's table could exceed one storage binding. */
export function epistasisTripleValues(settings: EpistasisFinalizeSettings): TripleValues | null {
  const numField = settings.classSizes[0] + settings.classSizes[1];
  if (8 * (numField + 2) > MAX_WORDS_BYTES) return null;
  const k2Scale = new Uint32Array(new Float64Array([k2ScaleOf(settings.tables)]).buffer);
  const noWords = new Uint32Array(0);
  return {
    program: epistasisTripleProgram(settings.score, { sparse: settings.sparse }),
    constants: [...(settings.sparse ? [] : settings.classSizes), ...(settings.score === 'k2' ? [k2Scale[0], k2Scale[1]] : [])],
    runWords: tableWordsOf(settings, numField),
    // Sparse: the tallies hold every cell, no per-vector word; dense: the class counts of the block's real vectors.
    wordsOf: settings.sparse ? () => noWords : (block) => new Uint32Array(genotypeCountsOf(settings, block, 0, block.numVectorReal).buffer),
  };
}
