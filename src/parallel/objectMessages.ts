// Plain objects between ranks (job check outcomes, rank reports): msgpackr-encoded bytes over any Communicator.
import { pack, unpack } from 'msgpackr';
import type { Communicator } from './communicator.js';

/** Every rank returns the root's `value` (others pass anything, e.g. null). Collective over `comm`. */
export async function broadcastObject<T>(comm: Communicator, root: number, value: T): Promise<T> {
  const bytes = comm.rank === root ? encode(value) : new Uint8Array(0);
  return unpack(await comm.broadcast(root, bytes)) as T;
}

/** The `value` of every rank in rank order on `root`, null elsewhere. Uses point-to-point `tag`. */
export async function gatherObjects<T>(comm: Communicator, root: number, tag: number, value: T): Promise<T[] | null> {
  if (comm.rank !== root) {
    await comm.send(root, tag, encode(value));
    return null;
  }
  const values: T[] = [];
  for (let source = 0; source < comm.size; source++) {
    values.push(source === root ? value : unpack(await comm.recv(source, tag, new Uint8Array(0))) as T);
  }
  return values;
}

/** A copy of msgpackr's bytes as a plain Uint8Array (pack may return a view into a reused buffer). */
function encode(value: unknown): Uint8Array {
  return new Uint8Array(pack(value));
}
