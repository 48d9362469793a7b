// 2-way case-control epistasis as a device value program (mgemm/pairFinalize.ts PairValueProgram): each pair's
// 3 × 3 × 2 table from its tallies, its K2, MI or IG and its engine value, one float per pair named by the pair
// (ResultSink.addTupleValueRow's checksum and records), so that only the top-N candidates come back.
//
// Exact by construction, not by an error bound: the value is the host's double bit for bit (epistasisPairs.ts
// finalizeEpistasisPairs, epistasisScores.ts). Integer cells are exact in u32; the scores are the host's sequence of
// IEEE additions, subtractions, one multiplication and divisions, each correctly rounded in soft double
// (wgsl/softDouble.ts), on the host's own table — ln n! (K2) or n·ln n (MI, IG) for n ≤ N + 1, the doubles the host
// summed, uploaded before the per-vector words (2N words: 2 MiB at N = 2^18, within one storage binding, where
// WebGPU's 8 bindings per stage leave no room for a buffer of its own). So engine values, checksum, thresholds,
// --score-threshold records and top-N candidates are the host finalize's on every backend, and the search's check of
// each candidate's float32 value against its rescored double holds as it does on the CPU. (Rejected: f32 or
// float-float Stirling with a proven bound ε — it would loosen every bar and threshold by ε and make the checksum
// and records differ from the CPU path's.) Soft double costs ~30 soft operations per pair against the GEMM's
// 8 × N/32 words per pair: small beside the GEMM at the sample sizes where the GPU pays.
// Every intermediate is ±0 or normal (the library's precondition): table entries are 0 or ≥ ln 2, sums and differences
// of such doubles are 0 or ≥ 2^-53 in magnitude, and the quotients of MI stay far above 2^-1022.
import type { PairValueProgram } from '../../mgemm/index.js';
import type { EpistasisScore } from '../../core/types.js';
import type { VectorBlockView } from '../index.js';
import type { PairValues } from '../index.js';
import { KINDS_PER_CLASS, NUM_CLASSES, pairTermGroups } from './epistasisPlanes.js';
import { genotypeCountsOf, type EpistasisFinalizeSettings } from './epistasisPairs.js';
import { k2ScaleOf } from './epistasisScores.js';

/**
 * Most bytes of a block's words (table and per-vector counts): WebGPU's default maxStorageBufferBindingSize, which
 * every adapter offers; a larger run finalizes on the host.
 */
export const MAX_WORDS_BYTES = 2 ** 27;

/** Per-vector words of a dense run: class genotype counts g0, g1 of controls, then of cases (genotypeCountsOf). */
const DENSE_VECTOR_WORDS = 4;

const bitsScratch = new DataView(new ArrayBuffer(8));

/** The WGSL literal of a double's bits (lo, hi). */
export function doubleWgsl(x: number): string {
  bitsScratch.setFloat64(0, x, true);
  return `vec2<u32>(0x${bitsScratch.getUint32(0, true).toString(16)}u, 0x${bitsScratch.getUint32(4, true).toString(16)}u)`;
}

/** The doubles the score programs (2- and 3-way) share: engineValueOf's constants and ln 2 of MI in bits. */
export const SCORE_CONSTANTS_WGSL = `
const EPI_ZERO = vec2<u32>(0u, 0u);
const EPI_FOUR = ${doubleWgsl(4)};
const EPI_FIFTEEN = ${doubleWgsl(15)};
const EPI_MAX_VALUE = ${doubleWgsl(15.5)};
const EPI_LN2 = ${doubleWgsl(Math.log(2))};`;

/** The host's score arithmetic on cells x (controls) and y (cases): epistasisScores.ts k2Score, mutualInformation, engineValueOf. */
const SCORES_WGSL = `${SCORE_CONSTANTS_WGSL}
/** A genotype × class table: controls' cells x, cases' y, cell 3·g_row + g_col (a marginal: its first 3). */
struct EpiCells {
  x: array<u32, 9>,
  y: array<u32, 9>,
}
/** Entry n of the run's table (ln n! or n·ln n), the double at rowVec[2n], rowVec[2n + 1]. */
fn epiTable(n: u32) -> vec2<u32> {
  return vec2<u32>(rowVec[2u * n], rowVec[2u * n + 1u]);
}
/** engineValueOf's clamp: Math.min(15.5, Math.max(0, v)) (a negative or −0 value is +0). */
fn epiClamp(v: vec2<u32>) -> vec2<u32> {
  if ((v.y & SD_SIGN) != 0u) { return EPI_ZERO; }
  return select(v, EPI_MAX_VALUE, sdLessNonNegative(EPI_MAX_VALUE, v));
}
/** K2 = Σ_c (ln(x+y+1)! − ln x! − ln y!), added cell by cell. */
fn epiK2(cells: EpiCells) -> vec2<u32> {
  var sum = EPI_ZERO;
  for (var c = 0u; c < 9u; c++) {
    let a = cells.x[c];
    let b = cells.y[c];
    sum = sdAdd(sum, sdSub(sdSub(epiTable(a + b + 1u), epiTable(a)), epiTable(b)));
  }
  return sum;
}
/** MI in bits of the first numCell cells: (Σ n_xy ln n_xy − Σ n_x ln n_x − n_0 ln n_0 − n_1 ln n_1 + N ln N) / (N ln 2). */
fn epiMutualInformation(cells: EpiCells, numCell: u32) -> vec2<u32> {
  var joint = EPI_ZERO;
  var marginal = EPI_ZERO;
  var numControls = 0u;
  var numCases = 0u;
  for (var c = 0u; c < numCell; c++) {
    let a = cells.x[c];
    let b = cells.y[c];
    joint = sdAdd(joint, sdAdd(epiTable(a), epiTable(b)));
    marginal = sdAdd(marginal, epiTable(a + b));
    numControls += a;
    numCases += b;
  }
  let total = numControls + numCases;
  if (total == 0u) { return EPI_ZERO; }
  let numerator = sdAdd(sdSub(sdSub(sdSub(joint, marginal), epiTable(numControls)), epiTable(numCases)), epiTable(total));
  return sdDiv(numerator, sdMul(sdFromU32(total), EPI_LN2));
}
/** The cells of the transposed pair (canonical order when the row SNP is the later one: cell 3·g_col + g_row). */
fn epiTransposed(cells: EpiCells) -> EpiCells {
  var out: EpiCells;
  for (var c = 0u; c < 9u; c++) {
    out.x[3u * (c % 3u) + c / 3u] = cells.x[c];
    out.y[3u * (c % 3u) + c / 3u] = cells.y[c];
  }
  return out;
}
/** The table summed over the column SNP (keep the row's genotype) or over the row SNP. */
fn epiMarginal(cells: EpiCells, keepRow: bool) -> EpiCells {
  var m: EpiCells;
  for (var g = 0u; g < 3u; g++) {
    let c0 = select(g, 3u * g, keepRow);
    let step = select(3u, 1u, keepRow);
    m.x[g] = cells.x[c0] + cells.x[c0 + step] + cells.x[c0 + 2u * step];
    m.y[g] = cells.y[c0] + cells.y[c0 + step] + cells.y[c0 + 2u * step];
  }
  return m;
}`;

/** The engine value of each score from the pair's cells (engineValueOf: K2 reversed and scaled, IG shifted by 4). */
const ENGINE_VALUE_WGSL: Record<EpistasisScore, string> = {
  k2: 'epiClamp(sdSub(EPI_FIFTEEN, sdMul(epiK2(cells), vec2<u32>(u.k2ScaleLo, u.k2ScaleHi))))',
  mi: 'epiClamp(epiMutualInformation(cells, 9u))',
  ig: 'epiClamp(sdAdd(sdSub(sdSub(epiMutualInformation(cells, 9u), epiMutualInformation(epiMarginal(cells, true), 3u)), ' +
    'epiMutualInformation(epiMarginal(cells, false), 3u)), EPI_FOUR))',
};

/**
 * Dense cells (epistasisPairs.ts DensePairScorer): groups 4·cls + 2x + y are n_xy; the other cells by inclusion–exclusion
 * from the vectors' class counts and the class sizes, exact in u32 (every true cell is a count ≥ 0).
 */
const DENSE_CELLS_WGSL = `
fn epiCells(vi: u32, vj: u32, t: u32) -> EpiCells {
  let g = u.groupWords;
  let ri = u.tableWords + vi;
  let ci = u.tableWords + vj;
  var cells: EpiCells;
  for (var cls = 0u; cls < 2u; cls++) {
    let n00 = tallies[(4u * cls) * g + t];
    let n01 = tallies[(4u * cls + 1u) * g + t];
    let n10 = tallies[(4u * cls + 2u) * g + t];
    let n11 = tallies[(4u * cls + 3u) * g + t];
    let r0 = rowVec[ri + 2u * cls];
    let r1 = rowVec[ri + 2u * cls + 1u];
    let k0 = colVec[ci + 2u * cls];
    let k1 = colVec[ci + 2u * cls + 1u];
    let size = select(u.numControls, u.numCases, cls == 1u);
    let c = array<u32, 9>(n00, n01, r0 - n00 - n01, n10, n11, r1 - n10 - n11, k0 - n00 - n10, k1 - n01 - n11,
      size - r0 - r1 - k0 - k1 + n00 + n01 + n10 + n11);
    if (cls == 0u) { cells.x = c; } else { cells.y = c; }
  }
  return cells;
}`;

/**
 * Sparse cells: groups 9·cls + 3x + y over {g0, g1, P}², then genotypeCellsInPlace's inclusion–exclusion (the P entry
 * of each axis becomes genotype 2), exact in u32.
 */
const SPARSE_CELLS_WGSL = `
fn epiClassCells(first: u32, t: u32) -> array<u32, 9> {
  let g = u.groupWords;
  var e: array<u32, 9>;
  for (var k = 0u; k < 9u; k++) { e[k] = tallies[(first + k) * g + t]; }
  e[2] -= e[0] + e[1];
  e[5] -= e[3] + e[4];
  e[8] -= e[6] + e[7];
  e[6] -= e[0] + e[3];
  e[7] -= e[1] + e[4];
  e[8] -= e[2] + e[5];
  return e;
}
fn epiCells(vi: u32, vj: u32, t: u32) -> EpiCells {
  return EpiCells(epiClassCells(0u, t), epiClassCells(9u, t));
}`;

/** The value program of a score, dense (no missing call) or sparse. */
export function epistasisPairProgram(score: EpistasisScore, sparse: boolean): PairValueProgram {
  return {
    cacheKey: `epistasis/${score}/${sparse ? 'sparse' : 'dense'}`,
    wgsl: `${SCORES_WGSL}
${sparse ? SPARSE_CELLS_WGSL : DENSE_CELLS_WGSL}
fn pairValues(vi: u32, vj: u32, t: u32, gi: u32, gj: u32) -> array<vec2<u32>, 1> {
  // Never undefined: a pair with no sample called at both SNPs scores as on the host (MI 0, K2 of empty cells).
  // Cells in canonical order, the earlier SNP's genotype slowest (epistasisCells.ts), as the host scores them.
  var cells = epiCells(vi, vj, t);
  if (gi > gj) { cells = epiTransposed(cells); }
  return array<vec2<u32>, 1>(${ENGINE_VALUE_WGSL[score]});
}`,
    setup: '',
    entryBits: [0],
    vectorWords: sparse ? 0 : DENSE_VECTOR_WORDS,
    constantNames: ['tableWords', ...(sparse ? [] : ['numControls', 'numCases']), ...(score === 'k2' ? ['k2ScaleLo', 'k2ScaleHi'] : [])],
    naming: 'pairs',
  };
}

/** The run's table as u32 words: entries 0 … N + 1 of ln n! (K2) or n·ln n (MI, IG), the host's doubles. */
export function tableWordsOf(settings: EpistasisFinalizeSettings, numField: number): Uint32Array {
  const source = settings.score === 'k2' ? settings.tables.logFactorial : settings.tables.nLogN;
  const doubles = Float64Array.from(source.subarray(0, numField + 2));
  // Little-endian words (lo, hi) of each double, as the soft-double library takes them.
  const words = new Uint32Array(2 * doubles.length);
  const view = new DataView(doubles.buffer);
  for (let n = 0; n < words.length; n++) words[n] = view.getUint32(4 * n, true);
  return words;
}

/**
 * Epistasis pair values on the device for a run of `numVector` SNPs, or null when a block's words (the table and its
 * vectors' counts) could exceed one storage binding.
 */
export function epistasisPairValues(settings: EpistasisFinalizeSettings, numVector: number): PairValues | null {
  const [numControls, numCases] = settings.classSizes;
  const numField = numControls + numCases;
  const vectorWords = settings.sparse ? 0 : DENSE_VECTOR_WORDS;
  if (8 * (numField + 2) + 4 * vectorWords * numVector > MAX_WORDS_BYTES) return null;
  const table = tableWordsOf(settings, numField);
  const k2Scale = new Uint32Array(new Float64Array([k2ScaleOf(settings.tables)]).buffer);
  return {
    program: epistasisPairProgram(settings.score, settings.sparse),
    constants: [table.length, ...(settings.sparse ? [] : [numControls, numCases]), ...(settings.score === 'k2' ? [k2Scale[0], k2Scale[1]] : [])],
    termGroups: pairTermGroups(settings.sparse),
    // Each class plane's words (the host path's planeWordRanges): the GPU's u8 GEMMs then sweep a class's words only.
    planeWordRanges: Array.from({ length: NUM_CLASSES * KINDS_PER_CLASS }, (_, plane) => settings.classWords[Math.floor(plane / KINDS_PER_CLASS)]),
    // Sparse: the table alone, one array for every block (uploaded once).
    wordsOf: settings.sparse ? () => table : (block) => denseWordsOf(settings, table, block),
  };
}

/** The table, then per vector of the block its class genotype counts (pad rows: zeros, never computed). */
function denseWordsOf(settings: EpistasisFinalizeSettings, table: Uint32Array, block: VectorBlockView): Uint32Array {
  const words = new Uint32Array(table.length + DENSE_VECTOR_WORDS * block.planes.numVectors);
  words.set(table);
  words.set(genotypeCountsOf(settings, block, 0, block.numVectorReal), table.length);
  return words;
}
