// Entry of src/analyses (level 4): the analysis interface, the built-in analyses and how analyses are found.
export type * from './analysis.js';
export { pairCountGroupsOf } from './analysis.js';
export { ANALYSIS_NAMES, builtInAnalysis, builtInPlaneLayout, loadAnalysis, type AnalysisRef } from './registry.js';
export { planeBitsOfCodes } from './planeBits.js';
// Pieces of the built-in analyses that benchmarks and tests use on their own.
export { cometPlaneLayout, termGroups2, tally3Plan } from './comet/cometTallies.js';
export { float32BitsAtMost, ProgramDevicePairs, type PairValues } from './devicePairs.js';
export { ProgramDeviceTriples, tripleThresholdBits, type TripleValues } from './deviceTriples.js';
export { ProgramDeviceQuads, quadRecordWords, type QuadValues } from './deviceQuads.js';
export { cometPairConstants, cometPairProgram, cometPairVectorWords } from './comet/cometPairProgram.js';
export { R2_PLANE, r2PlaneLayout, termGroupsR2 } from './r2/index.js';
export { r2FromSums } from './r2/index.js';
export { KING_COUNT_SCALE, KING_ENTRY, KING_PLANE, KING_TERM_GROUPS, kingKinship, kingPlaneLayout } from './king/index.js';
export { alleleCountDistance, IBS_COUNT_SCALE, IBS_ENTRY, IBS_PLANE, ibsPlaneLayout, squaredDistance } from './distance/index.js';
export {
  ScoreTables, MarginalScratch, k2Score, mutualInformation, interactionInformation, epistasisScore, engineValueOf, k2ScaleOf,
  strongerScores, genotypeCellsInPlace, k2TableSlack, type CaseControlCells, type EpistasisOrder,
} from './epistasis/index.js';
export {
  applyGrmDenominators, GenotypeCodeCounter, grmCodeValues, grmCrossProducts, pairCalledCount, plainSymmetricRankUpdate,
  snpsPerBlock, type GrmMissingCounts, type GrmStandardizeOptions, type RankUpdate, type SampleMajorInput, type SnpNamer,
} from './grm/index.js';
