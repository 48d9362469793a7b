// Entry of a kernel worker thread: one microkernel (its own wasm instance, or the native addon), computing the
// tasks the pool posts (GemmTasks, and 3-way panels whose pair products it builds first).
import { serveTasks } from '../../../core/taskWorkerPool.js';
import { createTaskRunner } from './popcountGemmWasm.js';
import { ProductScratch, runTally3Task } from './tally3Task.js';
import type { GemmWorkerData, KernelTask } from './workerProtocol.js';

await serveTasks<KernelTask, null>(async (data) => {
  const { microkernel, module } = data as GemmWorkerData;
  const runTask = await createTaskRunner(microkernel, module);
  const scratch = new ProductScratch();
  return (task) => {
    if (task.kind === 'gemm') runTask(task.task);
    else runTally3Task(task.task, runTask, scratch);
    return { outcome: null };
  };
});
