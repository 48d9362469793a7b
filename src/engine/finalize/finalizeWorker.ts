// Entry of a finalize worker thread: gets the run's finalize functions from its setup (finalizers.ts) and runs
// the tasks the finalize pool posts, replying with each task's small results.
import { parentPort, workerData } from 'node:worker_threads';
import { UserError } from '../../core/errors.js';
import { decodeLargeViews } from '../../core/largeViews.js';
import { loadFinalizers } from './finalizers.js';
import { LocalFinalizer, type FinalizeReply, type FinalizeRequest, type FinalizeSetup } from './finalizeTasks.js';

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

async function serveTasks(): Promise<void> {
  const port = parentPort;
  if (port === null) throw new Error('finalizeWorker.js must run as a worker thread');
  const reply = (message: FinalizeReply, transfer: ArrayBuffer[] = []): void => port.postMessage(message, transfer);
  let finalizer: LocalFinalizer;
  try {
    const setup = workerData as FinalizeSetup;
    finalizer = new LocalFinalizer(setup, await loadFinalizers(setup.finalizers));
  } catch (error) {
    reply({ kind: 'startFailed', message: errorMessage(error) });
    return;
  }
  port.on('message', (posted: unknown) => {
    const { taskId, task } = decodeLargeViews<FinalizeRequest>(posted);
    try {
      const outcome = finalizer.run(task);
      reply({ kind: 'done', taskId, outcome }, [outcome.recordWords.buffer as ArrayBuffer]);
    } catch (error) {
      reply({ kind: 'failed', taskId, message: errorMessage(error), isUserError: error instanceof UserError });
    }
  });
  reply({ kind: 'ready' });
}

await serveTasks();
