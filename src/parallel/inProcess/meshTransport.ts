// One worker's end of the full mesh of MessageChannels: posts copies to peers and files arrivals in a mailbox.
import type { MessagePort } from 'node:worker_threads';
import { decodeLargeViews, encodeLargeViews } from '../../core/largeViews.js';
import type { MessageArray } from '../communicator.js';
import { Mailbox, mailboxKey } from '../mailbox.js';
import type { WireMessage } from './messages.js';

/**
 * Point-to-point between world ranks. Each pair of ranks has its own channel, and a channel delivers
 * in order, so messages of one (source, context, tag) are received in the order they were sent.
 */
export class MeshTransport {
  private readonly mailbox = new Mailbox();

  constructor(
    readonly worldRank: number,
    private readonly ports: ReadonlyArray<MessagePort | null>,
  ) {
    ports.forEach((port, source) => {
      port?.on('message', (posted: unknown) => {
        const message = decodeLargeViews<WireMessage>(posted);
        this.mailbox.deliver(mailboxKey(message.contextId, source, message.tag), message.data);
      });
    });
  }

  /**
   * Posts a private copy of `data`, so the caller may reuse its buffer at once. The copy's buffer is
   * transferred, not cloned: one copy in all, and a view into a larger buffer sends only its bytes.
   */
  post(destWorldRank: number, contextId: string, tag: number, data: MessageArray): void {
    const copy = data.slice();
    if (destWorldRank === this.worldRank) {
      this.mailbox.deliver(mailboxKey(contextId, destWorldRank, tag), copy);
      return;
    }
    const port = this.ports[destWorldRank];
    if (port === null || port === undefined) throw new Error(`no channel to rank ${destWorldRank}`);
    const message: WireMessage = { contextId, tag, data: copy };
    port.postMessage(encodeLargeViews(message), [copy.buffer as ArrayBuffer]);
  }

  /** Closes this rank's ends of the mesh (after its last exchange), so nothing keeps its thread alive. */
  close(): void {
    for (const port of this.ports) port?.close();
  }

  /** Fails this rank's receives, waiting and to come, with `reason`: another rank failed and the job stops. */
  stop(reason: Error): void {
    this.mailbox.close(reason);
  }

  /** The next message from world rank `sourceWorldRank` in `contextId` with `tag`. */
  take(sourceWorldRank: number, contextId: string, tag: number): Promise<MessageArray> {
    return this.mailbox.take(mailboxKey(contextId, sourceWorldRank, tag));
  }
}
