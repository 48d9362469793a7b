// The CPU kernel set's 2-way GEMM on the calling thread, opened from plain data (PopcountGemm.threadKernel): a worker of
// another pool (the engine's finalize workers) computes many small requests itself, with no message per request.
import type { PopcountGemmRequest } from '../../contract.js';
import { checkPopcountGemmRequest } from '../../requestChecks.js';
import { runGemmTask } from './blockedLoops.js';
import { loadNativePopcountKernel } from '../native/nativePopcount.js';
import { PopcountGemmWasmInstance } from './wasmModule.js';
import type { GemmWorkerData } from './workerProtocol.js';

/** Which microkernel, and for wasm its compiled module: what a kernel worker starts from, cloneable to any thread. */
export type ThreadGemmKernel = Pick<GemmWorkerData, 'microkernel' | 'module' | 'amx'>;

/** A 2-way GEMM in the calling thread. */
export interface ThreadGemm {
  /**
   * Computes `request` into `outputs` (one aCount × bCount row-major array per term group, overwritten; with
   * strictUpper the entries with row ≥ column are unspecified), exactly as the kernel set's `run`.
   */
  run(request: PopcountGemmRequest, outputs: readonly Uint32Array[]): void;
}

/** Opens `kernel` in the calling thread, synchronously (a worker may need it inside a task). */
export function openThreadGemm(kernel: ThreadGemmKernel): ThreadGemm {
  let runTask: (task: Parameters<typeof runGemmTask>[1]) => void;
  if (kernel.microkernel === 'native') {
    const native = loadNativePopcountKernel();
    if (!native.available) throw new Error(native.reason);
    const options = { amx: kernel.amx };
    runTask = (task) => native.kernel.runTask(task, options);
  } else {
    if (kernel.module === null) throw new Error('the wasm microkernel needs its compiled module');
    const instance = PopcountGemmWasmInstance.createSync(kernel.module);
    runTask = (task) => runGemmTask(instance, task);
  }
  return {
    run(request, outputs) {
      checkPopcountGemmRequest(request);
      const size = request.aCount * request.bCount;
      if (outputs.length !== request.termGroups.length || outputs.some((out) => out.length < size)) {
        throw new RangeError(`outputs of a ${request.aCount} × ${request.bCount} request: ${outputs.length} arrays for ${request.termGroups.length} groups`);
      }
      // The native kernel adds to its outputs.
      for (const out of outputs) out.fill(0, 0, size);
      if (size === 0) return;
      runTask({ request, panel: { rowBegin: 0, rowEnd: request.aCount, colBegin: request.strictUpper ? 1 : 0 }, outputs });
    },
  };
}
