// Czekanowski (Proportional Similarity), CoMet's third metric (SPEC §8): real-valued vectors, 2-way
// `2·Σ min(v_i, v_j) / (s_i + s_j)` and 3-way, one value per tuple, in double or single precision.
import { UserError } from '../../core/errors.js';
import type { AnalysisSettings, AnalysisRun, Analysis, PlaneLayout } from '../analysis.js';
import { sumWordsOf, valueBits } from '../../mgemm/index.js';
import type { RealPrecision } from '../../core/realProblems.js';
import { pairOrTripleWay, type NumWay } from '../../core/types.js';
import { finalizeCzekanowskiPairs, finalizeCzekanowskiTriples } from './czekanowskiFinalize.js';
import { CzekanowskiVerifier } from './czekanowskiVerifier.js';
import { roundingOf } from './czekanowskiValues.js';
import { HISTOGRAM_BUCKETS_PER_UNIT, type HistogramLayout } from '../../core/histogramLayout.js';

export { pairValue, tripleValue, tripleFieldTerm, roundingOf } from './czekanowskiValues.js';

/** The value planes of a precision (mgemm/minPlusContract.ts): no codes, no count or mask planes. */
function realPlaneLayout(precision: RealPrecision, numWay: NumWay): PlaneLayout {
  return { numPlanes: valueBits(precision), countPlanes: [], maskPlane: null, bitsOfCode: [], realValues: { precision, numWay: pairOrTripleWay(numWay) } };
}

export const analysis: Analysis = {
  name: 'czekanowski',
  summary: 'Czekanowski (Proportional Similarity) of real-valued vectors, 2-way and 3-way (SPEC §8)',
  ways: [2, 3],
  results: ['threshold-records', 'histogram', 'top-n'],
  strongerValues: 'larger',
  check({ spec }: AnalysisSettings): void {
    if (spec.sparse) throw new UserError('--sparse is for 2-bit genotype codes; --metric czekanowski reads real values');
  },
  forRun({ spec, numVector, numField }: AnalysisSettings): AnalysisRun {
    const precision = spec.precision ?? 'double';
    const round = roundingOf(precision);
    // One output group per 32-bit word of a sum: the engine sizes, slices and shares them as tallies.
    const wordGroups = Array.from({ length: sumWordsOf(precision) }, () => [[0, 0] as const]);
    return {
      planes: realPlaneLayout(precision, spec.numWay),
      pairs: spec.numWay === 2 ? { termGroups: wordGroups, finalize: (ctx, block, sums) => finalizeCzekanowskiPairs(round, ctx, block, sums) } : null,
      triples: spec.numWay === 3
        ? {
            plan: { planePairs: [[0, 0]], termGroups: wordGroups, pairCountGroup: null },
            finalize: (ctx, slice, sums) => finalizeCzekanowskiTriples(round, ctx, slice, sums),
          }
        : null,
      histogramLayout: () => czekanowskiHistogramLayout(spec.numWay),
      analyticVerifier: () => new CzekanowskiVerifier(round, numVector, numField, pairOrTripleWay(spec.numWay)),
    };
  },
};

/**
 * SPEC §9's layout extended to Czekanowski (as for r²): one column CZEK of the tuple's one value, 1000 buckets over
 * [0, 1] (a value of 1 in the last), every value of the run counted before the threshold. A tuple's one value has
 * entry bits 0 (the sink's addTupleValueRow); the layout still lists every entry of the way, the others uncounted.
 */
function czekanowskiHistogramLayout(numWay: NumWay): HistogramLayout {
  const entryColumns = Array.from({ length: 2 ** numWay }, (_, bits) => (bits === 0 ? 0 : -1));
  return { numBuckets: HISTOGRAM_BUCKETS_PER_UNIT, columnNames: ['CZEK'], entryColumns, sumColumns: [] };
}
