// Entry point of src/engine (level 4): running jobs.
export { runJob, checkJob, type RunHooks } from './runJob.js';
export { runJobAsRank, JobRejectedError, type RankRunHooks } from './runJobAsRank.js';
export type { JobSpec, RunResult, DecompositionSpec, FinalizePlacement, ProblemSource, ThresholdSpec } from './jobSpec.js';
