// A fixed pool of worker threads that run tasks one at a time each, and the worker side of its protocol: the CPU
// kernel set's GEMM workers and the engine's finalize workers are both such pools. A pool's workers may also host a
// guest module (by URL, so that a lower level runs a higher level's tasks without importing it): the CPU kernel
// workers finalize the tallies they computed, with no second pool of threads competing for the cores. A pool starts
// in two phases (TaskWorkerPool.start): its workers start with `workerData` at once, and get the late part of their
// setup (e.g. their guest's data, known only once a run's input is read) when the pool is completed.
import { parentPort, Worker, workerData } from 'node:worker_threads';
import { UserError } from './errors.js';
import { decodeLargeViews, encodeLargeViews } from './largeViews.js';

/** Pool → worker: one task (large views inside it are encoded, core/largeViews.ts). */
export interface TaskRequest<Task> {
  readonly taskId: number;
  readonly task: Task;
}

/** Pool → worker, once, before any task: the late part of the worker's setup (TaskWorkerPoolStart.complete). */
export interface LateSetupMessage {
  readonly lateSetup: unknown;
}

/** Worker → pool. */
export type TaskReply<Outcome> =
  | { readonly kind: 'ready' }
  | { readonly kind: 'startFailed'; readonly message: string }
  | { readonly kind: 'done'; readonly taskId: number; readonly outcome: Outcome }
  | { readonly kind: 'failed'; readonly taskId: number; readonly message: string; readonly isUserError: boolean };

/** How a task is queued. */
export interface TaskRunOptions {
  /** Ahead of every task that is not urgent (urgent ones run in the order posted). Absent: false. */
  readonly urgent?: boolean;
}

/**
 * A module that other pools' workers load to run tasks of its own beside theirs: its URL and its setup (plain data,
 * the workers' copy). The module exports `startWorkerGuest` (WorkerGuestModule).
 */
export interface WorkerGuestSpec {
  readonly moduleUrl: string;
  readonly data: unknown;
}

/**
 * A guest module named before its data is known (a pool started ahead of its run): workers import it and call its
 * `preloadWorkerGuest(hint)` while they wait for the data, so that what it loads is loaded by then.
 */
export interface WorkerGuestPreload {
  readonly moduleUrl: string;
  readonly hint: unknown;
}

/**
 * What a guest module exports: its setup in a worker, which returns how the worker runs one of its tasks; and
 * optionally what it can load from a hint alone (WorkerGuestPreload).
 */
export interface WorkerGuestModule {
  startWorkerGuest(data: unknown): Promise<(task: unknown) => TaskResult<unknown>>;
  preloadWorkerGuest?(hint: unknown): Promise<void>;
}

/** Imports a guest module in the calling worker and lets it load what its hint names (before its data comes). */
export async function preloadWorkerGuest(preload: WorkerGuestPreload): Promise<void> {
  const guest = await import(preload.moduleUrl) as Partial<WorkerGuestModule>;
  await guest.preloadWorkerGuest?.(preload.hint);
}

/** Loads a guest module in the calling worker and sets it up. */
export async function loadWorkerGuest(spec: WorkerGuestSpec): Promise<(task: unknown) => TaskResult<unknown>> {
  const guest = await import(spec.moduleUrl) as Partial<WorkerGuestModule>;
  if (typeof guest.startWorkerGuest !== 'function') throw new Error(`${spec.moduleUrl} exports no startWorkerGuest`);
  return guest.startWorkerGuest(spec.data);
}

/** Runs a guest module's tasks on the threads of the pool that hosts it (its outcomes as the guest returned them). */
export interface GuestTaskRunner {
  readonly numThreads: number;
  run(task: unknown, options?: TaskRunOptions): Promise<unknown>;
}

interface PendingTask<Task, Outcome> {
  readonly task: Task;
  readonly resolve: (outcome: Outcome) => void;
  readonly reject: (error: Error) => void;
}

interface PoolThread<Task, Outcome> {
  readonly worker: Worker;
  /** The tasks posted to this worker, oldest (the one it runs) first, with the ids their replies will carry. */
  readonly posted: { readonly taskId: number; readonly pending: PendingTask<Task, Outcome> }[];
}

/**
 * Tasks posted to one worker at most: the one it runs and the next, so that it starts the next without waiting for
 * this thread to read its reply and post again (on a loaded 2-core machine that round trip left each kernel worker
 * idle ~12 % of a run). A second task is posted only while the queue holds a task for every worker besides it, so
 * that the last tasks of a batch still go to whichever worker is free first.
 */
const TASKS_POSTED_PER_WORKER = 2;

/** Resolves when `worker` is ready for tasks; rejects if it fails or exits first. */
function waitUntilReady(worker: Worker, name: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const cleanup = (): void => {
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
    };
    const onMessage = (reply: TaskReply<unknown>): void => {
      cleanup();
      if (reply.kind === 'ready') resolve();
      else reject(new Error(`${name} failed to start: ${reply.kind === 'startFailed' ? reply.message : reply.kind}`));
    };
    const onError = (error: Error): void => {
      cleanup();
      reject(error);
    };
    const onExit = (code: number): void => {
      cleanup();
      reject(new Error(`${name} exited with code ${code} while starting`));
    };
    worker.on('message', onMessage);
    worker.on('error', onError);
    worker.on('exit', onExit);
  });
}

/** What a pool starts: the worker module (it calls serveTasks), its workerData, and a name for messages. */
export interface TaskWorkerPoolOptions {
  readonly workerUrl: URL;
  /** Threads that run tasks: worker threads, and the calling thread too where `callerRuns` allows it. */
  readonly numThreads: number;
  readonly workerData: unknown;
  /** E.g. 'kernel worker': errors read "kernel worker exited with code 1". */
  readonly name: string;
  /**
   * How the calling thread runs a task (the workers' own start function, called here with the same workerData), so
   * that it is one of `numThreads` while it would otherwise wait: a pool of up to CALLER_RUNS_MAX_THREADS threads
   * then starts one worker fewer. Absent: workers only.
   */
  readonly callerRuns?: (data: unknown, lateSetup: () => Promise<unknown>) => Promise<(task: never) => TaskResult<unknown>>;
}

/** TaskWorkerPool.create's options: a pool started and completed at once, with this late setup (absent: null). */
export interface TaskWorkerPoolCreateOptions extends TaskWorkerPoolOptions {
  readonly lateSetup?: unknown;
}

/**
 * A pool whose threads are starting (TaskWorkerPool.start): they run their start function with `workerData` and wait
 * for the late part of their setup. While so, its workers never keep the process alive.
 */
export interface TaskWorkerPoolStart<Task, Outcome> {
  readonly numThreads: number;
  /**
   * Gives every thread `lateSetup` and resolves once each is ready; rejects with the first failure to start (a worker's
   * `startFailed` or exit, in either phase), the workers then stopped. Once only.
   */
  complete(lateSetup: unknown): Promise<TaskWorkerPool<Task, Outcome>>;
  /** Stops the workers of a start that will not be completed (nothing once completed). */
  cancel(): Promise<void>;
}

/**
 * Pools of at most this many threads let the calling thread run tasks (TaskWorkerPoolOptions.callerRuns): one worker
 * isolate fewer, whose start, compiling and garbage collection cost 2 threads on 2 cores ~10 % of a run. With more
 * workers the calling thread has their replies to answer, which a task of its own would hold up.
 */
export const CALLER_RUNS_MAX_THREADS = 2;

/**
 * Workers are unref'd while idle (an idle pool never keeps the process alive) and ref'd while they work (awaiting a
 * task does). A failed task rejects with its error (a UserError stays one); a dead worker fails the pool.
 */
export class TaskWorkerPool<Task, Outcome> {
  private readonly threads: PoolThread<Task, Outcome>[];
  private readonly queue: PendingTask<Task, Outcome>[] = [];
  /** Urgent tasks, taken before `queue`'s. */
  private readonly urgentQueue: PendingTask<Task, Outcome>[] = [];
  private nextTaskId = 0;
  /** Set once a worker dies or the pool closes; every later task is rejected with it. */
  private failure: Error | undefined;

  /** The calling thread as one more runner (callerRuns), or null; `busy` while it runs a task or has one scheduled. */
  private readonly caller: { readonly runTask: (task: Task) => TaskResult<Outcome>; busy: boolean } | null;

  private constructor(workers: Worker[], private readonly name: string, callerRunTask: ((task: Task) => TaskResult<Outcome>) | null) {
    this.caller = callerRunTask === null ? null : { runTask: callerRunTask, busy: false };
    this.threads = workers.map((worker) => ({ worker, posted: [] }));
    for (const thread of this.threads) {
      thread.worker.on('message', (reply: TaskReply<Outcome>) => this.onReply(thread, reply));
      thread.worker.on('error', (error: Error) => this.fail(error));
      thread.worker.on('exit', (code: number) => this.fail(new Error(`${name} exited with code ${code}`)));
      thread.worker.unref();
    }
  }

  /** Starts the workers and waits until each is ready (start, then complete with `options.lateSetup`). */
  static create<Task, Outcome>(options: TaskWorkerPoolCreateOptions): Promise<TaskWorkerPool<Task, Outcome>> {
    return TaskWorkerPool.start<Task, Outcome>(options).complete(options.lateSetup ?? null);
  }

  /** Starts the workers (and the calling thread's start where `callerRuns`); `complete` gives them their late setup. */
  static start<Task, Outcome>(options: TaskWorkerPoolOptions): TaskWorkerPoolStart<Task, Outcome> {
    const { numThreads, workerUrl, name } = options;
    if (!Number.isInteger(numThreads) || numThreads < 1) throw new RangeError(`numThreads must be a positive integer, got ${numThreads}`);
    const callerRuns = options.callerRuns !== undefined && numThreads <= CALLER_RUNS_MAX_THREADS ? options.callerRuns : null;
    const numWorkers = callerRuns === null ? numThreads : numThreads - 1;
    const workers = Array.from({ length: numWorkers }, () => new Worker(workerUrl, { workerData: options.workerData }));
    // Listening from the start keeps a failure of the first phase until `complete` reports it.
    const ready = workers.map((worker) => waitUntilReady(worker, name));
    for (const waiting of ready) waiting.catch(() => undefined);
    // A start that is never completed (its run refused) must not keep the process alive.
    for (const worker of workers) worker.unref();
    let giveLateSetup: (lateSetup: unknown) => void = () => undefined;
    const lateSetup = new Promise<unknown>((resolve) => { giveLateSetup = resolve; });
    let starting: Promise<(task: Task) => TaskResult<Outcome>> | null = null;
    try {
      starting = (callerRuns?.(options.workerData, () => lateSetup) ?? null) as Promise<(task: Task) => TaskResult<Outcome>> | null;
    } catch (error) {
      starting = Promise.reject(error);
    }
    starting?.catch(() => undefined);
    let phase: 'starting' | 'completed' | 'cancelled' = 'starting';
    const stopWorkers = async (): Promise<void> => {
      await Promise.all(workers.map((worker) => worker.terminate()));
    };
    return {
      numThreads,
      complete: async (late) => {
        if (phase !== 'starting') throw new Error(`${name} pool: complete() after ${phase === 'completed' ? 'complete()' : 'cancel()'}`);
        phase = 'completed';
        giveLateSetup(late);
        const message: LateSetupMessage = { lateSetup: late };
        for (const worker of workers) {
          // Awaited now: the workers keep the process alive until ready (the pool unrefs them while idle).
          worker.ref();
          worker.postMessage(message);
        }
        let callerRunTask: ((task: Task) => TaskResult<Outcome>) | null;
        try {
          await Promise.all(ready);
          callerRunTask = starting === null ? null : await starting;
        } catch (error) {
          await stopWorkers();
          throw error;
        }
        return new TaskWorkerPool<Task, Outcome>(workers, name, callerRunTask);
      },
      cancel: async () => {
        if (phase !== 'starting') return;
        phase = 'cancelled';
        await stopWorkers();
      },
    };
  }

  get numThreads(): number {
    return this.threads.length + (this.caller === null ? 0 : 1);
  }

  /** Runs `task` on the next free worker. */
  run(task: Task, options: TaskRunOptions = {}): Promise<Outcome> {
    return new Promise((resolve, reject) => {
      if (this.failure !== undefined) {
        reject(this.failure);
        return;
      }
      (options.urgent === true ? this.urgentQueue : this.queue).push({ task, resolve, reject });
      this.dispatch();
    });
  }

  /** Terminates the workers; tasks not finished yet are rejected. */
  async close(): Promise<void> {
    this.fail(new Error(`${this.name} pool is closed`));
    await Promise.all(this.threads.map((thread) => thread.worker.terminate()));
  }

  /**
   * Idle workers get a task first, then the calling thread (callerRuns: on the next turn of its event loop, so that
   * replies and posts come first), then busy workers their next, while enough tasks are queued (TASKS_POSTED_PER_WORKER).
   */
  private dispatch(): void {
    this.postToWorkers(1);
    const caller = this.caller;
    if (caller !== null && !caller.busy && this.urgentQueue.length + this.queue.length > 0) {
      caller.busy = true;
      setImmediate(() => this.runOnCaller(caller));
    }
    this.postToWorkers(TASKS_POSTED_PER_WORKER);
  }

  /** Runs the next queued task on the calling thread, then dispatches again. */
  private runOnCaller(caller: { readonly runTask: (task: Task) => TaskResult<Outcome>; busy: boolean }): void {
    const pending = this.failure === undefined ? this.urgentQueue.shift() ?? this.queue.shift() : undefined;
    if (pending !== undefined) {
      try {
        pending.resolve(caller.runTask(pending.task).outcome);
      } catch (error) {
        pending.reject(error instanceof UserError ? error : new Error(`${this.name} task failed: ${errorText(error)}`));
      }
    }
    caller.busy = false;
    if (pending !== undefined) this.dispatch();
  }

  /** Posts queued tasks to workers holding fewer than `maxDepth` (1: idle workers only). */
  private postToWorkers(maxDepth: number): void {
    for (let depth = 1; depth <= maxDepth; depth++) {
      for (const thread of this.threads) {
        if (thread.posted.length >= depth) continue;
        if (depth > 1 && this.urgentQueue.length + this.queue.length < this.threads.length) return;
        const pending = this.urgentQueue.shift() ?? this.queue.shift();
        if (pending === undefined) return;
        const taskId = this.nextTaskId++;
        thread.posted.push({ taskId, pending });
        if (thread.posted.length === 1) thread.worker.ref();
        const request: TaskRequest<Task> = { taskId, task: pending.task };
        thread.worker.postMessage(encodeLargeViews(request));
      }
    }
  }

  private onReply(thread: PoolThread<Task, Outcome>, reply: TaskReply<Outcome>): void {
    if (reply.kind !== 'done' && reply.kind !== 'failed') return;
    const running = thread.posted[0];
    if (running === undefined || running.taskId !== reply.taskId) return;
    thread.posted.shift();
    if (thread.posted.length === 0) thread.worker.unref();
    if (reply.kind === 'done') running.pending.resolve(reply.outcome);
    else running.pending.reject(reply.isUserError ? new UserError(reply.message) : new Error(`${this.name} task failed: ${reply.message}`));
    this.dispatch();
  }

  private fail(error: Error): void {
    this.failure ??= error;
    for (const thread of this.threads) {
      for (const posted of thread.posted.splice(0)) posted.pending.reject(this.failure);
    }
    for (const pending of [...this.urgentQueue.splice(0), ...this.queue.splice(0)]) pending.reject(this.failure);
  }
}

/** A worker's answer to one task: its outcome, and the buffers to transfer rather than copy. */
export interface TaskResult<Outcome> {
  readonly outcome: Outcome;
  readonly transfer?: readonly ArrayBuffer[];
}

function errorText(error: unknown): string {
  if (error instanceof UserError) return error.message;
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}

/**
 * The worker side: `start(workerData, lateSetup)` prepares the worker (a failure is reported as `startFailed`) and
 * returns how it runs one task — `lateSetup()` resolves to the late part of its setup once the pool gives it (every
 * pool does, once, before its first task); then every posted task is run in order and answered.
 */
export async function serveTasks<Task, Outcome>(
  start: (data: unknown, lateSetup: () => Promise<unknown>) => Promise<(task: Task) => TaskResult<Outcome>>,
): Promise<void> {
  const port = parentPort;
  if (port === null) throw new Error('serveTasks must run in a worker thread');
  const reply = (message: TaskReply<Outcome>, transfer: readonly ArrayBuffer[] = []): void => port.postMessage(message, [...transfer]);
  let giveLateSetup: (lateSetup: unknown) => void = () => undefined;
  const lateSetup = new Promise<unknown>((resolve) => { giveLateSetup = resolve; });
  let runTask: ((task: Task) => TaskResult<Outcome>) | null = null;
  // Listening before `start` runs: the late setup may come while it does.
  const onMessage = (posted: unknown): void => {
    if (isLateSetupMessage(posted)) {
      giveLateSetup(posted.lateSetup);
      return;
    }
    const { taskId, task } = decodeLargeViews<TaskRequest<Task>>(posted);
    try {
      if (runTask === null) throw new Error('a task before the worker was ready');
      const { outcome, transfer } = runTask(task);
      reply({ kind: 'done', taskId, outcome }, transfer);
    } catch (error) {
      reply({ kind: 'failed', taskId, message: errorText(error), isUserError: error instanceof UserError });
    }
  };
  port.on('message', onMessage);
  try {
    runTask = await start(workerData, () => lateSetup);
  } catch (error) {
    reply({ kind: 'startFailed', message: errorText(error) });
    // Nothing left to listen for: the thread ends.
    port.off('message', onMessage);
    return;
  }
  reply({ kind: 'ready' });
}

function isLateSetupMessage(posted: unknown): posted is LateSetupMessage {
  return typeof posted === 'object' && posted !== null && 'lateSetup' in posted && !('taskId' in posted);
}
