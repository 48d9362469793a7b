// Case-control epistasis (issue 27): for every pair, triple or quadruple of SNPs its 3^k × 2 contingency table of genotypes in
// controls and cases, exact from the popcount GEMMs, scored by K2, MI or IG; one value per tuple, ranked by `top-n`.
import { UserError } from '../../core/errors.js';
import type { AnalysisRun, AnalysisSettings, Analysis, FinalizeContext, PairDenseBand } from '../index.js';
import { classWordRanges, epistasisPlaneLayout, pairTermGroups, tripleTallyPlan } from './epistasisPlanes.js';
import { BlockGenotypeCounts, finalizeEpistasisPairs, finalizeEpistasisTriples, type EpistasisFinalizeSettings } from './epistasisFinalize.js';
import { k2TableSlack, ScoreTables } from './epistasisScores.js';
import { finalizeEpistasisQuads, quadTallyPlan } from './epistasisQuads.js';
import { epistasisPairValues } from './epistasisPairProgram.js';
import { ProgramDevicePairs } from '../index.js';
import { ProgramDeviceTriples } from '../index.js';
import { epistasisTripleValues } from './epistasisTripleProgram.js';
import { epistasisQuadValues } from './epistasisQuadProgram.js';
import { finalizeDenseBandNatively } from './nativeDensePairs.js';
import { loadNativePairScorer } from './native/nativePairScores.js';
import { ProgramDeviceQuads } from '../index.js';

export {
  ScoreTables, MarginalScratch, k2Score, mutualInformation, interactionInformation, epistasisScore, engineValueOf, k2ScaleOf,
  strongerScores, k2TableSlack, type CaseControlCells, type EpistasisOrder,
} from './epistasisScores.js';
export { epistasisPlaneLayout, genotypeCellsInPlace } from './epistasisPlanes.js';
export { epistasisPairProgram, epistasisPairValues } from './epistasisPairProgram.js';
export { epistasisTripleProgram, epistasisTripleValues } from './epistasisTripleProgram.js';
export { epistasisQuadProgram, epistasisQuadValues } from './epistasisQuadProgram.js';

/** Largest sample count: tallies are 32-bit words, and the score tables hold a double per count. */
export const MAX_EPISTASIS_SAMPLES = 2 ** 31 - 64;

function caseControlOf(settings: AnalysisSettings): NonNullable<AnalysisSettings['spec']['caseControl']> {
  const caseControl = settings.spec.caseControl;
  if (caseControl === undefined) throw new UserError('--metric epistasis needs case-control samples (snptally epistasis sets them)');
  return caseControl;
}

export const analysis: Analysis = {
  name: 'epistasis',
  summary: 'case-control epistasis: each pair, triple or quadruple of SNPs scored by K2, MI or IG from its exact genotype × class table',
  ways: [2, 3, 4],
  results: ['threshold-records', 'top-n'],
  // Every score's engine value is larger for a stronger tuple (engineValueOf: K2 is reversed).
  strongerValues: 'larger',
  check(settings: AnalysisSettings): void {
    const { numControls } = caseControlOf(settings);
    if (settings.numField > MAX_EPISTASIS_SAMPLES) throw new UserError(`epistasis: ${settings.numField} samples exceed ${MAX_EPISTASIS_SAMPLES}`);
    if (!Number.isSafeInteger(numControls) || numControls < 0 || numControls > settings.numField) {
      throw new UserError(`epistasis: ${numControls} controls is not within the ${settings.numField} samples`);
    }
  },
  forRun(settings: AnalysisSettings): AnalysisRun {
    const { numControls, score } = caseControlOf(settings);
    const { spec, numField } = settings;
    const finalizeSettings: EpistasisFinalizeSettings = {
      score, sparse: spec.sparse, classSizes: [numControls, numField - numControls], tables: new ScoreTables(numField + k2TableSlack(spec.numWay)),
      classWords: classWordRanges(numControls, numField), densePairScorer: 'native',
    };
    // Dense 2-way and 3-way read each block's class genotype counts (BlockGenotypeCounts): kept for the run's blocks.
    const blockCounts = new BlockGenotypeCounts(finalizeSettings);
    return {
      planes: epistasisPlaneLayout({ numControls, numField, sparse: spec.sparse }),
      pairs: spec.numWay === 2
        ? {
          termGroups: pairTermGroups(spec.sparse),
          finalize: (ctx, block, tallies) => finalizeEpistasisPairs(finalizeSettings, ctx, block, tallies, blockCounts),
          // Without missing calls the native scorer computes its bands' tallies too (where it is built): CPU runs in bands.
          ...(!spec.sparse && loadNativePairScorer().available
            ? { finalizeDenseBand: (ctx: FinalizeContext, band: PairDenseBand) => finalizeDenseBandNatively(finalizeSettings, ctx, band) }
            : {}),
          // The device's values are the host's bits (epistasisPairProgram.ts); its table goes before the per-vector words, which takes no LD window.
          deviceFinalizer: (gemm, threshold, options) => ((options.window ?? null) !== null ? null
            : ProgramDevicePairs.create(epistasisPairValues(finalizeSettings, settings.numVector), gemm, threshold, settings.numVector, options)),
        }
        : null,
      triples: spec.numWay === 3
        ? {
          plan: tripleTallyPlan({ sparse: spec.sparse }),
          finalize: (ctx, slice, tallies, pairCounts) => finalizeEpistasisTriples(finalizeSettings, ctx, slice, tallies, pairCounts, blockCounts),
          // The device's values are the host's bits (epistasisTripleProgram.ts): only candidates and records come back.
          deviceFinalizer: (gemm, threshold, options) =>
            ProgramDeviceTriples.create(epistasisTripleValues(finalizeSettings), gemm, threshold, settings.numVector, options),
        }
        : null,
      quads: spec.numWay === 4
        ? {
          plan: quadTallyPlan(spec.sparse),
          finalize: (ctx, tile, tallies, vectorTallies) => finalizeEpistasisQuads(finalizeSettings, ctx, tile, tallies, vectorTallies),
          // The device's values are the host's bits (epistasisQuadProgram.ts), from its own 162-group plan in both modes.
          deviceFinalizer: (gemm, threshold, options) =>
            ProgramDeviceQuads.create(epistasisQuadValues(finalizeSettings), gemm, threshold, settings.numVector, options),
        }
        : null,
      analyticVerifier: () => null,
    };
  },
};
