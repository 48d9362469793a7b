// Runs a job as one rank of a multi-process (MPI) run: every process calls this with its world communicator.
import { UserError } from '../../core/errors.js';
import { commitStagedFiles, discardStagedFiles, findExistingOutputs, type StagedFile } from '../../io/index.js';
import { broadcastObject, gatherObjects, type Communicator } from '../../parallel/index.js';
import type { JobSpec, MemoryReport, RunResult } from './jobSpec.js';
import type { RunPlacement } from './memoryCheck.js';
import { runRank, type RankOutcome } from './rankRun.js';
import { resolveBackend } from './backendChoice.js';
import { combineRankOutcomes } from './runResult.js';
import { checkJob, type RunHooks } from './runJob.js';
import { removeLeftoversOfKilledRuns, removeStaleOutputs, stagedRankFiles, type CompanionOutputs } from './runOutputs.js';

/**
 * A problem with the job that every rank sees alike (it was checked once and the outcome shared), so the
 * ranks end together: one of them reports it, none aborts.
 */
export class JobRejectedError extends UserError {
  constructor(message: string) {
    super(message);
    this.name = 'JobRejectedError';
  }
}

/** Rank 0's verdict on the job, shared with every rank (msgpackr over the communicator). */
type JobCheckOutcome =
  | { readonly ok: true; readonly staleOutputs: string[]; readonly memory: MemoryReport }
  | { readonly ok: false; readonly message: string };

/** Rank 0's word on the run's outputs once their companions are staged: rename (ok) or discard everything. */
type CommitVerdict = { readonly ok: true } | { readonly ok: false; readonly message: string };

/** Point-to-point tag of the rank reports gathered at the end (the block exchange uses 0 and 1). */
const TAG_RANK_OUTCOME = 7;

/** Options of {@link runJobAsRank} besides the hooks. */
export interface RankRunHooks extends RunHooks {
  /** Kernel threads of this process (default: the job's `numThreads`, all of them: one rank per process). */
  readonly numThreads?: number;
  /** This process's rank among those on its host (MPI's node-local rank): picks its GPU (default: the world rank). */
  readonly localRank?: number;
  /** Processes of the job on rank 0's host (MPI's node-local size): they share its memory (default 1). */
  readonly localSize?: number;
}

/**
 * Collective over `world` (size = npv·npf·npr, rank = SPEC §6 rank): rank 0 checks the job (input file,
 * existing outputs) once and shares the verdict, every rank runs its part, rank 0 gathers the reports.
 * Returns the RunResult on rank 0 and null elsewhere. A rejected job throws {@link JobRejectedError} on
 * every rank; any other throw is this rank's own failure and the caller must abort the job.
 * `hooks.onProgress` reports this rank's own share of the work.
 */
export async function runJobAsRank(requestedJob: JobSpec, world: Communicator, hooks: RankRunHooks = {}): Promise<RunResult | null> {
  // Each rank resolves `--backend auto` for its own process (its own adapter).
  const choice = await resolveBackend(requestedJob.backend);
  const { backend, note: backendNote } = choice;
  const job: JobSpec = { ...requestedJob, backend };
  const d = job.decomposition;
  const numRanks = d.numProcVector * d.numProcField * d.numProcRepl;
  if (world.size !== numRanks) {
    throw new JobRejectedError(`the job has ${numRanks} ranks (npv ${d.numProcVector} × npf ${d.numProcField} × npr ${d.numProcRepl}) but ${world.size} processes run it`);
  }
  // One rank per process: it has all of the process's threads.
  const placement: RunPlacement = {
    ranksInProcess: 1, processesOnHost: hooks.localSize ?? 1, threadsPerRank: hooks.numThreads ?? job.numThreads,
    gpuExpandsToU8: choice.gpuHasSubgroupMatrix, gpuIsSoftware: choice.gpuIsSoftware, mpiLoaded: true, dawnLoaded: requestedJob.backend === 'webgpu' || requestedJob.backend === 'auto',
  };
  const verdict = await broadcastObject<JobCheckOutcome | null>(world, 0, world.rank === 0 ? await checkOnce(job, placement, hooks.companions) : null);
  if (verdict === null || !verdict.ok) throw new JobRejectedError(verdict === null ? 'no job check' : verdict.message);
  hooks.onChecked?.(verdict.memory);

  const start = performance.now();
  const outcome = await runRank(world, job, (done, total) => hooks.onProgress?.(done, total), {
    numThreads: hooks.numThreads ?? job.numThreads,
    induceFailure: hooks.debugFailRank === world.rank,
    gpuSlot: hooks.localRank ?? world.rank,
  });
  const outcomes = await gatherObjects<RankOutcome>(world, 0, TAG_RANK_OUTCOME, outcome);
  const result = outcomes === null ? null
    : combineRankOutcomes(job, outcomes, { seconds: (performance.now() - start) / 1000, backendNote, memory: verdict.memory });
  await commitRankOutputs(world, outcome, result, hooks.companions);
  if (result !== null) removeStaleOutputs(verdict.staleOutputs, result.outputFiles);
  return result;
}

/**
 * Renames every rank's file and then rank 0's companions (run.json) into place, once rank 0 has staged those: when it
 * cannot, every rank removes its file and the job ends with rank 0's message on every rank.
 */
async function commitRankOutputs(
  world: Communicator, outcome: RankOutcome, result: RunResult | null, companions: CompanionOutputs | undefined,
): Promise<void> {
  let staged: StagedFile[] = [];
  let commit: CommitVerdict = { ok: true };
  if (result !== null) {
    try {
      staged = companions?.stage(result) ?? [];
    } catch (error) {
      if (!(error instanceof UserError)) throw error;
      commit = { ok: false, message: error.message };
    }
  }
  const shared = await broadcastObject<CommitVerdict | null>(world, 0, world.rank === 0 ? commit : null);
  const own = stagedRankFiles([outcome]);
  if (shared === null || !shared.ok) {
    discardStagedFiles(own);
    throw new JobRejectedError(shared === null ? 'no commit verdict' : shared.message);
  }
  commitStagedFiles(own);
  // Every rank's file is in place before the file that marks the run complete.
  await world.barrier();
  commitStagedFiles(staged);
}

/** The checks of a single-process run, made on rank 0 only (one reader of the file system). */
async function checkOnce(job: JobSpec, placement: RunPlacement, companions: CompanionOutputs | undefined): Promise<JobCheckOutcome> {
  let memory: MemoryReport;
  try {
    memory = await checkJob(job, placement, companions);
  } catch (error) {
    if (error instanceof UserError) return { ok: false, message: error.message };
    throw error;
  }
  removeLeftoversOfKilledRuns(job, companions);
  return { ok: true, staleOutputs: job.outputStub !== null ? findExistingOutputs(job.outputStub) : [], memory };
}
