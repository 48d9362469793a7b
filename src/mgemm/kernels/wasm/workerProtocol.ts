// What the kernel worker pool (core/taskWorkerPool.ts) gives its worker threads: their setup and their tasks
// (inputs and outputs in shared memory; a task's outcome is only that it is done).

import type { GemmTask } from './gemmTask.js';
import type { Tally3Task } from './tally3Task.js';
import type { WasmModule } from './webAssemblyApi.js';

/** The microkernel families of the CPU kernel set. */
export type CpuMicrokernel = 'wasm' | 'native';

/** `workerData` of a kernel worker: its microkernel, and for wasm the compiled module (workers skip compiling it). */
export interface GemmWorkerData {
  readonly microkernel: CpuMicrokernel;
  readonly module: WasmModule | null;
}

/** A task of either kind: a 2-way GemmTask, or a 3-way panel whose pair products the worker builds. */
export type KernelTask = { readonly kind: 'gemm'; readonly task: GemmTask } | { readonly kind: 'tally3'; readonly task: Tally3Task };

/** URL of the compiled kernel worker (core/taskWorkerPool.ts serves its tasks), next to this file in dist/. */
export const GEMM_WORKER_URL = new URL('./gemmWorker.js', import.meta.url);
