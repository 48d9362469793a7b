// The size-1 communicator of a single-process run: no threads, messages to itself go through a mailbox.
import { CollectiveCommunicator } from './collectiveCommunicator.js';
import type { Communicator, MessageArray } from './communicator.js';
import { Mailbox } from './mailbox.js';

/** Rank 0 of 1. Collectives return copies; send/recv to rank 0 queue copies by tag. */
export class LocalCommunicator extends CollectiveCommunicator {
  readonly rank = 0;
  readonly size = 1;
  private readonly mailbox = new Mailbox();

  protected sendMessage(_dest: number, tag: number, data: MessageArray): Promise<void> {
    this.mailbox.deliver(String(tag), data.slice());
    return Promise.resolve();
  }

  protected receiveMessage(_source: number, tag: number): Promise<MessageArray> {
    return this.mailbox.take(String(tag));
  }

  protected createSubCommunicator(): Communicator {
    return new LocalCommunicator();
  }

  /** With one rank the job is this call stack: throwing ends it with the message. */
  abort(message: string): never {
    throw new Error(message);
  }
}
