// CoMet's 2-bit metrics as analyses: CCC and DUO share planes of the counted bits (and a presence plane in sparse
// mode), the tallies of SPEC §2, the values of SPEC §3 — on the host and on the device — and the analytic values
// of SPEC §4. They differ in the bits a field counts (cometTallies.ts).
import { checkTallyLimit } from '../../core/limits.js';
import type { Analysis, AnalysisRun, AnalysisSettings } from '../index.js';
import { AnalyticVerifier } from './analyticVerifier.js';
import { cometSettings } from './cometSettings.js';
import { tally3Plan, termGroups2, type CometMetric } from './cometTallies.js';
import { ProgramDevicePairs } from '../index.js';
import { cometHistogramLayout } from './cometHistogram.js';
import { cometPairValues } from './devicePairs.js';
import { CometDeviceTriples } from './deviceTriples.js';
import { finalizeCometPairs } from './pairValues.js';
import { finalizeCometTriples } from './tripleValues.js';

export function cometAnalysis(metric: CometMetric, summary: string): Analysis {
  return {
    name: metric,
    summary,
    ways: [2, 3],
    results: ['threshold-records', 'histogram', 'top-n'],
    strongerValues: 'larger',
    check({ spec, numField }: AnalysisSettings): void {
      // The largest tally: C^way per field (C counted bits: 2 for CCC; DUO's one bit gives 1).
      checkTallyLimit(metric, spec.numWay, metric === 'duo' ? 1 : spec.numWay === 2 ? 4 : 8, numField);
    },
    forRun(settings: AnalysisSettings): AnalysisRun {
      const run = cometSettings(metric, settings);
      const { spec } = settings;
      const triplePlan = tally3Plan(run.layout);
      return {
        planes: run.layout,
        pairs: spec.numWay !== 2 ? null : {
          termGroups: termGroups2(run.layout),
          finalize: (ctx, block, tallies) => finalizeCometPairs(run, ctx, block, tallies),
          deviceFinalizer: (gemm, threshold, options) =>
            ProgramDevicePairs.create(cometPairValues(run), gemm, threshold, run.numVector, options),
        },
        triples: spec.numWay !== 3 ? null : {
          plan: triplePlan,
          finalize: (ctx, slice, tallies, pairCounts) => finalizeCometTriples(run, ctx, slice, triplePlan.products, tallies, pairCounts),
          deviceFinalizer: (gemm, threshold, options) => CometDeviceTriples.create(run, gemm, threshold, options),
        },
        histogramLayout: () => cometHistogramLayout(metric, spec.numWay, spec.multiplier),
        analyticVerifier: () => new AnalyticVerifier(spec, run.constants, settings.numVector, settings.numField),
      };
    },
  };
}
