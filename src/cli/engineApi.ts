// The CLI's one door into the engine: its types, and `runJob` loaded only when a job actually runs.
//
// Why a dynamic import: `--help`, `--version`, `dump` and option errors then never load the engine
// (kernels, worker pools), so they stay fast and keep working whatever state the engine is in.
import type {
  JobSpec, LdWindowJob, MatrixOutputSpec, MemoryReport, RankDevice, RunHistogram, RunHooks, RunKernelPlan, RunResult, StartedRunKernels,
} from '../engine/index.js';

export type { JobSpec, LdWindowJob, MatrixOutputSpec, MemoryReport, RankDevice, RunHistogram, RunHooks, RunKernelPlan, RunResult, StartedRunKernels };

/** Progress callback: `done` of `total` work units (comparisons) so far. */
export type ProgressListener = (done: number, total: number) => void;

/** The engine's entry point. */
export type RunJob = (spec: JobSpec, hooks?: RunHooks) => Promise<RunResult>;

/**
 * The most bytes of packed vectors a fileset is prepared into memory with (read in place by the run, and by epistasis's
 * tables) rather than into a temporary file: 256 MiB, at most a quarter of the memory available (the run's blocks come on top;
 * the engine's memory estimate counts the input too).
 */
export async function inMemoryInputBytes(): Promise<number> {
  const { availableHostMemory } = await import('../engine/index.js');
  return Math.min(256 * 2 ** 20, Math.floor(availableHostMemory().bytes / 4));
}

/** Loads the engine and returns its `runJob`. */
export async function loadRunJob(): Promise<RunJob> {
  const engine = await import('../engine/index.js');
  return engine.runJob;
}

/**
 * Loads the engine and starts a run's kernel threads ahead of its job (engine startRunKernels), so that they start
 * while the command reads its input: the promise settles at once after the engine loads (null: nothing started ahead
 * for this backend); the caller passes the start to the run (RunHooks.startedKernels) or cancels it.
 */
export async function startRunKernelsAhead(plan: RunKernelPlan): Promise<StartedRunKernels | null> {
  const engine = await import('../engine/index.js');
  return engine.startRunKernels(plan);
}
