// The communicator of a rank running as a worker thread: point-to-point over the mesh, collectives from the base class.
import { CollectiveCommunicator } from '../collectiveCommunicator.js';
import type { Communicator, MessageArray } from '../communicator.js';
import type { MeshTransport } from './meshTransport.js';

/** What a communicator needs besides its members: the transport and how to stop the job. */
export interface InProcessContext {
  readonly transport: MeshTransport;
  /** Tells the launcher to stop every rank with this message. */
  readonly reportAbort: (message: string) => void;
}

/**
 * A group of world ranks with its own message space (`contextId`): the world communicator is
 * context "world"; a split appends an id that every member computes alike.
 */
export class InProcessCommunicator extends CollectiveCommunicator {
  readonly size: number;

  constructor(
    private readonly context: InProcessContext,
    private readonly contextId: string,
    /** worldRanks[r]: the world rank of rank r of this communicator. */
    private readonly worldRanks: readonly number[],
    readonly rank: number,
  ) {
    super();
    this.size = worldRanks.length;
  }

  protected sendMessage(dest: number, tag: number, data: MessageArray): Promise<void> {
    this.context.transport.post(this.worldRanks[dest], this.contextId, tag, data);
    return Promise.resolve();
  }

  protected receiveMessage(source: number, tag: number): Promise<MessageArray> {
    return this.context.transport.take(this.worldRanks[source], this.contextId, tag);
  }

  protected createSubCommunicator(members: readonly number[], newRank: number, splitId: string): Communicator {
    const worldRanks = members.map((member) => this.worldRanks[member]);
    return new InProcessCommunicator(this.context, `${this.contextId}/${splitId}`, worldRanks, newRank);
  }

  /** Reports to the launcher, which terminates every rank; the throw stops this rank's code at once. */
  abort(message: string): never {
    this.context.reportAbort(message);
    throw new Error(`aborted: ${message}`);
  }
}
