// Entry of a kernel worker thread: one microkernel (its own wasm instance, or the native addon), computing the
// tasks the pool posts (GemmTasks, and 3-way panels whose pair products it builds first), and its guest module's.
import { loadWorkerGuest, serveTasks } from '../../../core/taskWorkerPool.js';
import { createTaskRunner } from './popcountGemmWasm.js';
import { ProductScratch, runTally3Task } from './tally3Task.js';
import type { GemmWorkerData, KernelTask } from './workerProtocol.js';

await serveTasks<KernelTask, unknown>(async (data) => {
  const { microkernel, module, guest } = data as GemmWorkerData;
  const runTask = await createTaskRunner(microkernel, module);
  const runGuestTask = guest === null ? null : await loadWorkerGuest(guest);
  const scratch = new ProductScratch();
  return (task) => {
    if (task.kind === 'gemm') runTask(task.task);
    else if (task.kind === 'tally3') runTally3Task(task.task, runTask, scratch);
    else if (runGuestTask === null) throw new Error('a guest task for a kernel worker without a guest module');
    else return runGuestTask(task.task);
    return { outcome: null };
  };
});
