// The built-in epistasis analysis with its dense pairs scored in JavaScript (epistasisPairs.ts DensePairScorer) and no
// device finalizer: a module a job names (JobSpec.analysisModule) to run the whole engine on the JS path, against the
// built-in analysis's native scorer (nativeDensePairsRun.test.ts).
import type { Analysis, AnalysisRun, AnalysisSettings } from '../../../src/analyses/analysis.js';
import { analysis as epistasis, k2TableSlack, ScoreTables } from '../../../src/analyses/epistasis/index.js';
import { BlockGenotypeCounts, finalizeEpistasisPairs } from '../../../src/analyses/epistasis/epistasisFinalize.js';
import type { EpistasisFinalizeSettings } from '../../../src/analyses/epistasis/epistasisPairs.js';
import { classWordRanges } from '../../../src/analyses/epistasis/epistasisPlanes.js';

export const analysis: Analysis = {
  ...epistasis,
  forRun(settings: AnalysisSettings): AnalysisRun {
    const run = epistasis.forRun(settings);
    const { spec, numField } = settings;
    const { numControls, score } = spec.caseControl!;
    const finalizeSettings: EpistasisFinalizeSettings = {
      score, sparse: spec.sparse, classSizes: [numControls, numField - numControls], tables: new ScoreTables(numField + k2TableSlack(spec.numWay)),
      classWords: classWordRanges(numControls, numField), densePairScorer: 'js',
    };
    const counts = new BlockGenotypeCounts(finalizeSettings);
    if (run.pairs === null) return run;
    return {
      ...run,
      pairs: { termGroups: run.pairs.termGroups, finalize: (ctx, block, tallies) => finalizeEpistasisPairs(finalizeSettings, ctx, block, tallies, counts) },
    };
  },
};
