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
import { writeCommandOutput } from './stdout.js';

/** Exit status of a rank's own failure: 1 for a problem with the input, 2 for anything else (as in main). */
const EXIT_USER_ERROR = 1;
const EXIT_INTERNAL_ERROR = 2;

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

/** `run` as this process's rank: options and the world size checked alike on every process, then its share of the job. */
export async function runUnderMpi(options: RunOptionText, launch: MpiLaunch, extras: MpiRunExtras): Promise<void> {
  await asMpiRank(launch, async (runtime) => {
    // Default threads: this node's cores shared among the ranks placed on it.
    const plan = buildRunPlan(options, Math.max(1, Math.floor(availableParallelism() / runtime.localSize)), extras.inputSize, extras.windowInput ?? null);
    checkWorldSize(plan, options, runtime.world.size);
    return { run: () => runPlanAsRank(plan, runtime, extras) };
  });
}

/** The engine's part of an MPI `run`: this rank's share of the job; world rank 0 prints the result. */
async function runPlanAsRank(plan: RunPlan, runtime: MpiRuntime, extras: MpiRunExtras): Promise<void> {
  const engine = await import('../engine/index.js');
  const isRoot = runtime.world.rank === 0;
  const progress = createProgressDisplay(isRoot && process.stderr.isTTY === true && !plan.json);
  let result;
  try {
    const header = progress.header;
    result = await engine.runJobAsRank(plan.spec, runtime.world, {
      onProgress: progress.onProgress, debugFailRank: extras.debugFailRank, localRank: runtime.localRank, localSize: runtime.localSize,
      companions: extras.companionsOf(plan.spec, plan.threshold),
      onChecked: header === undefined ? undefined : (memory) => header(describeMemory(memory)),
    });
  } finally {
    progress.stop();
  }
  if (result !== null) {
    const { runJson, shownSpec } = extras.onRootResult(plan.spec, result, plan.threshold);
    writeCommandOutput(plan.json ? `${JSON.stringify(runJson)}\n` : formatRunSummary(shownSpec, result, plan.threshold));
  }
}

/** A command's work as one MPI rank, after the checks every process makes alike. */
export interface MpiRankWork {
  run(): Promise<void>;
}

/**
 * Runs a command as this process's MPI rank. `prepare` makes the checks every process makes alike: its UserError ends
 * all ranks with world rank 0 alone printing it. In the work, a job every rank rejected alike (JobRejectedError) ends
 * them the same way; any other failure of a rank prints `snptally: rank N: …` once and MPI_Abort ends the job.
 */
export async function asMpiRank(launch: MpiLaunch, prepare: (runtime: MpiRuntime) => Promise<MpiRankWork>): Promise<void> {
  const runtime = await startMpi(launch);
  const { world } = runtime;
  // A failure outside the awaited chain (e.g. of a send nobody awaits) also ends the job with its message.
  const abortOnStray = (error: unknown): void => abortOnError(runtime, world.rank, error);
  process.on('unhandledRejection', abortOnStray);
  process.on('uncaughtException', abortOnStray);
  let work: MpiRankWork;
  try {
    work = await prepare(runtime);
  } catch (error) {
    if (error instanceof UserError) return endAllRanks(runtime, world.rank, error);
    await runtime.finalize();
    throw error;
  }
  try {
    await work.run();
  } catch (error) {
    const { JobRejectedError } = await import('../engine/index.js');
    if (error instanceof JobRejectedError) return endAllRanks(runtime, world.rank, error);
    return abortOnError(runtime, world.rank, error);
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
