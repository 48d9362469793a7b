// `snptally run` under mpirun/srun: one rank per process over MPI; world rank 0 alone prints; a failing rank aborts the job.
import type { PreparedSidecar } from '../io/index.js';
import { availableParallelism } from 'node:os';
import { ReportedUserError, UserError } from '../core/errors.js';
import type { ProblemSize } from '../core/types.js';
import type { JobSpec, RunResult } from './engineApi.js';
import { startMpi, type MpiLaunch, type MpiRuntime } from '../parallel/index.js';
import { removeUnfinishedOutputs } from './interruptCleanup.js';
import { createProgressDisplay } from './progressBar.js';
import type { Threshold } from '../core/thresholds.js';
import type { RunCompanions } from './runCompanions.js';
import { describeMemory, formatRunSummary } from './runReport.js';
import { buildRunPlan, type RunOptionText, type RunPlan } from './runOptions.js';

/** Exit status of a rank's own failure: 1 for a problem with the input, 2 for anything else (as in main). */
const EXIT_USER_ERROR = 1;
const EXIT_INTERNAL_ERROR = 2;

/**
 * Runs the job as this process's rank. Problems every rank sees alike (options, the job check, the
 * world size) end all ranks normally, with a UserError that only world rank 0 prints (endAllRanks).
 * Any other failure on a rank prints `snptally: rank N: …` once, from that rank, and MPI_Abort ends the job.
 */
/** What the `run` command hands to an MPI run beyond its options. */
export interface MpiRunExtras {
  readonly debugFailRank: number | undefined;
  /** Sizes recorded with the input (a prepared file's sidecar), if any. */
  readonly inputSize: ProblemSize | null;
  /** The input's sidecar for an LD window's loci, named by the file the user gave (null: none). */
  readonly windowInput?: { readonly path: string; readonly sidecar: PreparedSidecar | null } | null;
  /** The files written from the result beside the rank files (run.json), staged on world rank 0. */
  readonly companionsOf: (spec: JobSpec, threshold: Threshold) => RunCompanions | undefined;
  /** On world rank 0: the `--json` object and the spec to show. */
  readonly onRootResult: (spec: JobSpec, result: RunResult, threshold: Threshold) => { runJson: Record<string, unknown>; shownSpec: JobSpec };
}

export async function runUnderMpi(options: RunOptionText, launch: MpiLaunch, extras: MpiRunExtras): Promise<void> {
  const { debugFailRank } = extras;
  const runtime = startMpi(launch);
  const { world } = runtime;
  // A failure outside the awaited chain (e.g. of a send nobody awaits) also ends the job with its message.
  const abortOnStray = (error: unknown): void => abortOnError(runtime, world.rank, error);
  process.on('unhandledRejection', abortOnStray);
  process.on('uncaughtException', abortOnStray);
  let plan: RunPlan;
  try {
    // Default threads: this node's cores shared among the ranks placed on it.
    plan = buildRunPlan(options, Math.max(1, Math.floor(availableParallelism() / runtime.localSize)), extras.inputSize, extras.windowInput ?? null);
    checkWorldSize(plan, options, world.size);
  } catch (error) {
    if (error instanceof UserError) return endAllRanks(runtime, world.rank, error);
    await runtime.finalize();
    throw error;
  }
  const engine = await import('../engine/index.js');
  const isRoot = world.rank === 0;
  const progress = createProgressDisplay(isRoot && process.stderr.isTTY === true && !plan.json);
  let result;
  try {
    const header = progress.header;
    result = await engine.runJobAsRank(plan.spec, world, {
      onProgress: progress.onProgress, debugFailRank, localRank: runtime.localRank, localSize: runtime.localSize,
      companions: extras.companionsOf(plan.spec, plan.threshold),
      onChecked: header === undefined ? undefined : (memory) => header(describeMemory(memory)),
    });
  } catch (error) {
    progress.stop();
    if (error instanceof engine.JobRejectedError) return endAllRanks(runtime, world.rank, error);
    return abortOnError(runtime, world.rank, error);
  }
  progress.stop();
  if (result !== null) {
    const { runJson, shownSpec } = extras.onRootResult(plan.spec, result, plan.threshold);
    process.stdout.write(plan.json ? `${JSON.stringify(runJson)}\n` : formatRunSummary(shownSpec, result, plan.threshold));
  }
  await runtime.finalize();
}

/** `--ranks` defaults to the number of processes; the grid must have exactly that many ranks. */
function checkWorldSize(plan: RunPlan, options: RunOptionText, worldSize: number): void {
  const d = plan.spec.decomposition;
  const gridRanks = d.numProcVector * d.numProcField * d.numProcRepl;
  if (options.ranks !== undefined && Number(options.ranks) !== worldSize) {
    throw new UserError(`--ranks ${options.ranks} does not match the ${worldSize} processes started by the MPI launcher`);
  }
  if (gridRanks !== worldSize) {
    throw new UserError(
      `the MPI launcher started ${worldSize} processes but --npv ${d.numProcVector} × --npf ${d.numProcField} × ` +
      `--npr ${d.numProcRepl} = ${gridRanks} ranks; give a grid of ${worldSize} ranks (e.g. --npv ${worldSize})`);
  }
}

/**
 * Ends every rank after a UserError that all of them met alike: world rank 0 prints it before MPI_Finalize, whose
 * fence keeps the other ranks from exiting first: printed after it, the message may be lost, since mpirun may stop
 * the job as soon as one process exits with an error, before rank 0 has written. The rethrown error is marked as
 * printed, so that main prints nothing more.
 */
async function endAllRanks(runtime: MpiRuntime, rank: number, error: UserError): Promise<never> {
  if (rank === 0) process.stderr.write(`snptally: ${error.message}\n`);
  await runtime.finalize();
  throw new ReportedUserError(error.message);
}

function abortOnError(runtime: MpiRuntime, rank: number, error: unknown): never {
  // The failing rank knows first: no unfinished file of the job should outlive it (the others may be killed outright).
  removeUnfinishedOutputs();
  const message = error instanceof Error ? error.message : String(error);
  const oneLine = message.replace(/\s*\n\s*/g, ' ').trim();
  if (error instanceof UserError) return runtime.abortJob(`snptally: rank ${rank}: ${oneLine}`, EXIT_USER_ERROR);
  if (process.env.SNPTALLY_DEBUG && error instanceof Error && error.stack) process.stderr.write(`${error.stack}\n`);
  return runtime.abortJob(`snptally: internal error: rank ${rank}: ${oneLine}`, EXIT_INTERNAL_ERROR);
}
