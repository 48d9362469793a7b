// Entry of a kernel worker thread: one microkernel (its own wasm instance, or the native addon), computing the
// tasks the pool posts (GemmTasks, and 3-way panels whose pair products it builds first).

import { parentPort, workerData } from 'node:worker_threads';
import { decodeLargeViews } from '../../../core/largeViews.js';
import { createTaskRunner, type GemmTaskRunner } from './popcountGemmWasm.js';
import { ProductScratch, runTally3Task } from './tally3Task.js';
import type { GemmWorkerData, TaskMessage, WorkerReply } from './workerProtocol.js';

function errorMessage(error: unknown): string {
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}

async function serveTasks(): Promise<void> {
  const port = parentPort;
  if (port === null) throw new Error('gemmWorker.js must run as a worker thread');
  const reply = (message: WorkerReply): void => port.postMessage(message);
  let runTask: GemmTaskRunner;
  try {
    const data = workerData as GemmWorkerData;
    runTask = await createTaskRunner(data.microkernel, data.module);
  } catch (error) {
    reply({ kind: 'startFailed', message: errorMessage(error) });
    return;
  }
  const scratch = new ProductScratch();
  port.on('message', (posted: unknown) => {
    const message = decodeLargeViews<TaskMessage>(posted);
    const { taskId } = message;
    try {
      if (message.kind === 'gemm') runTask(message.task);
      else runTally3Task(message.task, runTask, scratch);
      reply({ kind: 'done', taskId });
    } catch (error) {
      reply({ kind: 'failed', taskId, message: errorMessage(error) });
    }
  });
  reply({ kind: 'ready' });
}

await serveTasks();
