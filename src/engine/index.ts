// Entry point of src/engine (level 5): running jobs.
export { runJob, checkJob, type RunHooks } from './run/runJob.js';
export { startRunKernels, type RunKernelPlan } from './run/kernelStart.js';
export type { PopcountGemmStart as StartedRunKernels } from '../mgemm/index.js';
export { runJobAsRank, JobRejectedError, type RankRunHooks } from './run/runJobAsRank.js';
export type {
  LdWindowJob,
  JobSpec, RunResult, RunHistogram, RankDevice, DecompositionSpec, FinalizePlacement, MatrixOutputSpec, MemoryLimits, MemoryReport,
  ProblemSource, ThresholdSpec,
} from './run/jobSpec.js';
export { estimateMemory, type MemoryEstimate, type MemoryEstimateContext, type MemoryTerm } from './run/memoryEstimate.js';
export { availableHostMemory, formatBytes, MAX_IN_PROCESS_RANKS, maxThreads } from './run/memoryCheck.js';
// For the benchmarks in tools/: the pieces they time on their own.
export { startBlockBuild } from './blocks/blockBuild.js';
export { packRowPlanes, planePackingTable } from './blocks/planePacking.js';
export { PAIRS_PER_PANEL } from './pipeline/pipeline2.js';
export { EntrySink } from './finalize/entrySink.js';
export { windowPanelGeometry, windowPanelRows } from './pipeline/windowPanels.js';
export { pairsInPanel } from './pipeline/panelPairs.js';
