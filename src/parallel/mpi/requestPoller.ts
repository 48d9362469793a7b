// Completes MPI requests and matches pending receives by polling from Node's event loop (never blocking it).
//
// Why polling and not a helper thread: MPI is initialized MPI_THREAD_FUNNELED (only the main thread may
// call it), and Open MPI advances non-blocking transfers only inside MPI calls, so the main thread's
// MPI_Test/MPI_Improbe calls are also what moves large messages along. A helper thread blocked in
// MPI_Wait would need MPI_THREAD_MULTIPLE and its slower locking paths.
import type { MessageArray } from '../communicator.js';
import { LeadingRun } from '../../core/orderedProgress.js';
import { KeyedChain } from '../keyedChain.js';
import type { CommHandle, MpiBinding, RequestId } from './mpiBinding.js';

/** Polls back to back while requests keep completing, then every millisecond (ranks may share cores). */
const BUSY_POLLS_BEFORE_BACKOFF = 32;
const BACKOFF_MS = 1;
/**
 * Requests moving at least this many bytes keep the poll loop busy until they complete: Open MPI moves a
 * large message a fragment per MPI call (e.g. 32 KiB through shared memory without single-copy support),
 * so at one poll a millisecond a 256 MiB vector block would take 8 s.
 */
const LARGE_TRANSFER_BYTES = 1 << 20;
/**
 * While large transfers are pending, each poll tests back to back inside the binding for up to this long: one
 * fragment per event-loop turn is far below memory speed, and the event loop still runs every half millisecond
 * for GPU completions and other ranks' messages.
 */
const LARGE_TRANSFER_SPIN_MICROSECONDS = 500;

/**
 * A point-to-point message travels as a header (its byte length, one Float64) and then its bytes in pieces of at
 * most this many bytes, all with the message's tag. Open MPI copies a large message inside the MPI call that
 * advances it, on the main thread: with single-copy (CMA) transfers a whole vector block would arrive in one call,
 * long enough for the GPU to run out of queued work. Pieces matched one per poll bound that stall to the copy of
 * one piece (a few milliseconds), and let a message exceed MPI's int count of 2 GiB.
 */
export const MESSAGE_PIECE_BYTES = 8 << 20;

interface PendingReceive {
  readonly comm: CommHandle;
  readonly source: number;
  readonly tag: number;
  /** Allocates the receive buffer once the message size is known (throws if the size does not fit). */
  readonly allocate: (byteLength: number) => MessageArray;
  /** Told of the array (byte 0) and of each longer run of arrived leading bytes (Communicator ReceiveOptions). */
  readonly progress?: (data: MessageArray, byteEnd: number) => void;
  readonly resolve: (data: MessageArray) => void;
  readonly reject: (error: Error) => void;
}

/**
 * Where a message's `byteLength` bytes go: the receive's array, or — when no array of that size could be made — one
 * piece's scratch bytes that take every piece anyway (they are on their way) before the receive fails with the
 * allocation's error. Pieces are viewed one at a time: V8 cannot view a message past 4 GiB as bytes in one array.
 */
type ReceiveTarget =
  | { readonly kind: 'array'; readonly byteLength: number; readonly data: MessageArray; readonly arrived: LeadingRun }
  | { readonly kind: 'discard'; readonly byteLength: number; readonly error: Error; readonly scratch: Uint8Array };

/** The receive at the head of its (comm, source, tag) queue, from its header on: its pieces are being matched. */
interface ActiveReceive {
  readonly entry: PendingReceive;
  readonly header: Float64Array;
  /** Set when the header has arrived: where the message's bytes go. */
  target: ReceiveTarget | null;
  matchedBytes: number;
  openPieces: number;
}

/** A send's two moments: all its parts handed to MPI, and all of them completed. */
export interface SendProgress {
  readonly posted: Promise<void>;
  readonly completed: Promise<void>;
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
  /** Per (comm, source, tag) key, the head receive whose header has been matched. */
  private readonly active = new Map<string, ActiveReceive>();
  /** Messages still being posted (a send with `ready`, or one behind it), in order per (comm, dest, tag) key. */
  private readonly posting = new KeyedChain();
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

  /**
   * Sends `data` to `dest` as a header and pieces (MESSAGE_PIECE_BYTES). `posted` resolves when every part has been
   * handed to MPI (rejects if `ready` does), `completed` when every part has completed (a failed `ready` leaves
   * nothing to complete). The parts of the messages to one (comm, dest, tag) are posted in send order, so those
   * messages arrive one after the other, in order. Without `ready` (and no earlier message of the key still
   * waiting) all parts are posted at once; with it, the header at once and each piece when `ready` says its bytes
   * are final.
   */
  send(comm: CommHandle, dest: number, tag: number, data: MessageArray, ready?: (byteEnd: number) => Promise<void>): SendProgress {
    const key = `${comm}|${dest}|${tag}`;
    const parts: Promise<void>[] = [];
    const postHeader = (): void => {
      parts.push(this.wait(this.binding.isend(comm, dest, tag, Float64Array.of(data.byteLength))));
    };
    const postPiece = (offset: number): void => {
      const end = Math.min(data.byteLength, offset + MESSAGE_PIECE_BYTES);
      parts.push(this.wait(this.binding.isend(comm, dest, tag, new Uint8Array(data.buffer, data.byteOffset + offset, end - offset)), end - offset));
    };
    if (!this.posting.isBusy(key) && ready === undefined) {
      postHeader();
      for (let offset = 0; offset < data.byteLength; offset += MESSAGE_PIECE_BYTES) postPiece(offset);
      return { posted: Promise.resolve(), completed: Promise.all(parts).then(() => undefined) };
    }
    // Later messages of the key wait for this one's parts to be posted, even if it failed (the job then ends anyway).
    const posted = this.posting.run(key, async () => {
      postHeader();
      for (let offset = 0; offset < data.byteLength; offset += MESSAGE_PIECE_BYTES) {
        await ready?.(Math.min(data.byteLength, offset + MESSAGE_PIECE_BYTES));
        postPiece(offset);
      }
    });
    return { posted, completed: posted.then(() => Promise.all(parts), () => Promise.all(parts)).then(() => undefined) };
  }

  /**
   * Receives the next message (header and pieces, see send) from (source, tag) of `comm` into an array made by
   * `allocate`; `progress` is called once the array is made (byte 0) and whenever the run of arrived leading pieces
   * grows (pieces may complete out of order), the last time with the whole length just before the receive resolves.
   */
  receive<T extends MessageArray>(
    comm: CommHandle, source: number, tag: number, allocate: (byteLength: number) => T, progress?: (data: T, byteEnd: number) => void,
  ): Promise<T> {
    return new Promise((resolve, reject) => {
      const key = `${comm}|${source}|${tag}`;
      // The array passed on is the one `allocate` made: a T.
      const entry: PendingReceive = {
        comm, source, tag, allocate, reject,
        progress: progress === undefined ? undefined : (data, byteEnd) => progress(data as T, byteEnd),
        resolve: (data) => resolve(data as T),
      };
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
    await this.posting.idle();
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

  /**
   * Matches the messages of the oldest receive of each key, in order: its header (MPI_Improbe, MPI_Imrecv), then,
   * once the header has arrived, its pieces straight into their places in the receive's array, one per poll. The
   * next receive of a key is matched only after every piece of the one before it.
   */
  private matchReceives(): boolean {
    let progressed = false;
    for (const [key, queue] of this.receives) {
      while (queue.length > 0) {
        const head = queue[0];
        let active = this.active.get(key);
        if (active === undefined) {
          const matched = this.binding.improbe(head.comm, head.source, head.tag);
          if (matched === null) break;
          progressed = true;
          if (matched.byteLength !== 8) {
            throw new Error(`MPI message from ${head.source} tag ${head.tag}: a header of ${matched.byteLength} bytes, expected 8 (a sender outside this protocol?)`);
          }
          const started: ActiveReceive = { entry: head, header: new Float64Array(1), target: null, matchedBytes: 0, openPieces: 0 };
          active = started;
          this.active.set(key, started);
          const id = this.binding.imrecv(matched.messageId, started.header);
          this.addWaiter(id, { resolve: () => this.headerArrived(started), reject: head.reject, byteLength: 0 });
        }
        const { target } = active;
        if (target === null) break;
        // One piece per key and poll: with single-copy (CMA) transfers Open MPI copies a matched piece inside these
        // calls, so the event loop (GPU submits and completions) runs between pieces, not after the whole message.
        if (active.matchedBytes < target.byteLength) {
          const matched = this.binding.improbe(head.comm, head.source, head.tag);
          if (matched === null) break;
          progressed = true;
          const length = Math.min(MESSAGE_PIECE_BYTES, target.byteLength - active.matchedBytes);
          if (matched.byteLength !== length) {
            throw new Error(`MPI message from ${head.source} tag ${head.tag}: a piece of ${matched.byteLength} bytes at byte ${active.matchedBytes} of ${target.byteLength}, expected ${length}`);
          }
          const pieceIndex = active.matchedBytes / MESSAGE_PIECE_BYTES;
          const piece = target.kind === 'array'
            ? new Uint8Array(target.data.buffer, target.data.byteOffset + active.matchedBytes, length)
            : target.scratch.subarray(0, length);
          active.matchedBytes += length;
          active.openPieces++;
          const receiving = active;
          const id = this.binding.imrecv(matched.messageId, piece);
          this.addWaiter(id, {
            resolve: () => {
              receiving.openPieces--;
              this.pieceArrived(receiving, pieceIndex);
              this.finishIfComplete(receiving);
            },
            reject: head.reject,
            byteLength: length,
          });
        }
        if (active.matchedBytes < target.byteLength) break;
        queue.shift();
        this.active.delete(key);
        this.finishIfComplete(active);
      }
      if (queue.length === 0) this.receives.delete(key);
    }
    return progressed;
  }

  /** The header of `receiving` has arrived: allocates its array (a size that does not fit is received, then rejected). */
  private headerArrived(receiving: ActiveReceive): void {
    const byteLength = receiving.header[0];
    let data: MessageArray;
    try {
      data = receiving.entry.allocate(byteLength);
    } catch (error) {
      // Its pieces are on their way to this rank: receive their bytes so MPI stays consistent.
      receiving.target = {
        kind: 'discard', byteLength, error: error instanceof Error ? error : new Error(String(error)),
        scratch: new Uint8Array(Math.min(byteLength, MESSAGE_PIECE_BYTES)),
      };
      return;
    }
    const arrived = new LeadingRun(Math.ceil(byteLength / MESSAGE_PIECE_BYTES));
    receiving.target = { kind: 'array', byteLength, data, arrived };
    receiving.entry.progress?.(data, 0);
  }

  /** Piece `pieceIndex` of `receiving` has arrived: tells `progress` if the leading arrived bytes grew. */
  private pieceArrived(receiving: ActiveReceive, pieceIndex: number): void {
    const { target } = receiving;
    if (target?.kind !== 'array') return;
    const before = target.arrived.leading;
    const after = target.arrived.markDone(pieceIndex);
    if (after > before) receiving.entry.progress?.(target.data, Math.min(target.byteLength, after * MESSAGE_PIECE_BYTES));
  }

  /** Resolves (or rejects) `receiving` once every piece has been matched and has arrived. */
  private finishIfComplete(receiving: ActiveReceive): void {
    const { target } = receiving;
    if (target === null || receiving.matchedBytes < target.byteLength || receiving.openPieces > 0) return;
    if (target.kind === 'array') receiving.entry.resolve(target.data);
    else receiving.entry.reject(target.error);
  }

  /** An MPI error is fatal to the job: every waiting operation fails with it. */
  private failAll(error: Error): void {
    for (const waiter of this.waiters.values()) waiter.reject(error);
    this.waiters.clear();
    this.numLargeTransfers = 0;
    for (const queue of this.receives.values()) for (const entry of queue) entry.reject(error);
    this.receives.clear();
    this.active.clear();
  }
}
