// A fixed pool of kernel worker threads, each with its own wasm instance, running tasks one at a time.

import { Worker } from 'node:worker_threads';
import { encodeLargeViews } from '../../../core/largeViews.js';
import type { GemmWorkerData, KernelTask, TaskMessage, WorkerReply } from './workerProtocol.js';

/** The compiled worker entry, next to this file in dist/. */
const GEMM_WORKER_URL = new URL('./gemmWorker.js', import.meta.url);

interface PendingTask {
  readonly task: KernelTask;
  readonly resolve: () => void;
  readonly reject: (error: Error) => void;
}

interface PoolThread {
  readonly worker: Worker;
  /** The task this worker computes now, with the id its reply will carry. */
  running: { readonly taskId: number; readonly pending: PendingTask } | undefined;
}

/** Resolves when `worker` has instantiated the module; rejects if it fails or exits first. */
function waitUntilReady(worker: Worker): Promise<void> {
  return new Promise((resolve, reject) => {
    const cleanup = (): void => {
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
    };
    const onMessage = (reply: WorkerReply): void => {
      cleanup();
      if (reply.kind === 'ready') resolve();
      else reject(new Error(`kernel worker failed to start: ${reply.kind === 'startFailed' ? reply.message : reply.kind}`));
    };
    const onError = (error: Error): void => {
      cleanup();
      reject(error);
    };
    const onExit = (code: number): void => {
      cleanup();
      reject(new Error(`kernel worker exited with code ${code} while starting`));
    };
    worker.on('message', onMessage);
    worker.on('error', onError);
    worker.on('exit', onExit);
  });
}

/**
 * Workers are unref'd while idle, so an idle pool never keeps the process alive, and ref'd while they
 * compute, so that awaiting a task does (a top-level `await gemm.run(…)` would otherwise end the process).
 */
export class GemmWorkerPool {
  private readonly threads: PoolThread[];
  private readonly queue: PendingTask[] = [];
  private nextTaskId = 0;
  /** Set once a worker dies or the pool closes; every later task is rejected with it. */
  private failure: Error | undefined;

  private constructor(workers: Worker[]) {
    this.threads = workers.map((worker) => ({ worker, running: undefined }));
    for (const thread of this.threads) {
      thread.worker.on('message', (reply: WorkerReply) => this.onReply(thread, reply));
      thread.worker.on('error', (error: Error) => this.fail(error));
      thread.worker.on('exit', (code: number) => this.fail(new Error(`kernel worker exited with code ${code}`)));
      thread.worker.unref();
    }
  }

  /** Starts `numThreads` workers and waits until each has its microkernel ready. */
  static async create(numThreads: number, workerData: GemmWorkerData): Promise<GemmWorkerPool> {
    const workers = Array.from({ length: numThreads }, () => new Worker(GEMM_WORKER_URL, { workerData }));
    try {
      await Promise.all(workers.map(waitUntilReady));
    } catch (error) {
      await Promise.all(workers.map((worker) => worker.terminate()));
      throw error;
    }
    return new GemmWorkerPool(workers);
  }

  /** Number of worker threads. */
  get numThreads(): number {
    return this.threads.length;
  }

  /** Runs `task` on the next free worker; resolves once its outputs are written. */
  run(task: KernelTask): Promise<void> {
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
    this.fail(new Error('popcount-GEMM worker pool is closed'));
    await Promise.all(this.threads.map((thread) => thread.worker.terminate()));
  }

  private dispatch(): void {
    for (const thread of this.threads) {
      const pending = thread.running === undefined ? this.queue.shift() : undefined;
      if (pending === undefined) continue;
      const taskId = this.nextTaskId++;
      thread.running = { taskId, pending };
      thread.worker.ref();
      const message: TaskMessage = { taskId, ...pending.task };
      thread.worker.postMessage(encodeLargeViews(message));
    }
  }

  private onReply(thread: PoolThread, reply: WorkerReply): void {
    if (reply.kind !== 'done' && reply.kind !== 'failed') return;
    const running = thread.running;
    if (running === undefined || running.taskId !== reply.taskId) return;
    thread.running = undefined;
    thread.worker.unref();
    if (reply.kind === 'done') running.pending.resolve();
    else running.pending.reject(new Error(`kernel worker task failed: ${reply.message}`));
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
