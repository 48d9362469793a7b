// Genotype distances between individuals (2-way, vectors = individuals from `prepare --individuals`), exact integers
// from the IBS counts of each pair (ibsCounts.ts): `--metric distance`, the allele-count distance Σ|g_i − g_j| (PLINK
// 1.9's --distance before its missing-call rescaling, which `snptally plink --distance` applies), and `--metric
// sqdist`, the squared Euclidean distance Σ(g_i − g_j)² of 0/1/2 dosages; both over the SNPs both individuals called.
// The checksum and the records hold each pair's counts; a dense matrix holds the distance.
import { UserError } from '../../core/errors.js';
import type { Analysis, AnalysisRun, AnalysisSettings, NativePairCountKind } from '../index.js';
import {
  alleleCountDistance, finalizeDistancePairs, IBS_MAX_FIELDS, IBS_TERM_GROUPS, ibsPlaneLayout, squaredDistance, type DistanceOfCounts,
} from './ibsCounts.js';

export {
  alleleCountDistance, IBS_COUNT_SCALE, IBS_ENTRY, IBS_MAX_FIELDS, IBS_PLANE, IBS_TERM_GROUPS, ibsPlaneLayout, squaredDistance,
} from './ibsCounts.js';

/** A distance analysis named `name` whose value is `distanceOf` the pair's IBS counts (`native`: the same natively). */
function distanceAnalysis(name: string, summary: string, extension: string, distanceOf: DistanceOfCounts, native: NativePairCountKind): Analysis {
  const finalize = finalizeDistancePairs(distanceOf, native);
  return {
    name,
    summary,
    ways: [2],
    results: ['threshold-records', 'dense-matrix'],
    // PLINK 1.9's --distance layout: 0 on the square's diagonal, a triangle without it.
    denseMatrix: { extension, diagonal: 0, diagonalInTriangle: false },
    check({ spec, numField }: AnalysisSettings): void {
      if (spec.numWay !== 2) throw new UserError(`--metric ${name} is 2-way only: a distance is defined for pairs of individuals (drop --way 3)`);
      if (numField > IBS_MAX_FIELDS) {
        throw new UserError(`--fields ${numField} is too large for --metric ${name}: its counts are recorded as float32 (at most ${IBS_MAX_FIELDS} SNPs)`);
      }
    },
    forRun(): AnalysisRun {
      return {
        planes: ibsPlaneLayout(),
        pairs: { termGroups: IBS_TERM_GROUPS, finalize },
        triples: null,
        analyticVerifier: () => null,
      };
    },
  };
}

/** `--metric distance`: Σ|g_i − g_j| over the SNPs both individuals called. */
export const alleleDistanceAnalysis = distanceAnalysis('distance',
  'allele-count distance between individuals (PLINK 1.9 --distance before missing-call rescaling), 2-way; vectors are samples',
  'dist', alleleCountDistance, 'allele-distance');

/** `--metric sqdist`: Σ(g_i − g_j)² of 0/1/2 dosages over the SNPs both individuals called. */
export const squaredDistanceAnalysis = distanceAnalysis('sqdist',
  'squared Euclidean distance of 0/1/2 dosages between individuals, 2-way; vectors are samples',
  'sqdist', squaredDistance, 'squared-distance');
