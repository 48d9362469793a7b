// The Communicator of a rank that is its own process under mpirun/srun: point-to-point and collectives over MPI.
import { writeSync } from 'node:fs';
import {
  arrayKindName, checkPeerRank, checkSendOptions, checkSplitArguments, checkUint32Sums, checkUserTag, isSameKind,
} from '../collectiveCommunicator.js';
import type { Communicator, MessageArray, ReceiveOptions, SendOptions } from '../communicator.js';
import type { CommHandle, MpiBinding } from './mpiBinding.js';
import { mapPages, PREFAULT_MIN_BYTES, PREFAULT_THREADS } from './pagePrefault.js';
import type { RequestPoller } from './requestPoller.js';

/** What every communicator of the process shares: the binding, the poll loop, the job's exit. */
export interface MpiContext {
  readonly binding: MpiBinding;
  readonly poller: RequestPoller;
  readonly worldRank: number;
  /** Largest tag MPI accepts (MPI_TAG_UB). */
  readonly tagUpperBound: number;
}

/**
 * Implements the Communicator contract as the in-process communicator does: sends copy their data (the
 * caller may reuse it at once), receives of one (source, tag) match in call order, collectives are
 * called by every rank in the same order, and sums of integer-valued doubles are exact. Collectives
 * are MPI's non-blocking ones (MPI_Iallreduce, MPI_Ibcast, MPI_Ibarrier): the event loop stays free.
 *
 * Point-to-point messages travel as a header and pieces (requestPoller.ts MESSAGE_PIECE_BYTES), so large ones
 * neither stall the main thread in one long copy nor hit MPI's 2 GiB count limit.
 *
 * Differences that only a wrong program sees: MPI messages carry bytes, not an element kind, so a
 * receive takes its kind from `like` (a byte count that is not a whole number of elements fails).
 */
export class MpiCommunicator implements Communicator {
  readonly rank: number;
  readonly size: number;

  constructor(private readonly context: MpiContext, private readonly handle: CommHandle) {
    this.rank = context.binding.commRank(handle);
    this.size = context.binding.commSize(handle);
  }

  /**
   * Resolves as soon as MPI holds a private copy of `data` (as the in-process send does), not when the
   * transfer completes: a large message completes only once its receive is posted, so awaiting that
   * would deadlock ranks that send to each other before receiving. The transfer goes on in the poll loop;
   * should it fail, the rejection is unhandled and ends the job (the CLI aborts on it). With `ready`, each piece
   * goes as soon as its bytes are final, and the send resolves once the last has gone (rejects if `ready` does).
   */
  async send(dest: number, tag: number, data: MessageArray, options?: SendOptions): Promise<void> {
    checkPeerRank('send', dest, this.size);
    this.checkTag('send', tag);
    checkSendOptions(options);
    // A private copy unless the caller never changes `data`; the binding keeps the array alive until the send completes.
    const sent = options?.immutable === true ? data : data.slice();
    const { posted, completed } = this.context.poller.send(this.handle, dest, tag, sent, options?.ready);
    void completed;
    await posted;
  }

  /** Arrays set up by prepareReceive, per (source, tag), for the next receive of the key. */
  private readonly prepared = new Map<string, PreparedReceive>();

  /** A large shared array is allocated now and its pages mapped by helper threads (pagePrefault.ts) before recv matches into it. */
  prepareReceive(source: number, tag: number, like: MessageArray, length: number): void {
    checkPeerRank('prepareReceive', source, this.size);
    this.checkTag('prepareReceive', tag);
    const byteLength = length * like.BYTES_PER_ELEMENT;
    if (!(like.buffer instanceof SharedArrayBuffer) || byteLength < PREFAULT_MIN_BYTES) return;
    const array = allocateLike(like, length);
    this.prepared.set(`${source}|${tag}`, { array, mapped: mapPages(array.buffer as SharedArrayBuffer, PREFAULT_THREADS) });
  }

  /**
   * The array prepareReceive set up for (source, tag), once its pages are mapped (the helpers write zeros, so
   * matching must not start before); null when there is none of `like`'s kind or its helpers failed.
   */
  private async takePrepared(source: number, tag: number, like: MessageArray): Promise<MessageArray | null> {
    const key = `${source}|${tag}`;
    const prepared = this.prepared.get(key);
    this.prepared.delete(key);
    if (prepared === undefined || !isSameKind(prepared.array, like)) return null;
    return prepared.mapped.then(() => prepared.array, () => null);
  }

  /** `progress` is called when the header has come (byte 0) and as the pieces arrive (requestPoller.ts). */
  async recv<T extends MessageArray>(source: number, tag: number, like: T, options?: ReceiveOptions<T>): Promise<T> {
    checkPeerRank('recv', source, this.size);
    this.checkTag('recv', tag);
    const ready = await this.takePrepared(source, tag, like);
    const allocate = (byteLength: number): T => {
      if (byteLength % like.BYTES_PER_ELEMENT !== 0) {
        throw new Error(`recv from ${source} tag ${tag}: ${byteLength} bytes are not a whole number of ${arrayKindName(like)} elements`);
      }
      return ready !== null && ready.byteLength === byteLength ? ready as T : allocateLike(like, byteLength / like.BYTES_PER_ELEMENT);
    };
    return this.context.poller.receive(this.handle, source, tag, allocate, options?.progress);
  }

  async allReduceSum<T extends Uint32Array | Float64Array>(data: T): Promise<T> {
    if (data instanceof Float64Array) {
      const sum = data.slice();
      await this.context.poller.wait(this.context.binding.iallreduceSum(this.handle, sum));
      return sum as T;
    }
    // Uint32 sums are taken as doubles (exact: size · 2^32 < 2^53) so that overflow is caught, not wrapped.
    const wide = Float64Array.from(data);
    await this.context.poller.wait(this.context.binding.iallreduceSum(this.handle, wide));
    checkUint32Sums(wide);
    return Uint32Array.from(wide) as T;
  }

  async broadcast<T extends MessageArray>(root: number, data: T): Promise<T> {
    checkPeerRank('broadcast', root, this.size);
    // The length first: ranks other than the root learn the size of the root's array.
    const length = Float64Array.of(this.rank === root ? data.length : 0);
    await this.context.poller.wait(this.context.binding.ibcast(this.handle, root, length));
    const result = this.rank === root ? data.slice() as T : allocateLike(data, length[0]);
    await this.context.poller.wait(this.context.binding.ibcast(this.handle, root, result));
    return result;
  }

  async barrier(): Promise<void> {
    await this.context.poller.wait(this.context.binding.ibarrier(this.handle));
  }

  /**
   * MPI_Comm_split semantics. The (color, key) table is all-reduced first, without blocking; once every
   * rank has contributed, all of them call the blocking MPI_Comm_split with compact values (color: the
   * lowest rank of the color; key: the position in (key, rank) order), which fit MPI's C ints.
   */
  async split(color: number, key: number): Promise<Communicator> {
    checkSplitArguments(color, key);
    const table = new Float64Array(2 * this.size);
    table[2 * this.rank] = color;
    table[2 * this.rank + 1] = key;
    const colorKeys = await this.allReduceSum(table);
    const members: number[] = [];
    for (let rank = 0; rank < this.size; rank++) {
      if (colorKeys[2 * rank] === color) members.push(rank);
    }
    members.sort((a, b) => colorKeys[2 * a + 1] - colorKeys[2 * b + 1] || a - b);
    const lowestRank = members.reduce((a, b) => Math.min(a, b));
    const handle = this.context.binding.commSplit(this.handle, lowestRank, members.indexOf(this.rank));
    return new MpiCommunicator(this.context, handle);
  }

  /** Prints `snptally: rank <world rank>: <message>` once, then MPI_Abort ends every rank of the job. */
  abort(message: string): never {
    return abortJob(this.context.binding, `snptally: rank ${this.context.worldRank}: ${message}`, 2);
  }

  private checkTag(operation: string, tag: number): void {
    checkUserTag(operation, tag);
    if (tag > this.context.tagUpperBound) {
      throw new Error(`${operation}: tag ${tag} exceeds MPI_TAG_UB ${this.context.tagUpperBound}`);
    }
  }
}

/** Writes `line` to stderr (synchronously, before the process is killed), then MPI_Abort(errorCode). */
export function abortJob(binding: MpiBinding, line: string, errorCode: number): never {
  writeSync(2, `${line}\n`);
  binding.abort(errorCode);
  // MPI_Abort does not return; should it, the process still ends with the code.
  process.exit(errorCode);
}

/** An array set up for a coming receive, and when its pages are mapped (rejects if a helper failed). */
interface PreparedReceive {
  readonly array: MessageArray;
  readonly mapped: Promise<void>;
}

/** A zeroed array of the same kind as `like`, in shared memory when `like` is (e.g. vector blocks for worker threads). */
function allocateLike<T extends MessageArray>(like: T, length: number): T {
  const buffer = like.buffer instanceof SharedArrayBuffer ? new SharedArrayBuffer(length * like.BYTES_PER_ELEMENT) : new ArrayBuffer(length * like.BYTES_PER_ELEMENT);
  if (like instanceof Uint32Array) return new Uint32Array(buffer) as T;
  if (like instanceof Float64Array) return new Float64Array(buffer) as T;
  return new Uint8Array(buffer) as T;
}
