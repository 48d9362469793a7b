// LD r² of a block of pairs: the popcount tallies r² needs (term groups) and their finalize into one value
// per pair, the squared Pearson correlation of allele-1 dosages over the samples present in both SNPs.
//
// Sums over the samples f present in both SNPs (m_i = m_j = 1), with g = c1 ∈ {0,1,2} = HOM + NONZERO:
//   n = Σ m_i m_j,  Sx = Σ g_i m_j,  Sxx = Σ g_i² m_j = 3 Σ HOM_i m_j + Σ NONZERO_i m_j  (Sy, Syy likewise),
//   Sxy = Σ g_i g_j = 2 Σ (NONZERO_i NONZERO_j + HOM_i HOM_j) − Σ HET_i HET_j
// (3 plane products instead of the 4 of (HOM + NONZERO)(HOM + NONZERO); check: 1·1 = 2 − 1, 1·2 = 2,
// 2·2 = 2 + 2; 3 is the least, since [[1,2],[2,4]] is no sum of 2 weighted 0/1 outer products).
// Then, exactly as PLINK 1.9's --r2 (plink_ld.c, ld_block_thread) computes it:
//   cov = n·Sxy − Sx·Sy,  vx = n·Sxx − Sx²,  vy = n·Syy − Sy²,  r² = (cov·cov) / (vx·vy).
// Every tally is < 2^26, so cov, vx and vy are exact integers in doubles (< 2^52) and r² is the same
// double PLINK computes. A SNP without variance over the common samples (vx·vy = 0, hence cov = 0) gives
// 0/0 = NaN, which PLINK prints as `nan`.
import type { TermGroup } from '../../mgemm/index.js';
import type { FinalizeContext, PairBlock } from '../index.js';
import { R2_PLANE } from './r2Planes.js';

/** The entry bits of r²'s single table entry per pair: (1, 1), allele-1 dosage against allele-1 dosage. */
export const R2_ENTRY_BIT = 1;

const { hom: H, nonzero: L, het: E, present: M } = R2_PLANE;

/**
 * Term groups of r²: [Σ NONZERO NONZERO + Σ HOM HOM, Σ HET HET] (Sxy = 2·first − second), then sparse:
 * [Σ HOM_i m_j, Σ NONZERO_i m_j, Σ m_i HOM_j, Σ m_i NONZERO_j, Σ m_i m_j] (8 plane products, one fewer than
 * sparse CCC); dense (every field present, so n, Sx and Sy are known): [Σ HOM_i m_j, Σ m_i HOM_j], the
 * per-vector counts that give Sxx and Syy.
 */
export function termGroupsR2(sparse: boolean): TermGroup[] {
  const product: TermGroup[] = [[[L, L], [H, H]], [[E, E]]];
  return sparse
    ? [...product, [[H, M]], [[L, M]], [[M, H]], [[M, L]], [[M, M]]]
    : [...product, [[H, M]], [[M, H]]];
}

/**
 * r² of two SNPs from their exact integer sums over the common samples (NaN when one has no variance). That NaN is
 * the positive literal: a computed 0/0 has the CPU's sign (x86: negative) in some compiled code and not in other,
 * so the float32 bits written for it would vary within a run.
 */
export function r2FromSums(n: number, sx: number, sy: number, sxx: number, syy: number, sxy: number): number {
  const cov = n * sxy - sx * sy;
  const vx = n * sxx - sx * sx;
  const vy = n * syy - sy * sy;
  const variances = vx * vy;
  return variances === 0 ? NaN : (cov * cov) / variances;
}

/** What r²'s finalize needs of a run. */
export interface R2Settings {
  readonly sparse: boolean;
  readonly numField: number;
}

/**
 * r² of every pair of the block, one table entry (R2_ENTRY_BIT, R2_ENTRY_BIT) each. `tallies` are the
 * groups of `termGroupsR2(settings.sparse)`, each numRows × numCols. Returns the number of pairs.
 */
export function finalizeR2Pairs(settings: R2Settings, ctx: FinalizeContext, block: PairBlock, tallies: readonly Uint32Array[]): number {
  const { rows, cols } = block;
  const sparse = settings.sparse;
  const rowsReal = Math.min(block.numRows, rows.numVectorReal - block.rowFirst);
  const colsReal = Math.min(block.numCols, cols.numVectorReal - block.colFirst);
  const nonzeroHom = tallies[0];
  const het = tallies[1];
  // Groups 2–6 (sparse): HOM_i m_j, NONZERO_i m_j, m_i HOM_j, m_i NONZERO_j, m_i m_j; 2–3 (dense): HOM_i m_j, m_i HOM_j.
  const homRow = tallies[2];
  const homCol = tallies[sparse ? 4 : 3];
  // Read only in sparse mode.
  const nonzeroRow = sparse ? tallies[3] : homRow;
  const nonzeroCol = sparse ? tallies[5] : homCol;
  const common = sparse ? tallies[6] : homRow;
  const nf = settings.numField;
  const sink = ctx.sink;
  let numPairs = 0;
  const rowValues = rowScratch(colsReal);
  const colSums = cols.sums;
  for (let r = 0; r < rowsReal; r++) {
    const li = block.rowFirst + r;
    const sumI = rows.sums[li];
    const c0 = block.strictUpper ? Math.max(0, r + 1 + block.rowFirst - block.colFirst) : 0;
    const rowAt = r * block.numCols;
    // One loop per mode: the mode's branch stays out of the per-pair loop.
    if (sparse) {
      for (let c = c0, t = rowAt + c0; c < colsReal; c++, t++) {
        const homI = homRow[t], nonzeroI = nonzeroRow[t], homJ = homCol[t], nonzeroJ = nonzeroCol[t];
        rowValues[c - c0] = r2FromSums(common[t], homI + nonzeroI, homJ + nonzeroJ, 3 * homI + nonzeroI, 3 * homJ + nonzeroJ, 2 * nonzeroHom[t] - het[t]);
      }
    } else {
      // Σ g² = 3 HOM + NONZERO = Σ g + 2 HOM.
      for (let c = c0, t = rowAt + c0; c < colsReal; c++, t++) {
        const sy = colSums[block.colFirst + c];
        rowValues[c - c0] = r2FromSums(nf, sumI, sy, sumI + 2 * homRow[t], sy + 2 * homCol[t], 2 * nonzeroHom[t] - het[t]);
      }
    }
    if (colsReal > c0) {
      sink.addPairEntryRow(rows.vectorFirst + li, R2_ENTRY_BIT, cols.vectorFirst + block.colFirst + c0, R2_ENTRY_BIT, colsReal - c0, rowValues);
      numPairs += colsReal - c0;
    }
  }
  return numPairs;
}

/** A row's values, kept from call to call on the thread (a fresh array per block was a tenth of a windowed run's finalize). */
let rowValuesScratch = new Float64Array(0);

function rowScratch(length: number): Float64Array {
  if (rowValuesScratch.length < length) rowValuesScratch = new Float64Array(Math.max(length, 2 * rowValuesScratch.length));
  return rowValuesScratch;
}
