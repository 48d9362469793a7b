// What the kernel worker pool (core/taskWorkerPool.ts) gives its worker threads: their setup and their tasks
// (inputs and outputs in shared memory; a task's outcome is only that it is done).

import type { WorkerGuestPreload, WorkerGuestSpec } from '../../../core/taskWorkerPool.js';
import type { GemmTask } from './gemmTask.js';
import type { Tally3Task } from './tally3Task.js';
import type { WasmModule } from './webAssemblyApi.js';

/** The microkernel families of the CPU kernel set. */
export type CpuMicrokernel = 'wasm' | 'native';

/**
 * `workerData` of a kernel worker: its microkernel, for wasm the compiled module (workers skip compiling it), and the
 * guest module to load while the late setup (GemmWorkerLateSetup) is awaited, or null.
 */
export interface GemmWorkerData {
  readonly microkernel: CpuMicrokernel;
  readonly module: WasmModule | null;
  /** Whether the native kernel's `auto` choice may pick AMX (nativePopcount.ts amxAllowedFor the set's threads). */
  readonly amx: boolean;
  readonly guestPreload: WorkerGuestPreload | null;
}

/** The late setup of a kernel worker (core/taskWorkerPool.ts LateSetupMessage): the guest module it also runs tasks of, or null. */
export interface GemmWorkerLateSetup {
  readonly guest: WorkerGuestSpec | null;
}

/**
 * A task of any kind: a 2-way GemmTask, a 3-way panel whose pair products the worker builds, or a task of the guest
 * module (its outcome is the guest's; the kernel tasks' is null).
 */
export type KernelTask =
  | { readonly kind: 'gemm'; readonly task: GemmTask }
  | { readonly kind: 'tally3'; readonly task: Tally3Task }
  | { readonly kind: 'guest'; readonly task: unknown };

/** URL of the compiled kernel worker (core/taskWorkerPool.ts serves its tasks), next to this file in dist/. */
export const GEMM_WORKER_URL = new URL('./gemmWorker.js', import.meta.url);
