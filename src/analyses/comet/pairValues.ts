// CoMet's 2-way finalize: tallies of a block of pairs → the four table entries r_ab → values (SPEC §2–3).
import { combine2, denseFactors2, sparseValue2 } from '../../core/formulas.js';
import type { FinalizeContext, PairBlock } from '../index.js';
import type { CometSettings } from './cometSettings.js';

/**
 * Values of every pair of the block. `tallies` are the term groups of `termGroups2`:
 * dense [Σ c_i c_j]; sparse [Σ c_i c_j, Σ c_i m_j, Σ m_i c_j, Σ m_i m_j], each numRows × numCols.
 */
export function finalizeCometPairs(run: CometSettings, ctx: FinalizeContext, block: PairBlock, tallies: readonly Uint32Array[]): number {
  const { rows, cols } = block;
  const C = run.constants.countedBits;
  const sparse = run.sparse;
  const rowsReal = Math.min(block.numRows, rows.numVectorReal - block.rowFirst);
  const colsReal = Math.min(block.numCols, cols.numVectorReal - block.colFirst);
  const [r11s, sIJs, sJIs, nIJs] = tallies;
  const k = run.constants;
  // Dense: f factors depend on one vector only, so compute them once per vector (same operations).
  const nf = run.numField;
  const { recipCrc, rsum } = denseFactors2(k, nf);
  let numPairs = 0;
  // Values of one row, 4 per pair (entry bits a, b at 2a + b), handed to the sink a row at a time.
  const rowValues = new Float64Array(4 * Math.max(0, colsReal));
  for (let r = 0; r < rowsReal; r++) {
    const li = block.rowFirst + r;
    const i = rows.vectorFirst + li;
    const si1 = rows.sums[li];
    const ci = sparse ? rows.counts[li] : nf;
    const si0 = C * ci - si1;
    const c0 = block.strictUpper ? Math.max(0, r + 1 + block.rowFirst - block.colFirst) : 0;
    for (let c = c0; c < colsReal; c++) {
      const lj = block.colFirst + c;
      const j = cols.vectorFirst + lj;
      const t = r * block.numCols + c;
      const r11 = r11s[t];
      const sj1 = cols.sums[lj];
      let r10: number, r01: number, r00: number;
      let v00: number, v01: number, v10: number, v11: number;
      if (sparse) {
        const cj = cols.counts[lj];
        const sj0 = C * cj - sj1;
        const sIJ = sIJs[t], sJI = sJIs[t], nIJ = nIJs[t];
        r10 = C * sIJ - r11;
        r01 = C * sJI - r11;
        r00 = C * C * nIJ - C * sIJ - C * sJI + r11;
        const cij = r00 + r01 + r10 + r11;
        v00 = sparseValue2(k, r00, si0, sj0, ci, cj, cij);
        v01 = sparseValue2(k, r01, si0, sj1, ci, cj, cij);
        v10 = sparseValue2(k, r10, si1, sj0, ci, cj, cij);
        v11 = sparseValue2(k, r11, si1, sj1, ci, cj, cij);
      } else {
        const sj0 = C * nf - sj1;
        r10 = C * si1 - r11;
        r01 = C * sj1 - r11;
        r00 = C * C * nf - C * si1 - C * sj1 + r11;
        const fi0 = recipCrc * si0, fi1 = recipCrc * si1, fj0 = recipCrc * sj0, fj1 = recipCrc * sj1;
        v00 = combine2(k, rsum * r00, fi0, fj0);
        v01 = combine2(k, rsum * r01, fi0, fj1);
        v10 = combine2(k, rsum * r10, fi1, fj0);
        v11 = combine2(k, rsum * r11, fi1, fj1);
      }
      const at = 4 * (c - c0);
      rowValues[at] = v00;
      rowValues[at + 1] = v01;
      rowValues[at + 2] = v10;
      rowValues[at + 3] = v11;
      if (ctx.verifier !== null) {
        ctx.verifier.check2(i, 0, j, 0, v00);
        ctx.verifier.check2(i, 0, j, 1, v01);
        ctx.verifier.check2(i, 1, j, 0, v10);
        ctx.verifier.check2(i, 1, j, 1, v11);
      }
    }
    if (colsReal > c0) {
      ctx.sink.addPairRow(i, cols.vectorFirst + block.colFirst + c0, colsReal - c0, rowValues);
      numPairs += colsReal - c0;
    }
  }
  return numPairs;
}
