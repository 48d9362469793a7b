// Runs N ranks as worker threads of this process, wired as a full mesh, and collects their results or the first failure.
import { MessageChannel, Worker, type MessagePort } from 'node:worker_threads';
import { UserError } from '../../core/errors.js';
import type { RankWorkerData, StopRequest, WorkerReport } from './messages.js';

/** Options of {@link launchInProcessRanks}. */
export interface LaunchInProcessOptions {
  readonly numRanks: number;
  /** URL of the compiled entry module (compute it from the caller's `import.meta.url`). */
  readonly entryModuleUrl: string | URL;
  /** Name of the {@link RankEntry} function the module exports. */
  readonly entryExportName: string;
  /** Structured-cloned to every rank. */
  readonly payload: unknown;
  /** Sum over ranks of the latest (done, total) each rank reported. */
  readonly onProgress?: (doneTotal: number, totalTotal: number) => void;
}

/** A rank failed or aborted: the message is `rank N: <its message>`. */
export class RankError extends Error {
  constructor(
    readonly rank: number,
    message: string,
    /** The stack inside the worker, when the rank threw. */
    readonly rankStack?: string,
  ) {
    super(`rank ${rank}: ${message}`);
    this.name = 'RankError';
  }
}

/** The compiled generic worker script, next to this file in dist/. */
const rankWorkerUrl = new URL('./rankWorker.js', import.meta.url);

/**
 * Starts `numRanks` workers that each run `entry(comm, payload, reportProgress)` and resolves with
 * their results in rank order. The first failure (a throw, `abort`, a crash) rejects with
 * `rank N: <message>` (a {@link UserError} when the rank threw one, else a {@link RankError}) after
 * every worker has stopped: each is asked to (its receives fail, so a rank blocked in one unwinds) and
 * terminated if it has not ended within EXIT_GRACE_MS, so no rank can hang the launch.
 */
export function launchInProcessRanks(options: LaunchInProcessOptions): Promise<unknown[]> {
  const { numRanks } = options;
  if (!Number.isSafeInteger(numRanks) || numRanks < 1) {
    return Promise.reject(new UserError(`numRanks must be an integer ≥ 1 (got ${numRanks})`));
  }
  return new Promise((resolve, reject) => {
    const workers: Worker[] = [];
    const results: unknown[] = new Array<unknown>(numRanks);
    const finished = new Array<boolean>(numRanks).fill(false);
    const progressDone = new Float64Array(numRanks);
    const progressTotal = new Float64Array(numRanks);
    let numFinished = 0;
    let settled = false;

    const settle = (outcome: () => void, stop: (worker: Worker) => Promise<unknown>): void => {
      if (settled) return;
      settled = true;
      // Stop every worker before settling: callers may rely on no rank thread being left.
      void Promise.allSettled(workers.map(stop)).then(outcome);
    };
    const fail = (error: Error): void => {
      if (settled) return;
      const stop: StopRequest = { kind: 'stop', reason: error.message };
      for (const worker of workers) worker.postMessage(stop);
      settle(() => reject(error), exitOrTerminate);
    };

    const onReport = (rank: number, report: WorkerReport): void => {
      if (settled) return;
      switch (report.kind) {
        case 'progress': {
          progressDone[rank] = report.done;
          progressTotal[rank] = report.total;
          options.onProgress?.(sum(progressDone), sum(progressTotal));
          return;
        }
        case 'result': {
          if (finished[rank]) return;
          finished[rank] = true;
          results[rank] = report.result;
          if (++numFinished === numRanks) settle(() => resolve(results), exitOrTerminate);
          return;
        }
        case 'error': {
          const message = `rank ${rank}: ${report.message}`;
          fail(report.name === 'UserError' ? new UserError(message) : new RankError(rank, report.message, report.stack));
          return;
        }
        case 'abort':
          fail(new RankError(rank, report.message));
          return;
      }
    };

    try {
      const meshPorts = createMesh(numRanks);
      const entryModuleUrl = String(options.entryModuleUrl);
      for (let rank = 0; rank < numRanks; rank++) {
        const ports = meshPorts[rank];
        const workerData: RankWorkerData = {
          rank,
          numRanks,
          ports,
          entryModuleUrl,
          entryExportName: options.entryExportName,
          payload: options.payload,
        };
        const transferList = ports.filter((port): port is MessagePort => port !== null);
        const worker = new Worker(rankWorkerUrl, { workerData, transferList });
        workers.push(worker);
        worker.on('message', (report: WorkerReport) => onReport(rank, report));
        worker.on('error', (error: Error) => fail(new RankError(rank, error.message, error.stack)));
        worker.on('exit', (code) => {
          if (!finished[rank]) fail(new RankError(rank, `worker exited with code ${code} before finishing`));
        });
      }
    } catch (error) {
      // E.g. a payload that cannot be cloned: stop the workers already started.
      fail(error instanceof Error ? error : new Error(String(error)));
    }
  });
}

/**
 * Each worker ends by itself once it has reported (it closes its ports), after a failure too once asked to stop.
 * Waiting for that rather than terminating matters for ranks holding native resources: terminating a thread while
 * a WebGPU (Dawn) device of its is open or still being torn down crashes the process (`FATAL ERROR:
 * Error::ThrowAsJavaScriptException`), as when one in-process GPU rank fails and the others stop. A thread still
 * running after EXIT_GRACE_MS is terminated.
 */
const EXIT_GRACE_MS = 5000;
function exitOrTerminate(worker: Worker): Promise<unknown> {
  // A thread that has ended already (its 'exit' may have been emitted before this) has nothing to wait for.
  if (worker.threadId === -1) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => void worker.terminate().then(resolve, resolve), EXIT_GRACE_MS);
    worker.once('exit', () => {
      clearTimeout(timer);
      resolve(undefined);
    });
  });
}

/** ports[r][s]: rank r's end of the channel between r and s (null on the diagonal). */
function createMesh(numRanks: number): Array<Array<MessagePort | null>> {
  const ports = Array.from({ length: numRanks }, () => new Array<MessagePort | null>(numRanks).fill(null));
  for (let a = 0; a < numRanks; a++) {
    for (let b = a + 1; b < numRanks; b++) {
      const channel = new MessageChannel();
      ports[a][b] = channel.port1;
      ports[b][a] = channel.port2;
    }
  }
  return ports;
}

function sum(values: Float64Array): number {
  let total = 0;
  for (const value of values) total += value;
  return total;
}
