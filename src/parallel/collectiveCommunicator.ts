// Collectives written once on top of point-to-point, shared by every communicator implementation.
import type { Communicator, MessageArray, ReceiveOptions, SendOptions } from './communicator.js';
import { KeyedChain } from './keyedChain.js';

/** Largest value a Uint32Array element can hold. */
const UINT32_MAX = 0xffff_ffff;

/** Which kind of typed array a message is, for checks and error messages. */
export function arrayKindName(data: MessageArray): 'Uint8Array' | 'Uint32Array' | 'Float64Array' {
  if (data instanceof Uint32Array) return 'Uint32Array';
  if (data instanceof Float64Array) return 'Float64Array';
  return 'Uint8Array';
}

export function isSameKind<T extends MessageArray>(data: MessageArray, like: T): data is T {
  return arrayKindName(data) === arrayKindName(like);
}

/** A copy of `data` in shared memory, of the same element type. */
function sharedCopy<T extends MessageArray>(data: T): T {
  const copy = new (data.constructor as new (buffer: SharedArrayBuffer) => T)(new SharedArrayBuffer(data.byteLength));
  copy.set(data);
  return copy;
}

/** A fresh copy with the same element type (slice keeps the type; TS only knows the union). */
function copyArray<T extends MessageArray>(data: T): T {
  return data.slice() as T;
}

/**
 * Base of every communicator: subclasses move bytes (`sendMessage`, `receiveMessage`) and make
 * sub-communicators; this class validates point-to-point calls and implements the collectives.
 *
 * Collectives follow MPI rules: every rank of the communicator calls the same collectives in the
 * same order. Each call takes the next negative tag (user tags are ≥ 0), so a collective never
 * matches another collective's or a user's messages, even when calls overlap. Collectives are
 * root-based and linear (gather to rank 0 in rank order, then send the result to each rank): in-process
 * ranks are few, and a fixed summation order makes sums identical on every rank and every run.
 */
export abstract class CollectiveCommunicator implements Communicator {
  abstract readonly rank: number;
  abstract readonly size: number;
  private collectiveCount = 0;
  private splitCount = 0;

  /** Moves a copy of `data` to `dest` (a rank of this communicator); `tag` may be negative (internal). */
  protected abstract sendMessage(dest: number, tag: number, data: MessageArray): Promise<void>;
  /** The next message from `source` with `tag`, matched in the order receives are called. */
  protected abstract receiveMessage(source: number, tag: number): Promise<MessageArray>;
  /**
   * A communicator over `members` (ranks of this one, in their new order), where this rank is
   * `newRank`; `splitId` is the same on every member and distinct for every split of this communicator.
   */
  protected abstract createSubCommunicator(members: readonly number[], newRank: number, splitId: string): Communicator;

  abstract abort(message: string): never;

  /**
   * Async so that bad arguments reject; the copy of `data` is still taken before the first await. A send with
   * `ready` goes once all of `data` is final (one message between threads: nothing to gain by pieces); later sends
   * to the same (dest, tag) wait for it, so messages of a key still arrive in send order.
   */
  async send(dest: number, tag: number, data: MessageArray, options?: SendOptions): Promise<void> {
    this.checkPeer('send', dest);
    checkUserTag('send', tag);
    checkSendOptions(options);
    const key = `${dest}|${tag}`;
    if (!this.waitingSends.isBusy(key) && options?.ready === undefined) {
      await this.sendMessage(dest, tag, data);
      return;
    }
    const own = options?.immutable === true ? data : data.slice();
    await this.waitingSends.run(key, async () => {
      await options?.ready?.(own.byteLength);
      await this.sendMessage(dest, tag, own);
    });
  }

  /** Sends that wait (for `ready`, or behind one that does), in order per (dest, tag). */
  private readonly waitingSends = new KeyedChain();

  /** Messages between threads of one process arrive in memory that exists already: nothing to prepare. */
  prepareReceive(): void {}

  /** A message between threads arrives whole: `progress` is called once, with its whole length. */
  async recv<T extends MessageArray>(source: number, tag: number, like: T, options?: ReceiveOptions<T>): Promise<T> {
    this.checkPeer('recv', source);
    checkUserTag('recv', tag);
    const received = expectKind(await this.receiveMessage(source, tag), like, `recv from ${source} tag ${tag}`);
    // Transports move copies in ordinary memory; a receive like a shared array is given shared memory.
    const data = like.buffer instanceof SharedArrayBuffer && !(received.buffer instanceof SharedArrayBuffer) ? sharedCopy(received) : received;
    options?.progress?.(data, data.byteLength);
    return data;
  }

  /**
   * Rank 0 sums and sends every rank the outcome: the Float64 totals, or — when the sum is invalid (a
   * Uint32 sum overflows, lengths differ) — the error message as UTF-8 bytes, so that every rank throws
   * the same error instead of the others waiting for a result that never comes.
   */
  async allReduceSum<T extends Uint32Array | Float64Array>(data: T): Promise<T> {
    const tag = this.nextCollectiveTag();
    let outcome: Float64Array | Uint8Array;
    if (this.rank !== 0) {
      const result = this.receiveMessage(0, tag);
      await this.sendMessage(0, tag, data);
      const received = await result;
      if (received instanceof Uint32Array) throw new Error('allReduceSum result: got a Uint32Array, expected a Float64Array or a message');
      outcome = received;
    } else {
      const parts = await this.receiveFromOthers(tag);
      outcome = sumInRankOrder(data, parts);
      await this.sendToOthers(tag, outcome);
    }
    if (outcome instanceof Uint8Array) throw new Error(new TextDecoder().decode(outcome));
    if (outcome.length !== data.length) throw new Error(`allReduceSum: result length ${outcome.length} differs from ${data.length}`);
    const result = copyArray(data);
    result.set(outcome);
    return result;
  }

  async broadcast<T extends MessageArray>(root: number, data: T): Promise<T> {
    this.checkPeer('broadcast', root);
    const tag = this.nextCollectiveTag();
    if (this.rank !== root) return expectKind(await this.receiveMessage(root, tag), data, `broadcast from ${root}`);
    const copy = copyArray(data);
    const sends: Promise<void>[] = [];
    for (let dest = 0; dest < this.size; dest++) {
      if (dest !== root) sends.push(this.sendMessage(dest, tag, data));
    }
    await Promise.all(sends);
    return copy;
  }

  async barrier(): Promise<void> {
    const tag = this.nextCollectiveTag();
    const token = new Uint8Array(0);
    if (this.rank !== 0) {
      const release = this.receiveMessage(0, tag);
      await this.sendMessage(0, tag, token);
      await release;
      return;
    }
    await this.receiveFromOthers(tag);
    await this.sendToOthers(tag, token);
  }

  async split(color: number, key: number): Promise<Communicator> {
    checkSplitArguments(color, key);
    const splitId = `${this.splitCount++}:${color}`;
    const colorKeys = await this.allGatherPair(color, key);
    const members: number[] = [];
    for (let rank = 0; rank < this.size; rank++) {
      if (colorKeys[2 * rank] === color) members.push(rank);
    }
    // MPI_Comm_split: order by key, ties broken by the rank in the parent communicator.
    members.sort((a, b) => colorKeys[2 * a + 1] - colorKeys[2 * b + 1] || a - b);
    return this.createSubCommunicator(members, members.indexOf(this.rank), splitId);
  }

  /** [value0, value1] of every rank, rank-major, on every rank. */
  private async allGatherPair(value0: number, value1: number): Promise<Float64Array> {
    const tag = this.nextCollectiveTag();
    const mine = Float64Array.of(value0, value1);
    if (this.rank !== 0) {
      const table = this.receiveMessage(0, tag);
      await this.sendMessage(0, tag, mine);
      return expectKind(await table, mine, 'split table');
    }
    const parts = await this.receiveFromOthers(tag);
    const table = new Float64Array(2 * this.size);
    table.set(mine, 0);
    parts.forEach((part, idx) => table.set(expectKind(part, mine, 'split entry'), 2 * (idx + 1)));
    await this.sendToOthers(tag, table);
    return table;
  }

  /** Root side of a gather: one message from each rank 1..size−1, receives registered at once. */
  private receiveFromOthers(tag: number): Promise<MessageArray[]> {
    const receives: Promise<MessageArray>[] = [];
    for (let source = 1; source < this.size; source++) receives.push(this.receiveMessage(source, tag));
    return Promise.all(receives);
  }

  private async sendToOthers(tag: number, data: MessageArray): Promise<void> {
    const sends: Promise<void>[] = [];
    for (let dest = 1; dest < this.size; dest++) sends.push(this.sendMessage(dest, tag, data));
    await Promise.all(sends);
  }

  private nextCollectiveTag(): number {
    return -1 - this.collectiveCount++;
  }

  private checkPeer(operation: string, peer: number): void {
    checkPeerRank(operation, peer, this.size);
  }
}

/**
 * Root's side of allReduceSum: the element-wise totals of `own` (rank 0's data) and `parts` (ranks
 * 1..size−1), or the UTF-8 message of why there are none. Summing in a Float64Array in rank order is
 * exact for Uint32 inputs (size·2^32 < 2^53) and for integer-valued doubles below 2^53; the order is
 * fixed, so non-integer sums are reproducible too.
 */
function sumInRankOrder(own: Uint32Array | Float64Array, parts: readonly MessageArray[]): Float64Array | Uint8Array {
  try {
    const total = Float64Array.from(own);
    for (const part of parts) {
      const values = expectKind(part, own, 'allReduceSum contribution');
      if (values.length !== total.length) {
        throw new Error(`allReduceSum: length ${values.length} differs from root's ${total.length}`);
      }
      for (let idx = 0; idx < total.length; idx++) total[idx] += values[idx];
    }
    if (own instanceof Uint32Array) checkUint32Sums(total);
    return total;
  } catch (error) {
    return new TextEncoder().encode(error instanceof Error ? error.message : String(error));
  }
}

/** Argument checks shared with communicators that implement the collectives natively (MPI). */
export function checkPeerRank(operation: string, peer: number, size: number): void {
  if (!Number.isInteger(peer) || peer < 0 || peer >= size) {
    throw new Error(`${operation}: rank ${peer} is outside 0..${size - 1}`);
  }
}

export function checkSplitArguments(color: number, key: number): void {
  if (!Number.isSafeInteger(color) || color < 0) throw new Error(`split: color must be an integer ≥ 0 (got ${color})`);
  if (!Number.isSafeInteger(key)) throw new Error(`split: key must be an integer (got ${key})`);
}

/** The largest element of a Uint32 all-reduce result must fit: the same message on every communicator. */
export function checkUint32Sums(total: Float64Array): void {
  for (const value of total) {
    if (value > UINT32_MAX) throw new Error(`allReduceSum: Uint32 sum ${value} exceeds 2^32 − 1`);
  }
}

/** A send of data still being written must leave it alone once written. */
export function checkSendOptions(options: SendOptions | undefined): void {
  if (options?.ready !== undefined && options.immutable !== true) throw new Error('send: `ready` needs `immutable` (data still being written cannot be copied now)');
}

export function checkUserTag(operation: string, tag: number): void {
  if (!Number.isSafeInteger(tag) || tag < 0) throw new Error(`${operation}: tag must be an integer ≥ 0 (got ${tag})`);
}

function expectKind<T extends MessageArray>(data: MessageArray, like: T, what: string): T {
  if (!isSameKind(data, like)) {
    throw new Error(`${what}: got a ${arrayKindName(data)}, expected a ${arrayKindName(like)}`);
  }
  return data;
}
