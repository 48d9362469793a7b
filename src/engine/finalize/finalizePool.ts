// A fixed pool of finalize worker threads (finalizeWorker.ts) running finalize tasks one at a time each.
//
// A pool of its own rather than the kernel set's workers: the kernel set (mgemm, a lower level) knows no
// metric, and GPU kernel sets have no CPU workers at all, while every backend finalizes on the host at times.
// With the pipelines' lookahead, the kernel workers compute the next panel while these finalize the current
// one; where both are busy the OS shares the cores between them, and idle threads cost nothing.
import { Worker } from 'node:worker_threads';
import { UserError } from '../../core/errors.js';
import { encodeLargeViews } from '../../core/largeViews.js';
import type { FinalizeOutcome, FinalizeReply, FinalizeRequest, FinalizeSetup, FinalizeTask } from './finalizeTasks.js';

/** The compiled worker entry, next to this file in dist/. */
const FINALIZE_WORKER_URL = new URL('./finalizeWorker.js', import.meta.url);

interface PendingTask {
  readonly task: FinalizeTask;
  readonly resolve: (outcome: FinalizeOutcome) => void;
  readonly reject: (error: Error) => void;
}

interface PoolThread {
  readonly worker: Worker;
  running: { readonly taskId: number; readonly pending: PendingTask } | undefined;
}

/** Resolves when `worker` has its finalize functions; rejects if it fails or exits first. */
function waitUntilReady(worker: Worker): Promise<void> {
  return new Promise((resolve, reject) => {
    const cleanup = (): void => {
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
    };
    const onMessage = (reply: FinalizeReply): void => {
      cleanup();
      if (reply.kind === 'ready') resolve();
      else reject(new Error(`finalize worker failed to start: ${reply.kind === 'startFailed' ? reply.message : reply.kind}`));
    };
    const onError = (error: Error): void => {
      cleanup();
      reject(error);
    };
    const onExit = (code: number): void => {
      cleanup();
      reject(new Error(`finalize worker exited with code ${code} while starting`));
    };
    worker.on('message', onMessage);
    worker.on('error', onError);
    worker.on('exit', onExit);
  });
}

/**
 * Workers are unref'd while idle (an idle pool never keeps the process alive) and ref'd while they work (awaiting
 * a task does). A failed task rejects with its error (a UserError stays one); a dead worker fails the pool.
 */
export class FinalizePool {
  private readonly threads: PoolThread[];
  private readonly queue: PendingTask[] = [];
  private nextTaskId = 0;
  private failure: Error | undefined;

  private constructor(workers: Worker[]) {
    this.threads = workers.map((worker) => ({ worker, running: undefined }));
    for (const thread of this.threads) {
      thread.worker.on('message', (reply: FinalizeReply) => this.onReply(thread, reply));
      thread.worker.on('error', (error: Error) => this.fail(error));
      thread.worker.on('exit', (code: number) => this.fail(new Error(`finalize worker exited with code ${code}`)));
      thread.worker.unref();
    }
  }

  /** Starts `numThreads` workers for `setup` and waits until each is ready. */
  static async create(numThreads: number, setup: FinalizeSetup): Promise<FinalizePool> {
    if (!Number.isInteger(numThreads) || numThreads < 1) throw new RangeError(`numThreads must be a positive integer, got ${numThreads}`);
    const workers = Array.from({ length: numThreads }, () => new Worker(FINALIZE_WORKER_URL, { workerData: setup }));
    try {
      await Promise.all(workers.map(waitUntilReady));
    } catch (error) {
      await Promise.all(workers.map((worker) => worker.terminate()));
      throw error;
    }
    return new FinalizePool(workers);
  }

  get numThreads(): number {
    return this.threads.length;
  }

  /** Runs `task` on the next free worker. */
  run(task: FinalizeTask): Promise<FinalizeOutcome> {
    return new Promise((resolve, reject) => {
      if (this.failure !== undefined) {
        reject(this.failure);
        return;
      }
      this.queue.push({ task, resolve, reject });
      this.dispatch();
    });
  }

  /** Terminates the workers; tasks not finished yet are rejected. */
  async close(): Promise<void> {
    this.fail(new Error('finalize pool is closed'));
    await Promise.all(this.threads.map((thread) => thread.worker.terminate()));
  }

  private dispatch(): void {
    for (const thread of this.threads) {
      const pending = thread.running === undefined ? this.queue.shift() : undefined;
      if (pending === undefined) continue;
      const taskId = this.nextTaskId++;
      thread.running = { taskId, pending };
      thread.worker.ref();
      const request: FinalizeRequest = { taskId, task: pending.task };
      thread.worker.postMessage(encodeLargeViews(request));
    }
  }

  private onReply(thread: PoolThread, reply: FinalizeReply): void {
    if (reply.kind !== 'done' && reply.kind !== 'failed') return;
    const running = thread.running;
    if (running === undefined || running.taskId !== reply.taskId) return;
    thread.running = undefined;
    thread.worker.unref();
    if (reply.kind === 'done') running.pending.resolve(reply.outcome);
    else running.pending.reject(reply.isUserError ? new UserError(reply.message) : new Error(reply.message));
    this.dispatch();
  }

  private fail(error: Error): void {
    this.failure ??= error;
    for (const thread of this.threads) {
      thread.running?.pending.reject(this.failure);
      thread.running = undefined;
    }
    for (const pending of this.queue.splice(0)) pending.reject(this.failure);
  }
}
