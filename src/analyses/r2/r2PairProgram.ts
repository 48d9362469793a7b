// LD r² as a device value program (mgemm/pairFinalize.ts PairValueProgram): one table entry per pair, (1, 1), the
// same double as r2Values.ts r2FromSums. cov = n·Sxy − Sx·Sy, vx = n·Sxx − Sx², vy = n·Syy − Sy² are exact
// integers below 2^52 (n < 2^25, every sum ≤ 4n), computed in u64 and converted exactly, so that r² =
// (cov·cov)/(vx·vy) takes the host's three IEEE roundings in soft double. A SNP without variance over the common
// samples (vx or vy = 0, hence cov = 0) gives the host's 0/0: the undefined value.
import { PAIR_VALUE_UNDEFINED_WGSL, type PairValueProgram } from '../../mgemm/index.js';
import type { PairValues } from '../index.js';
import { termGroupsR2 } from './r2Values.js';

/** Entry bits 2a + b of r²'s one entry per pair: (1, 1), allele-1 dosage against allele-1 dosage. */
const R2_ENTRY_BITS = 3;

/** n < 2^25 keeps n·Sxy, Sx·Sy, n·Sxx and Sx² (each ≤ 4n²) below 2^52: exact on the host and in u64 here. */
const MAX_NUM_FIELD = 2 ** 25;

/** cov, vx, vy from the sums (u32), then r² in soft double; the sums come from the mode's own reads. */
function r2FromSumsWgsl(readSums: string): string {
  return `
fn pairValues(vi: u32, vj: u32, t: u32, gi: u32, gj: u32) -> array<vec2<u32>, 1> {
  let g = u.groupWords;
  // Sxy = 2 Σ (NONZERO NONZERO + HOM HOM) − Σ HET HET (r2Values.ts): groups 0 and 1.
  let sxy = 2u * tallies[t] - tallies[g + t];
${readSums}
  let vx = u64Sub(u64MulU32(n, sxx), u64MulU32(sx, sx));
  let vy = u64Sub(u64MulU32(n, syy), u64MulU32(sy, sy));
  if (u64IsZero(vx) || u64IsZero(vy)) { return array<vec2<u32>, 1>(${PAIR_VALUE_UNDEFINED_WGSL}); }
  // |cov|: the square is the same double for either sign.
  let nSxy = u64MulU32(n, sxy);
  let sxSy = u64MulU32(sx, sy);
  let cov = sdFromU64(select(u64Sub(nSxy, sxSy), u64Sub(sxSy, nSxy), u64Less(nSxy, sxSy)));
  return array<vec2<u32>, 1>(sdDiv(sdMul(cov, cov), sdMul(sdFromU64(vx), sdFromU64(vy))));
}`;
}

/**
 * Sparse: groups 2–6 are Σ HOM_i m_j, Σ NONZERO_i m_j, Σ m_i HOM_j, Σ m_i NONZERO_j, Σ m_i m_j (r2Values.ts
 * termGroupsR2): g = HOM + NONZERO, g² = 3 HOM + NONZERO over the common samples.
 */
const SPARSE_SUMS = `  let homI = tallies[2u * g + t];
  let nonzeroI = tallies[3u * g + t];
  let homJ = tallies[4u * g + t];
  let nonzeroJ = tallies[5u * g + t];
  let n = tallies[6u * g + t];
  let sx = homI + nonzeroI;
  let sy = homJ + nonzeroJ;
  let sxx = 3u * homI + nonzeroI;
  let syy = 3u * homJ + nonzeroJ;`;

/** Dense: every field present; Sx, Sy are the vectors' sums (word 0), groups 2–3 their HOM counts: Σ g² = Σ g + 2 HOM. */
const DENSE_SUMS = `  let n = u.numField;
  let sx = rowVec[vi];
  let sy = colVec[vj];
  let sxx = sx + 2u * tallies[2u * g + t];
  let syy = sy + 2u * tallies[3u * g + t];`;

const SPARSE_PROGRAM: PairValueProgram = {
  cacheKey: 'r2/sparse', wgsl: r2FromSumsWgsl(SPARSE_SUMS), setup: '', entryBits: [R2_ENTRY_BITS], vectorWords: 0, constantNames: [],
};

const DENSE_PROGRAM: PairValueProgram = {
  cacheKey: 'r2/dense', wgsl: r2FromSumsWgsl(DENSE_SUMS), setup: '', entryBits: [R2_ENTRY_BITS], vectorWords: 1, constantNames: ['numField'],
};

/** The value program of dense or sparse r² (tallies: r2Values.ts termGroupsR2). */
export function r2PairProgram(sparse: boolean): PairValueProgram {
  return sparse ? SPARSE_PROGRAM : DENSE_PROGRAM;
}

/** The program's constants for a run (dense: nf), or null when its sums could exceed the exact range. */
export function r2PairConstants(sparse: boolean, numField: number): number[] | null {
  if (numField >= MAX_NUM_FIELD) return null;
  return sparse ? [] : [numField];
}

/** Per-vector words for `numVectors` rows, the first `numReal` real: dense Σ g (the vector sums), sparse none. */
export function r2PairVectorWords(sparse: boolean, numVectors: number, numReal: number, sums: ArrayLike<number>): Uint32Array {
  if (sparse) return new Uint32Array(0);
  const words = new Uint32Array(numVectors);
  for (let l = 0; l < numReal; l++) words[l] = sums[l];
  return words;
}

/** r²'s pair values on the device, or null when the run's sums could leave the program's exact range. */
export function r2PairValues(sparse: boolean, numField: number): PairValues | null {
  const constants = r2PairConstants(sparse, numField);
  if (constants === null) return null;
  return {
    program: r2PairProgram(sparse), constants, termGroups: termGroupsR2(sparse),
    wordsOf: (block) => r2PairVectorWords(sparse, block.planes.numVectors, block.numVectorReal, block.sums),
  };
}
