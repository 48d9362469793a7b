// Plain objects between ranks (job check outcomes, rank reports): msgpackr-encoded bytes over any Communicator.
// msgpackr is loaded on first use: threads and single-rank runs that never send an object load none of it.
import type { Communicator } from './communicator.js';

type Msgpackr = typeof import('msgpackr');
let msgpackr: Promise<Msgpackr> | null = null;
const loadMsgpackr = (): Promise<Msgpackr> => (msgpackr ??= import('msgpackr'));

/** Every rank returns the root's `value` (others pass anything, e.g. null). Collective over `comm`. */
export async function broadcastObject<T>(comm: Communicator, root: number, value: T): Promise<T> {
  const { pack, unpack } = await loadMsgpackr();
  const bytes = comm.rank === root ? encode(pack, value) : new Uint8Array(0);
  return unpack(await comm.broadcast(root, bytes)) as T;
}

/** The `value` of every rank in rank order on `root`, null elsewhere. Uses point-to-point `tag`. */
export async function gatherObjects<T>(comm: Communicator, root: number, tag: number, value: T): Promise<T[] | null> {
  const { pack, unpack } = await loadMsgpackr();
  if (comm.rank !== root) {
    await comm.send(root, tag, encode(pack, value));
    return null;
  }
  const values: T[] = [];
  for (let source = 0; source < comm.size; source++) {
    values.push(source === root ? value : unpack(await comm.recv(source, tag, new Uint8Array(0))) as T);
  }
  return values;
}

/** A copy of msgpackr's bytes as a plain Uint8Array (pack may return a view into a reused buffer). */
function encode(pack: Msgpackr['pack'], value: unknown): Uint8Array {
  return new Uint8Array(pack(value));
}
