// Entry of a kernel worker thread: one wasm instance, computing the GemmTasks the pool posts.

import { parentPort, workerData } from 'node:worker_threads';
import { runGemmTask } from './blockedLoops.js';
import { PopcountGemmWasmInstance } from './wasmModule.js';
import type { GemmWorkerData, TaskMessage, WorkerReply } from './workerProtocol.js';

function errorMessage(error: unknown): string {
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}

async function serveTasks(): Promise<void> {
  const port = parentPort;
  if (port === null) throw new Error('gemmWorker.js must run as a worker thread');
  const reply = (message: WorkerReply): void => port.postMessage(message);
  let instance: PopcountGemmWasmInstance;
  try {
    instance = await PopcountGemmWasmInstance.create((workerData as GemmWorkerData).module);
  } catch (error) {
    reply({ kind: 'startFailed', message: errorMessage(error) });
    return;
  }
  port.on('message', ({ taskId, task }: TaskMessage) => {
    try {
      runGemmTask(instance, task);
      reply({ kind: 'done', taskId });
    } catch (error) {
      reply({ kind: 'failed', taskId, message: errorMessage(error) });
    }
  });
  reply({ kind: 'ready' });
}

await serveTasks();
