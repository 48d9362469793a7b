// The finalize tasks as a guest of the CPU kernel set's worker threads (core/taskWorkerPool.ts WorkerGuestModule):
// each kernel worker loads this module by URL and finalizes what the pool posts besides its GEMM panels.
import type { TaskResult } from '../../core/taskWorkerPool.js';
import { loadAnalysis, type AnalysisRef } from '../../analyses/index.js';
import { startFinalizeTasks, type FinalizeSetup, type FinalizeTask } from './finalizeTasks.js';

/** Loads the run's analysis (finalizeGuestPreload's hint) while the worker waits for the run's setup. */
export async function preloadWorkerGuest(hint: unknown): Promise<void> {
  await loadAnalysis(hint as AnalysisRef);
}

export async function startWorkerGuest(data: unknown): Promise<(task: unknown) => TaskResult<unknown>> {
  const runTask = await startFinalizeTasks(data as FinalizeSetup);
  return (task) => runTask(task as FinalizeTask);
}
