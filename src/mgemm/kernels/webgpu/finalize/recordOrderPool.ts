// Puts 3-way device-finalize records in key order and file layout off the main thread. The sort is linear but
// costs tens of nanoseconds a record in JavaScript; on the main thread it would hold up the GPU's next request.
// In worker threads it overlaps the main thread's writing of the previous request's records and the sorts of
// other requests in flight. Tiny requests are ordered in place (posting them would cost more).
import { Worker } from 'node:worker_threads';
import { decodeLargeViews, encodeLargeViews } from '../../../../core/largeViews.js';
import { orderedTripleRecords, type TripleSliceCoordinates } from './recordOrder.js';

/** The compiled worker entry, next to this file in dist/. */
const RECORD_ORDER_WORKER_URL = new URL('./recordOrderWorker.js', import.meta.url);
/**
 * Records below which the main thread orders them itself: ~0.1 ms of work, about what posting it costs. Larger
 * requests go to the workers even when small: a 3-way run makes many of them, and their ordering and file layout
 * add up on the main thread.
 */
const MIN_RECORDS_FOR_WORKER = 1 << 12;
/** Worker threads at most: requests in flight are few (two finalize scratch sets per kernel set). */
const MAX_WORKERS = 2;

export interface RecordOrderJob {
  readonly id: number;
  /** Records (value bits, key) to order; this buffer is the job's own (transferred). */
  readonly words: Uint32Array;
  readonly count: number;
  readonly slices: readonly TripleSliceCoordinates[];
}

export type RecordOrderReply = { readonly id: number; readonly words: Uint32Array } | { readonly id: number; readonly error: string };

interface Waiting {
  readonly resolve: (words: Uint32Array) => void;
  readonly reject: (error: Error) => void;
}

/** A few worker threads, started on first use, unref'd while idle so they never keep the process alive. */
export class RecordOrderPool {
  private readonly workers: Worker[] = [];
  /** Jobs each worker has been given and not answered, by worker. */
  private readonly load = new Map<Worker, number>();
  private readonly waiting = new Map<number, Waiting>();
  private nextId = 0;

  /**
   * The first `count` records of `words` in key order and file layout (orderedTripleRecords). `words` is given away:
   * it must not be used after (its buffer is handed to a worker when it holds just them).
   */
  order(words: Uint32Array, count: number, slices: readonly TripleSliceCoordinates[]): Promise<Uint32Array> {
    if (count < MIN_RECORDS_FOR_WORKER) return Promise.resolve(orderedTripleRecords(words, count, slices));
    const worker = this.leastLoaded();
    const id = this.nextId++;
    // The read-back array is usually exactly the records: handed over without a copy, which would cost the main
    // thread a pass over every record.
    const whole = words.byteOffset === 0 && words.buffer instanceof ArrayBuffer && words.buffer.byteLength === 8 * count;
    const own = whole ? words : words.slice(0, 2 * count);
    return new Promise<Uint32Array>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.setLoad(worker, 1);
      const job: RecordOrderJob = { id, words: own, count, slices };
      worker.postMessage(encodeLargeViews(job), [own.buffer as ArrayBuffer]);
    });
  }

  /** Ends the workers; jobs still waiting fail. */
  async close(): Promise<void> {
    const workers = this.workers.splice(0);
    await Promise.all(workers.map((worker) => worker.terminate()));
    this.failAll(new Error('record ordering pool closed'));
  }

  private leastLoaded(): Worker {
    const idle = this.workers.find((worker) => (this.load.get(worker) ?? 0) === 0);
    if (idle !== undefined) return idle;
    if (this.workers.length < MAX_WORKERS) return this.started();
    return this.workers.reduce((best, worker) => ((this.load.get(worker) ?? 0) < (this.load.get(best) ?? 0) ? worker : best));
  }

  private started(): Worker {
    const worker = new Worker(RECORD_ORDER_WORKER_URL);
    worker.unref();
    worker.on('message', (posted: unknown) => {
      const reply = decodeLargeViews<RecordOrderReply>(posted);
      this.setLoad(worker, -1);
      const waiting = this.waiting.get(reply.id);
      this.waiting.delete(reply.id);
      if (waiting === undefined) return;
      if ('error' in reply) waiting.reject(new Error(`ordering records: ${reply.error}`));
      else waiting.resolve(reply.words);
    });
    worker.on('error', (error: Error) => this.failAll(error));
    this.workers.push(worker);
    this.load.set(worker, 0);
    return worker;
  }

  /** Ref'd while it has jobs, so that awaiting one keeps the process alive. */
  private setLoad(worker: Worker, change: number): void {
    const load = (this.load.get(worker) ?? 0) + change;
    this.load.set(worker, load);
    if (load > 0) worker.ref();
    else worker.unref();
  }

  private failAll(error: Error): void {
    for (const waiting of this.waiting.values()) waiting.reject(error);
    this.waiting.clear();
  }
}
