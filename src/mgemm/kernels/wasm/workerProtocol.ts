// Messages between the kernel worker pool and its worker threads.

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

/** Pool → worker: compute one task (its inputs and outputs are in shared memory). */
export type TaskMessage = { readonly taskId: number } & KernelTask;

/** Worker → pool. */
export type WorkerReply =
  | { readonly kind: 'ready' }
  | { readonly kind: 'startFailed'; readonly message: string }
  | { readonly kind: 'done'; readonly taskId: number }
  | { readonly kind: 'failed'; readonly taskId: number; readonly message: string };
