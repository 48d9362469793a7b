// LD r² (`--metric r2`): the squared Pearson correlation of two SNPs' allele-1 dosages over the samples present in
// both, exactly as PLINK 1.9's --r2 computes it (r2Values.ts). 2-way only.
import { UserError } from '../../core/errors.js';
import { checkTallyLimit } from '../../core/limits.js';
import type { Analysis, AnalysisRun, AnalysisSettings } from '../index.js';
import { r2PlaneLayout } from './r2Planes.js';
import { ProgramDevicePairs } from '../index.js';
import { r2PairValues } from './r2PairProgram.js';
import { finalizeR2Pairs, R2_ENTRY_BIT, termGroupsR2 } from './r2Values.js';
import { finalizeR2WindowBand } from './r2WindowBand.js';
import { HISTOGRAM_BUCKETS_PER_UNIT, type HistogramLayout } from '../../core/histogramLayout.js';

export { R2_PLANE, r2PlaneLayout } from './r2Planes.js';
export { R2_ENTRY_BIT, r2FromSums, termGroupsR2 } from './r2Values.js';
export { loadNativeR2Addon, type NativeR2Addon } from './native/nativeR2Band.js';
export type { LdSpanPairs, LdTextJob } from './native/nativeLdText.js';

export const analysis: Analysis = {
  name: 'r2',
  summary: 'LD r² (squared correlation of allele-1 dosages, PLINK 1.9 --r2), 2-way',
  ways: [2],
  results: ['threshold-records', 'dense-matrix', 'histogram', 'top-n'],
  strongerValues: 'larger',
  // PLINK 1.9's --r2 matrices: <out>.ld / <out>.ld.bin, 1 on the diagonal, which its triangle includes.
  denseMatrix: { extension: 'ld', diagonal: 1, diagonalInTriangle: true },
  check({ spec, numField }: AnalysisSettings): void {
    if (spec.numWay !== 2) throw new UserError('--metric r2 is 2-way only: LD r² is defined for pairs of SNPs (drop --way 3)');
    // Σ g_i g_j ≤ 4·nf bounds every sum r² takes from its tallies.
    checkTallyLimit('r2', spec.numWay, 4, numField);
  },
  forRun({ spec, numVector, numField }: AnalysisSettings): AnalysisRun {
    const settings = { sparse: spec.sparse, numField };
    return {
      planes: r2PlaneLayout(spec.sparse),
      pairs: {
        termGroups: termGroupsR2(spec.sparse),
        finalize: (ctx, block, tallies) => finalizeR2Pairs(settings, ctx, block, tallies),
        finalizeWindowBand: finalizeR2WindowBand,
        deviceFinalizer: (gemm, threshold, options) =>
          ProgramDevicePairs.create(r2PairValues(spec.sparse, numField), gemm, threshold, numVector, options),
      },
      triples: null,
      histogramLayout: r2HistogramLayout,
      analyticVerifier: () => null,
    };
  },
};

/**
 * snptally's own extension of SPEC §9 to r²: one column R2 of its one entry, 1000 buckets over [0, 1] (r² = 1 in the
 * last), the same truncation; an undefined r² (NaN) counts in no bucket.
 */
function r2HistogramLayout(): HistogramLayout {
  const entry = 2 * R2_ENTRY_BIT + R2_ENTRY_BIT;
  return {
    numBuckets: HISTOGRAM_BUCKETS_PER_UNIT,
    columnNames: ['R2'],
    entryColumns: [0, 1, 2, 3].map((e) => (e === entry ? 0 : -1)),
    sumColumns: [],
  };
}
