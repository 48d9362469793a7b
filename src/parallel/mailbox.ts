// Tag matching for point-to-point messages: arrivals and receives meet by key, first come first served per key.
import type { MessageArray } from './communicator.js';

/**
 * Messages that arrived before their receive wait in a FIFO per key; receives that came first wait
 * in a FIFO per key too. With one key per (context, source, tag) and in-order delivery per source,
 * this keeps MPI's non-overtaking order for each (source, tag).
 */
export class Mailbox {
  private readonly arrived = new Map<string, MessageArray[]>();
  private readonly waiting = new Map<string, Array<{ readonly resolve: (data: MessageArray) => void; readonly reject: (error: Error) => void }>>();
  /** Set by close(): every receive, waiting or to come, fails with it. */
  private closedWith: Error | null = null;

  /** Hands a message to the oldest waiting receive of `key`, or stores it. */
  deliver(key: string, data: MessageArray): void {
    const receivers = this.waiting.get(key);
    const receiver = receivers?.shift();
    if (receiver !== undefined) {
      if (receivers !== undefined && receivers.length === 0) this.waiting.delete(key);
      receiver.resolve(data);
      return;
    }
    const queue = this.arrived.get(key);
    if (queue === undefined) this.arrived.set(key, [data]);
    else queue.push(data);
  }

  /** The oldest message of `key`, now or when it arrives. Registration order is match order. */
  take(key: string): Promise<MessageArray> {
    if (this.closedWith !== null) return Promise.reject(this.closedWith);
    const queue = this.arrived.get(key);
    const data = queue?.shift();
    if (data !== undefined) {
      if (queue !== undefined && queue.length === 0) this.arrived.delete(key);
      return Promise.resolve(data);
    }
    return new Promise((resolve, reject) => {
      const receivers = this.waiting.get(key);
      if (receivers === undefined) this.waiting.set(key, [{ resolve, reject }]);
      else receivers.push({ resolve, reject });
    });
  }

  /** Fails every waiting receive and every later one with `reason` (the job is being stopped). */
  close(reason: Error): void {
    this.closedWith ??= reason;
    const receivers = [...this.waiting.values()].flat();
    this.waiting.clear();
    for (const receiver of receivers) receiver.reject(this.closedWith);
  }

  /** Number of messages delivered but not yet received (for tests and leak checks). */
  get numPending(): number {
    let count = 0;
    for (const queue of this.arrived.values()) count += queue.length;
    return count;
  }
}

/** The mailbox key of a message: communicator context, source as a world rank, tag. */
export function mailboxKey(contextId: string, sourceWorldRank: number, tag: number): string {
  return `${contextId}|${sourceWorldRank}|${tag}`;
}
