// KING-robust kinship between individuals (`--metric king`, 2-way, vectors = individuals from `prepare
// --individuals`): plink2's --make-king estimator from exact integer counts (kingCounts.ts; on the GPU
// kingPairProgram.ts). The checksum and the records hold each pair's counts; a dense matrix (plink2's .king) holds the
// kinship.
import { UserError } from '../../core/errors.js';
import type { Analysis, AnalysisRun, AnalysisSettings } from '../index.js';
import { ProgramDevicePairs } from '../index.js';
import { finalizeKingPairs, KING_TERM_GROUPS, kingPlaneLayout } from './kingCounts.js';
import { kingPairValues } from './kingPairProgram.js';

export { KING_COUNT_SCALE, KING_ENTRY, KING_PLANE, KING_TERM_GROUPS, kingKinship, kingPlaneLayout } from './kingCounts.js';
export { KING_PAIR_PROGRAM } from './kingPairProgram.js';

/** Most SNPs: every count must be exact as a float32 record (< 2^24). */
export const KING_MAX_FIELDS = 2 ** 24 - 1;

export const analysis: Analysis = {
  name: 'king',
  summary: 'KING-robust kinship between individuals (plink2 --make-king), 2-way; vectors are samples (prepare --individuals)',
  ways: [2],
  results: ['threshold-records', 'dense-matrix'],
  // plink2's --make-king: <out>.king / <out>.king.bin, 0.5 on the square's diagonal, a triangle without it.
  denseMatrix: { extension: 'king', diagonal: 0.5, diagonalInTriangle: false },
  check({ spec, numField }: AnalysisSettings): void {
    if (spec.numWay !== 2) throw new UserError('--metric king is 2-way only: kinship is defined for pairs of individuals (drop --way 3)');
    if (numField > KING_MAX_FIELDS) {
      throw new UserError(`--fields ${numField} is too large for KING: its counts are recorded as float32 (at most ${KING_MAX_FIELDS} SNPs)`);
    }
  },
  forRun({ numVector }: AnalysisSettings): AnalysisRun {
    return {
      planes: kingPlaneLayout(),
      pairs: {
        termGroups: KING_TERM_GROUPS, finalize: finalizeKingPairs,
        // On the GPU: counts, kinship, threshold, checksum and records (or the dense matrix) where the tallies lie.
        deviceFinalizer: (gemm, threshold, options) => ProgramDevicePairs.create(kingPairValues(), gemm, threshold, numVector, options),
      },
      triples: null,
      analyticVerifier: () => null,
    };
  },
};
