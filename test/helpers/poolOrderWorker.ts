// A task worker for tests of core/taskWorkerPool.ts: each task holds its thread for `holdMs` (a blocking wait, as a
// GEMM panel would) and answers with its label, so that a one-thread pool's answers show the order tasks ran in.
import { serveTasks } from '../../src/core/taskWorkerPool.js';

export interface OrderTask {
  readonly label: string;
  readonly holdMs: number;
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));

await serveTasks<OrderTask, string>(() => Promise.resolve((task) => {
  if (task.holdMs > 0) Atomics.wait(sleeper, 0, 0, task.holdMs);
  return { outcome: task.label };
}));
