// A task worker for tests of the two-phase pool start (core/taskWorkerPool.ts TaskWorkerPool.start): it starts with
// `workerData` (failing at once when it says so), then waits for its late setup (a factor, or a failure asked for)
// and answers each task `n` with `n · factor + offset` (workerData's offset).
import { isMainThread } from 'node:worker_threads';
import { serveTasks } from '../../src/core/taskWorkerPool.js';

export interface TwoPhaseWorkerData {
  readonly offset: number;
  /** Fail in the first phase, before the late setup. */
  readonly failAtStart: boolean;
}

export interface TwoPhaseLateSetup {
  readonly factor: number;
  /** Fail once the late setup came. */
  readonly failLate: boolean;
}

/** The worker's start (the calling thread runs it too where the pool lets it). */
export async function startTwoPhase(data: unknown, lateSetup: () => Promise<unknown>): Promise<(task: number) => { outcome: number }> {
  const { offset, failAtStart } = data as TwoPhaseWorkerData;
  if (failAtStart) throw new Error('asked to fail at start');
  const { factor, failLate } = await lateSetup() as TwoPhaseLateSetup;
  if (failLate) throw new Error('asked to fail with the late setup');
  return (task) => ({ outcome: task * factor + offset });
}

// A worker thread serves tasks; the test's thread imports the start function only.
if (!isMainThread) await serveTasks<number, number>(startTwoPhase);
