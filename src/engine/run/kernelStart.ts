// A run's kernel threads started before its job is known (the first phase of the two-phase worker start): a command
// starts them first thing, while it reads and converts its input, and hands them to runJob (RunHooks.startedKernels),
// whose rank gives them the finalize guest's data once the run is checked and its settings known.
import { availableParallelism } from 'node:os';
import { UserError } from '../../core/errors.js';
import type { AnalysisRef } from '../../analyses/index.js';
import { startPopcountGemm, type PopcountGemmStart } from '../../mgemm/index.js';
import { finalizeGuestPreload } from '../finalize/finalizeTasks.js';
import { checkThreadCount } from './memoryCheck.js';
import type { JobSpec } from './jobSpec.js';

/** What a run's kernel threads depend on that a command knows before reading its input. */
export interface RunKernelPlan {
  readonly backend: JobSpec['backend'];
  /** The job's kernel threads (JobSpec.numThreads), checked as checkJob checks them. */
  readonly numThreads: number;
  /** The run's analysis: the threads load it while they wait for the run's settings. */
  readonly analysis: AnalysisRef;
}

/**
 * Starts the kernel threads of a run of one in-process rank on the CPU kernel set, or returns null where nothing would
 * be started ahead (another backend). The thread count is refused here as checkJob would refuse it (a one-line
 * UserError), before any thread starts. The caller hands the start to runJob, or cancels it.
 */
export function startRunKernels(plan: RunKernelPlan, numCores = availableParallelism()): PopcountGemmStart | null {
  if (!Number.isInteger(plan.numThreads) || plan.numThreads < 1) throw new UserError(`--threads ${plan.numThreads} is not a positive integer`);
  checkThreadCount(plan.numThreads, numCores);
  if (plan.backend !== 'cpu') return null;
  return startPopcountGemm({ backend: 'cpu', numThreads: plan.numThreads, workerGuestPreload: finalizeGuestPreload(plan.analysis) });
}
