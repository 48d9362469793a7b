// The CLI's one door into the engine: its types, and `runJob` loaded only when a job actually runs.
//
// Why a dynamic import: `--help`, `--version`, `dump` and option errors then never load the engine
// (kernels, worker pools), so they stay fast and keep working whatever state the engine is in.
import type { JobSpec, LdWindowJob, MatrixOutputSpec, MemoryReport, RankDevice, RunHistogram, RunHooks, RunResult } from '../engine/index.js';

export type { JobSpec, LdWindowJob, MatrixOutputSpec, MemoryReport, RankDevice, RunHistogram, RunHooks, RunResult };

/** Progress callback: `done` of `total` work units (comparisons) so far. */
export type ProgressListener = (done: number, total: number) => void;

/** The engine's entry point. */
export type RunJob = (spec: JobSpec, hooks?: RunHooks) => Promise<RunResult>;

/** Loads the engine and returns its `runJob`. */
export async function loadRunJob(): Promise<RunJob> {
  const engine = await import('../engine/index.js');
  return engine.runJob;
}
