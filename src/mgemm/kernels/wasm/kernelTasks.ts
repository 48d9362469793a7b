// How a thread of the CPU kernel set's pool runs its tasks: one microkernel (its own wasm instance, or the native
// addon) for GemmTasks and 3-way panels (whose pair products it builds first), and its guest module's tasks. Kernel
// workers (gemmWorker.ts) start with it, and so does the calling thread where the pool lets it run tasks too.
import { loadWorkerGuest, preloadWorkerGuest, type TaskResult } from '../../../core/taskWorkerPool.js';
import { runGemmTask } from './blockedLoops.js';
import type { GemmTask } from './gemmTask.js';
import { loadNativePopcountKernel } from '../native/nativePopcount.js';
import { PopcountGemmWasmInstance } from './wasmModule.js';
import type { ThreadGemmKernel } from './threadGemm.js';
import { ProductScratch, runTally3Task } from './tally3Task.js';
import type { GemmWorkerData, GemmWorkerLateSetup, KernelTask } from './workerProtocol.js';

/** A function computing one GemmTask in the calling thread with the chosen microkernel. */
export type GemmTaskRunner = (task: GemmTask) => void;

/** The calling thread's task runner for `kernel` (a wasm instance of its own, or the native addon). */
export async function createTaskRunner({ microkernel, module, amx }: ThreadGemmKernel): Promise<GemmTaskRunner> {
  if (microkernel === 'native') {
    const native = loadNativePopcountKernel();
    if (!native.available) throw new Error(native.reason);
    const options = { amx };
    return (task) => native.kernel.runTask(task, options);
  }
  if (module === null) throw new Error('the wasm microkernel needs its compiled module');
  const instance = await PopcountGemmWasmInstance.create(module);
  return (task) => runGemmTask(instance, task);
}


/**
 * Prepares the calling thread for kernel tasks of a pool started with `data` — its microkernel and the preloaded
 * guest module first, then the guest of the late setup; returns how it runs one.
 */
export async function startKernelTasks(
  data: GemmWorkerData, lateSetup: () => Promise<unknown>,
): Promise<(task: KernelTask) => TaskResult<unknown>> {
  const runTask = await createTaskRunner(data);
  if (data.guestPreload !== null) await preloadWorkerGuest(data.guestPreload);
  const { guest } = await lateSetup() as GemmWorkerLateSetup;
  const runGuestTask = guest === null ? null : await loadWorkerGuest(guest);
  const scratch = new ProductScratch();
  return (task) => {
    if (task.kind === 'gemm') runTask(task.task);
    else if (task.kind === 'tally3') runTally3Task(task.task, runTask, scratch);
    else if (runGuestTask === null) throw new Error('a guest task for a kernel worker without a guest module');
    else return runGuestTask(task.task);
    return { outcome: null };
  };
}
