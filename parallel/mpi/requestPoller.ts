// Completes MPI requests and matches pending receives by polling from Node's event loop (never blocking it).
//
// Why polling and not a helper thread: MPI is initialized MPI_THREAD_FUNNELED (only the main thread may
// call it), and Open MPI advances non-blocking transfers only inside MPI calls, so the main thread's
// MPI_Test/MPI_Improbe calls are also what moves large messages along. A helper thread blocked in
// MPI_Wait would need MPI_THREAD_MULTIPLE and its slower locking paths.
import type { MessageArray } from '../communicator.js';
import type { CommHandle, MpiBinding, RequestId } from './mpiBinding.js';

/** Polls back to back while requests keep completing, then every millisecond (ranks may share cores). */
const BUSY_POLLS_BEFORE_BACKOFF = 32;
const BACKOFF_MS = 1;
/**
 * Requests moving at least this many bytes keep the poll loop busy until they complete: Open MPI moves a
 * large message a fragment per MPI call (e.g. 32 KiB through shared memory without single-copy support),
 * so polling it once a millisecond stretched a 256 MiB vector block to seconds on the GPU host.
 */
const LARGE_TRANSFER_BYTES = 1 << 20;
/**
 * While large transfers are pending, each poll tests back to back inside the binding for up to this long
 * (one event-loop turn per fragment moved a 362 MiB block at 0.35 GB/s; the event loop still runs every
 * half millisecond for GPU completions and other ranks' messages).
 */
const LARGE_TRANSFER_SPIN_MICROSECONDS = 500;

interface PendingReceive {
  readonly comm: CommHandle;
  readonly source: number;
  readonly tag: number;
  /** Allocates the receive buffer once the message size is known (throws if the size does not fit). */
  readonly allocate: (byteLength: number) => MessageArray;
  readonly resolve: (data: MessageArray) => void;
  readonly reject: (error: Error) => void;
}

interface Waiter {
  readonly resolve: () => void;
  readonly reject: (error: Error) => void;
  /** Bytes the request moves (0 when not known or small). */
  readonly byteLength: number;
}

/** One per process: owns the poll loop over every pending request and receive. */
export class RequestPoller {
  private readonly waiters = new Map<RequestId, Waiter>();
  /** Receives not yet matched, FIFO per (comm, source, tag): MPI matches in posting order. */
  private readonly receives = new Map<string, PendingReceive[]>();
  private scheduled = false;
  private idlePolls = 0;
  /** Pending requests of at least LARGE_TRANSFER_BYTES. */
  private numLargeTransfers = 0;

  constructor(private readonly binding: MpiBinding) {}

  /** Resolves when request `id`, which moves `byteLength` bytes (0: small or not a transfer), completes. */
  wait(id: RequestId, byteLength = 0): Promise<void> {
    return new Promise((resolve, reject) => {
      this.addWaiter(id, { resolve, reject, byteLength });
      this.schedule();
    });
  }

  private addWaiter(id: RequestId, waiter: Waiter): void {
    this.waiters.set(id, waiter);
    if (waiter.byteLength >= LARGE_TRANSFER_BYTES) this.numLargeTransfers++;
  }

  private removeWaiter(id: RequestId, waiter: Waiter): void {
    this.waiters.delete(id);
    if (waiter.byteLength >= LARGE_TRANSFER_BYTES) this.numLargeTransfers--;
  }

  /** Receives the next message from (source, tag) of `comm` into an array made by `allocate`. */
  receive(comm: CommHandle, source: number, tag: number, allocate: (byteLength: number) => MessageArray): Promise<MessageArray> {
    return new Promise((resolve, reject) => {
      const key = `${comm}|${source}|${tag}`;
      const entry: PendingReceive = { comm, source, tag, allocate, resolve, reject };
      const queue = this.receives.get(key);
      if (queue === undefined) this.receives.set(key, [entry]);
      else queue.push(entry);
      this.schedule();
    });
  }

  /**
   * Resolves once every request has completed (sends not awaited by their callers, e.g. the block
   * exchange's, may still be in flight when a rank finishes). A receive that was never matched is a bug.
   */
  async settle(): Promise<void> {
    if (this.receives.size > 0) throw new Error(`${this.numPending} MPI receives were never matched`);
    await Promise.all([...this.waiters.keys()].map((id) => new Promise<void>((resolve, reject) => {
      const waiter = this.waiters.get(id);
      if (waiter === undefined) return resolve();
      this.waiters.set(id, {
        resolve: () => { waiter.resolve(); resolve(); },
        reject: (error) => { waiter.reject(error); reject(error); },
        byteLength: waiter.byteLength,
      });
    })));
  }

  /** Requests and receives still pending (0 before MPI_Finalize). */
  get numPending(): number {
    let count = this.waiters.size;
    for (const queue of this.receives.values()) count += queue.length;
    return count;
  }

  private schedule(): void {
    if (this.scheduled || this.numPending === 0) return;
    this.scheduled = true;
    const poll = (): void => {
      this.scheduled = false;
      this.poll();
    };
    if (this.idlePolls < BUSY_POLLS_BEFORE_BACKOFF || this.numLargeTransfers > 0) setImmediate(poll);
    else setTimeout(poll, BACKOFF_MS);
  }

  private poll(): void {
    let progressed = false;
    try {
      progressed = this.matchReceives();
      for (const id of this.binding.testRequests(this.numLargeTransfers > 0 ? LARGE_TRANSFER_SPIN_MICROSECONDS : 0)) {
        const waiter = this.waiters.get(id);
        if (waiter === undefined) continue;
        this.removeWaiter(id, waiter);
        waiter.resolve();
        progressed = true;
      }
    } catch (error) {
      this.failAll(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    this.idlePolls = progressed ? 0 : this.idlePolls + 1;
    this.schedule();
  }

  /** Probes for the oldest receive of each key; a matched message is received with MPI_Imrecv. */
  private matchReceives(): boolean {
    let progressed = false;
    for (const [key, queue] of this.receives) {
      while (queue.length > 0) {
        const head = queue[0];
        const matched = this.binding.improbe(head.comm, head.source, head.tag);
        if (matched === null) break;
        queue.shift();
        progressed = true;
        let data: MessageArray;
        try {
          data = head.allocate(matched.byteLength);
        } catch (error) {
          // The message is matched to this rank already: receive its bytes so MPI stays consistent.
          const bytes = new Uint8Array(matched.byteLength);
          const id = this.binding.imrecv(matched.messageId, bytes);
          this.addWaiter(id, { resolve: () => head.reject(error as Error), reject: head.reject, byteLength: matched.byteLength });
          continue;
        }
        const id = this.binding.imrecv(matched.messageId, data);
        this.addWaiter(id, { resolve: () => head.resolve(data), reject: head.reject, byteLength: matched.byteLength });
      }
      if (queue.length === 0) this.receives.delete(key);
    }
    return progressed;
  }

  /** An MPI error is fatal to the job: every waiting operation fails with it. */
  private failAll(error: Error): void {
    for (const waiter of this.waiters.values()) waiter.reject(error);
    this.waiters.clear();
    this.numLargeTransfers = 0;
    for (const queue of this.receives.values()) for (const entry of queue) entry.reject(error);
    this.receives.clear();
  }
}
