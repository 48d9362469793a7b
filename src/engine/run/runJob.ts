// Runs a whole job on this machine: checks it, runs its ranks (in this thread or as worker threads),
// and combines their reports into a RunResult.
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { UserError } from '../../core/errors.js';
import { checkVectorLimit } from '../../core/limits.js';
import { loadAnalysis, type Analysis, type AnalysisRun } from '../../analyses/index.js';
import { checkHistogramLayout } from '../../core/histogramLayout.js';
import { checkPackedVectorFile, checkRealVectorFile, discardStagedFiles, findExistingOutputs, packedBytesPerVector } from '../../io/index.js';
import { LocalCommunicator, launchInProcessRanks, validateDecomposition } from '../../parallel/index.js';
import { resolveBackend, type BackendChoice } from './backendChoice.js';
import { analysisRef, type JobSpec, type MemoryReport, type RunResult } from './jobSpec.js';
import { checkMemory, checkThreadsAndRanks, type RunPlacement } from './memoryCheck.js';
import type { RankPayload } from './rankEntry.js';
import { runRank, type RankOutcome } from './rankRun.js';
import { combineRankOutcomes } from './runResult.js';
import { checkMatrixJob } from './matrixCheck.js';
import { topRecordsFilePath } from '../finalize/topRecordsSink.js';
import { checkTopJob } from './topCheck.js';
import { checkWindowJob } from './windowCheck.js';
import {
  checkRunOutputs, commitRunOutputs, removeLeftoversOfKilledRuns, removeOwnRankTemporaries, removeStaleOutputs,
  stagedRankFiles, type CompanionOutputs,
} from './runOutputs.js';
import { traceMark } from '../../core/trace.js';
import type { PopcountGemmStart } from '../../mgemm/index.js';

export interface RunHooks {
  /** Comparisons done so far and in total, summed over ranks. */
  readonly onProgress?: (done: number, total: number) => void;
  /** Debugging failure handling: this rank fails on purpose once started (the CLI's SNPTALLY_DEBUG_FAIL_RANK). */
  readonly debugFailRank?: number;
  /** The job passed its checks, with this memory estimate; work starts next. */
  readonly onChecked?: (memory: MemoryReport) => void;
  /** Files written from the result beside the rank files (the CLI's run.json): checked and renamed with them. */
  readonly companions?: CompanionOutputs;
  /**
   * The input's check still under way (a prepared file's SHA-256 on a worker thread): awaited before any output is
   * committed; when it rejects, the run's files are discarded and the run fails with its error.
   */
  readonly inputChecked?: Promise<void>;
  /**
   * Kernel threads started ahead of the job (kernelStart.ts startRunKernels): taken by its rank where its kernel set
   * would be the same (one in-process rank, same backend and threads), else cancelled; cancelled too when the job fails
   * before its rank starts. Absent or null: the rank starts its own.
   */
  readonly startedKernels?: PopcountGemmStart | null;
}

/**
 * How this process runs `job` without MPI: every rank as a thread of it, the job's kernel threads split among them
 * (rankRun.ts). `choice`: the resolved backend's GPU (default: none); `requestedBackend`: as asked (`auto` loads Dawn).
 */
export function inProcessPlacement(
  job: JobSpec,
  options: { readonly choice?: Pick<BackendChoice, 'gpuHasSubgroupMatrix' | 'gpuIsSoftware'>; readonly requestedBackend?: JobSpec['backend'] } = {},
): RunPlacement {
  const d = job.decomposition;
  const ranks = d.numProcVector * d.numProcField * d.numProcRepl;
  const requested = options.requestedBackend ?? job.backend;
  return {
    ranksInProcess: ranks, processesOnHost: 1, threadsPerRank: Math.max(1, Math.floor(job.numThreads / ranks)),
    gpuExpandsToU8: options.choice?.gpuHasSubgroupMatrix ?? false, gpuIsSoftware: options.choice?.gpuIsSoftware ?? false,
    mpiLoaded: false, dawnLoaded: requested === 'webgpu' || requested === 'auto',
  };
}

/**
 * Checks a job before any rank starts — and its estimated peak memory for `placement` (default: all ranks in this
 * process) against its limits, and its outputs with `companions` (existing ones, its own inputs); every problem is a
 * one-line UserError. Returns the memory estimate and limits.
 */
export async function checkJob(
  job: JobSpec, placement: RunPlacement = inProcessPlacement(job), companions?: CompanionOutputs,
): Promise<MemoryReport> {
  const { metricSpec: m, numVector, numField } = job;
  const analysis = await loadAnalysis(analysisRef(job));
  validateDecomposition({ numWay: m.numWay, numVector, numField }, job.decomposition);
  checkThreadsAndRanks(job, placement.ranksInProcess);
  analysis.check({ spec: m, numVector, numField });
  if (!analysis.ways.includes(m.numWay)) {
    throw new UserError(`--metric ${m.metric} is ${analysis.ways.join('- and ')}-way only (not --way ${m.numWay})`);
  }
  checkVectorLimit(numVector);
  const run = analysis.forRun({ spec: m, numVector, numField });
  if (job.verify && run.analyticVerifier() === null) {
    throw new UserError(`--verify knows analytic values only of metrics that define them, not of --metric ${m.metric}`);
  }
  if (job.verify && job.source.kind !== 'analytic') {
    throw new UserError('--verify needs --problem analytic (only the analytic problem has known values)');
  }
  checkHistogramJob(job, analysis, run);
  const real = run.planes.realValues ?? null;
  if (real !== null && job.decomposition.numProcField > 1) {
    // Field slabs would add partial sums in another order than field order (CoMet refuses them for this metric too).
    throw new UserError(`--metric ${m.metric} needs --npf 1: its sums are added in field order, which field slabs would change`);
  }
  if (real !== null && (job.threshold.kind === 'multi2' || job.threshold.kind === 'multi3')) {
    throw new UserError(`--metric ${m.metric} has one value per tuple: --threshold takes one number, not CoMet's per-entry list`);
  }
  if (job.source.kind === 'file') {
    if (real === null) checkPackedVectorFile(job.source.path, numVector, numField);
    else checkRealVectorFile(job.source.path, numVector, numField, real.precision);
  }
  if (job.source.kind === 'memory' && (real !== null || job.source.packed.length !== numVector * packedBytesPerVector(numField))) {
    throw new Error(`an input in memory of ${job.source.packed.length} bytes is not ${numVector} packed vectors of ${numField} fields`);
  }
  const matrixPath = checkMatrixJob(job, analysis);
  checkTopJob(job, analysis);
  checkWindowJob(job);
  // The run's one-file outputs besides the rank files: never one of its inputs either.
  const singleOutputs = [job.histogramPath ?? null, matrixPath, job.top != null && job.outputStub !== null ? topRecordsFilePath(job.outputStub) : null];
  checkRunOutputs(job, companions, singleOutputs.filter((path): path is string => path !== null));
  return checkMemory(job, placement, run);
}

export async function runJob(requestedJob: JobSpec, hooks: RunHooks = {}): Promise<RunResult> {
  traceMark('engine run starts');
  const startedKernels = hooks.startedKernels ?? null;
  try {
    return await runCheckedJob(requestedJob, hooks, startedKernels);
  } finally {
    // Nothing when the rank completed it.
    await startedKernels?.cancel();
  }
}

async function runCheckedJob(requestedJob: JobSpec, hooks: RunHooks, startedKernels: PopcountGemmStart | null): Promise<RunResult> {
  // The backend is resolved first: the memory estimate depends on the kernel set (and the GPU's kind).
  const choice = await resolveBackend(requestedJob.backend);
  const { backend, note: backendNote } = choice;
  const job: JobSpec = { ...requestedJob, backend };
  const memory = await checkJob(job, inProcessPlacement(job, { choice, requestedBackend: requestedJob.backend }), hooks.companions);
  removeLeftoversOfKilledRuns(job, hooks.companions);
  hooks.onChecked?.(memory);
  const d = job.decomposition;
  const numRanks = d.numProcVector * d.numProcField * d.numProcRepl;
  const staleOutputs = job.outputStub !== null ? findExistingOutputs(job.outputStub) : [];
  const failRank = hooks.debugFailRank ?? null;
  const start = performance.now();
  let outcomes: RankOutcome[];
  if (numRanks === 1) {
    outcomes = [await runRank(new LocalCommunicator(), job, (done, total) => hooks.onProgress?.(done, total), {
      induceFailure: failRank === 0, startedKernels,
    })];
  } else {
    const payload: RankPayload = { job, failRank };
    try {
      outcomes = (await launchInProcessRanks({
        numRanks,
        entryModuleUrl: new URL('./rankEntry.js', import.meta.url).href,
        entryExportName: 'rankEntry',
        payload,
        onProgress: hooks.onProgress,
      })) as RankOutcome[];
    } catch (error) {
      // Every rank thread has stopped; those stopped by another's failure may not have removed their files.
      removeOwnRankTemporaries(job);
      throw error;
    }
  }
  const result = combineRankOutcomes(job, outcomes, { seconds: (performance.now() - start) / 1000, backendNote, memory });
  try {
    await hooks.inputChecked;
  } catch (error) {
    discardStagedFiles(stagedRankFiles(outcomes));
    throw error;
  }
  commitRunOutputs(stagedRankFiles(outcomes), result, hooks.companions);
  removeStaleOutputs(staleOutputs, result.outputFiles);
  return result;
}

/** `--histograms FILE`: the analysis declares histograms for the run, and FILE is new (or --force). */
function checkHistogramJob(job: JobSpec, analysis: Analysis, run: AnalysisRun): void {
  const path = job.histogramPath;
  if (path === undefined || path === null) return;
  if (!analysis.results.includes('histogram') || run.histogramLayout === undefined) {
    throw new UserError(`--histograms: --metric ${analysis.name} declares no histogram of its values (CoMet writes them for ccc and duo)`);
  }
  // A layout the settings cannot give throws its own UserError; an inconsistent one is the analysis's fault.
  checkHistogramLayout(run.histogramLayout(), 2 ** job.metricSpec.numWay);
  if (!job.force && existsSync(path)) throw new UserError(`histograms file ${path} already exists; use --force to overwrite`);
  // Rank 0 writes it when the run is done: a directory that is missing now stops the run before its work.
  if (!existsSync(dirname(path))) throw new UserError(`cannot write histograms file ${path}: directory ${dirname(path)} does not exist`);
}
