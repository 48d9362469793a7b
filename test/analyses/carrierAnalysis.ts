// A small analysis of the tests' own, written only against the public interface (src/analyses/index.ts): carrier
// co-occurrence. A field carries the allele when its genotype is nonzero (codes 01, 10, 11; 00 does not). Entry
// bits say carrier (1) or not (0): the value of entry (a, b) of a pair is the fraction of fields where i's carrier
// bit is a and j's is b; 3-way likewise over (a, b, c). From one plane, the tallies are Σ c_i c_j (2-way) and
// Σ c_i c_j c_k with the block-pair counts Σ c_x c_y (3-way); the other cells follow by inclusion–exclusion.
import { UserError } from '../../src/core/errors.js';
import {
  planeBitsOfCodes, type Analysis, type AnalysisRun, type AnalysisSettings, type BlockPairCounts, type FinalizeContext,
  type PairBlock, type TripleSlice,
} from '../../src/analyses/index.js';

export const CARRIER_ANALYSIS_NAME = 'carriers';
/** This module's URL, as a job names the analysis (JobSpec.analysisModule). */
export const CARRIER_ANALYSIS_MODULE = import.meta.url;

const CARRIER_PLANE = 0;

function finalizePairs(numField: number, ctx: FinalizeContext, block: PairBlock, tallies: readonly Uint32Array[]): number {
  const [both] = tallies;
  const rowsReal = Math.min(block.numRows, block.rows.numVectorReal - block.rowFirst);
  const colsReal = Math.min(block.numCols, block.cols.numVectorReal - block.colFirst);
  const values = new Float64Array(4 * Math.max(0, colsReal));
  let numPairs = 0;
  for (let r = 0; r < rowsReal; r++) {
    const li = block.rowFirst + r;
    const c0 = block.strictUpper ? Math.max(0, r + 1 + block.rowFirst - block.colFirst) : 0;
    for (let c = c0; c < colsReal; c++) {
      const r11 = both[r * block.numCols + c];
      const si = block.rows.sums[li], sj = block.cols.sums[block.colFirst + c];
      const at = 4 * (c - c0);
      values[at] = (numField - si - sj + r11) / numField;
      values[at + 1] = (sj - r11) / numField;
      values[at + 2] = (si - r11) / numField;
      values[at + 3] = r11 / numField;
    }
    if (colsReal > c0) {
      ctx.sink.addPairRow(block.rows.vectorFirst + li, block.cols.vectorFirst + block.colFirst + c0, colsReal - c0, values);
      numPairs += colsReal - c0;
    }
  }
  return numPairs;
}

function finalizeTriples(
  numField: number, ctx: FinalizeContext, slice: TripleSlice, tallies: readonly Uint32Array[], pairCounts: BlockPairCounts | null,
): number {
  if (pairCounts === null) throw new Error('carriers 3-way needs its block-pair counts');
  const [all] = tallies;
  const { iBlock, jBlock, kBlock, jLocal } = slice;
  const numIReal = Math.min(slice.numI, iBlock.numVectorReal - slice.iFirst);
  const numKReal = Math.min(slice.numK, kBlock.numVectorReal - slice.kFirst);
  if (numIReal <= 0 || numKReal <= 0) return 0;
  const values = new Float64Array(8 * numKReal);
  const sj = jBlock.sums[jLocal];
  for (let ri = 0; ri < numIReal; ri++) {
    const li = slice.iFirst + ri;
    const si = iBlock.sums[li];
    const tij = pairCounts.ij.data[li * pairCounts.ij.numCols + jLocal];
    for (let rk = 0; rk < numKReal; rk++) {
      const lk = slice.kFirst + rk;
      const sk = kBlock.sums[lk];
      const tik = pairCounts.ik.data[li * pairCounts.ik.numCols + lk];
      const tjk = pairCounts.jk.data[jLocal * pairCounts.jk.numCols + lk];
      const t = all[ri * slice.numK + rk];
      // Cells (a, b, c) at 4a + 2b + c by inclusion–exclusion.
      const cells = [
        numField - si - sj - sk + tij + tik + tjk - t, sk - tik - tjk + t, sj - tij - tjk + t, tjk - t,
        si - tij - tik + t, tik - t, tij - t, t,
      ];
      for (let e = 0; e < 8; e++) values[8 * rk + e] = cells[e] / numField;
    }
    ctx.sink.addTripleRow(iBlock.vectorFirst + li, jBlock.vectorFirst + jLocal, kBlock.vectorFirst + slice.kFirst, numKReal, values);
  }
  return numIReal * numKReal;
}

export const analysis: Analysis = {
  name: CARRIER_ANALYSIS_NAME,
  summary: 'carrier co-occurrence (a test analysis)',
  ways: [2, 3],
  results: ['threshold-records'],
  check({ spec }: AnalysisSettings): void {
    if (spec.sparse) throw new UserError('carriers has no sparse mode');
  },
  forRun({ spec, numField }: AnalysisSettings): AnalysisRun {
    const both = [[CARRIER_PLANE, CARRIER_PLANE] as const];
    return {
      planes: {
        numPlanes: 1, countPlanes: [CARRIER_PLANE], maskPlane: null,
        bitsOfCode: planeBitsOfCodes(false, (b1, b0) => [b1 | b0]),
      },
      pairs: spec.numWay !== 2 ? null : {
        termGroups: [both],
        finalize: (ctx, block, tallies) => finalizePairs(numField, ctx, block, tallies),
      },
      triples: spec.numWay !== 3 ? null : {
        plan: { planePairs: both, termGroups: [[[0, CARRIER_PLANE]]], pairCountGroup: both },
        finalize: (ctx, slice, tallies, pairCounts) => finalizeTriples(numField, ctx, slice, tallies, pairCounts),
      },
      analyticVerifier: () => null,
    };
  },
};
