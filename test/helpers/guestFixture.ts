// A guest module (core/taskWorkerPool.ts WorkerGuestModule) for tests: a kernel worker that loads it answers each
// task `n` with `n · factor` (its setup's factor) and the thread that computed it.
import { threadId } from 'node:worker_threads';
import type { TaskResult } from '../../src/core/taskWorkerPool.js';

export interface GuestAnswer {
  readonly product: number;
  readonly threadId: number;
}

export function startWorkerGuest(data: unknown): Promise<(task: unknown) => TaskResult<GuestAnswer>> {
  const { factor } = data as { readonly factor: number };
  return Promise.resolve((task) => ({ outcome: { product: (task as number) * factor, threadId } }));
}
