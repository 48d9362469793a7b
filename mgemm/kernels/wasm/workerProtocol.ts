// Messages between the kernel worker pool and its worker threads.

import type { GemmTask } from './gemmTask.js';
import type { WasmModule } from './webAssemblyApi.js';

/** `workerData` of a kernel worker: the compiled module, so workers skip reading and compiling it. */
export interface GemmWorkerData {
  readonly module: WasmModule;
}

/** Pool → worker: compute one task (its inputs and outputs are in shared memory). */
export interface TaskMessage {
  readonly taskId: number;
  readonly task: GemmTask;
}

/** Worker → pool. */
export type WorkerReply =
  | { readonly kind: 'ready' }
  | { readonly kind: 'startFailed'; readonly message: string }
  | { readonly kind: 'done'; readonly taskId: number }
  | { readonly kind: 'failed'; readonly taskId: number; readonly message: string };
