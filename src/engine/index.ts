// Entry point of src/engine (level 5): running jobs.
export { runJob, checkJob, type RunHooks } from './run/runJob.js';
export { runJobAsRank, JobRejectedError, type RankRunHooks } from './run/runJobAsRank.js';
export type { JobSpec, RunResult, RankDevice, DecompositionSpec, FinalizePlacement, ProblemSource, ThresholdSpec } from './run/jobSpec.js';
// For the benchmarks in tools/: the pieces they time on their own.
export { startBlockBuild } from './blocks/blockBuild.js';
export { PAIRS_PER_PANEL } from './pipeline/pipeline2.js';
export { cometPairConstants, cometPairProgram, cometPairVectorWords } from './finalize/cometPairProgram.js';
export { float32BitsAtMost } from './finalize/deviceFinalize2.js';
export { planeLayout } from './finalize/tallyLayout.js';
