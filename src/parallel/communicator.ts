// The communicator interface every rank talks through: in-process (worker threads) or MPI.
// Rank logic is written only against this interface (issue 2 §4): no rank code may know which one runs it.

/** Typed arrays that travel between ranks. */
export type MessageArray = Uint8Array | Uint32Array | Float64Array;

/** How a send may treat its data. */
export interface SendOptions {
  /** `data` never changes after the call: no private copy is needed. */
  readonly immutable?: boolean;
  /**
   * `data` is still being written: its bytes [0, byteEnd) are final once `ready(byteEnd)` resolves (needs
   * `immutable`, which then holds from that point on). A transport may send the first bytes while the rest is
   * written, e.g. a vector block's rows as they are built; the send rejects if `ready` does.
   */
  readonly ready?: (byteEnd: number) => Promise<void>;
}

/** How a receive reports its message before it is complete. */
export interface ReceiveOptions<T extends MessageArray> {
  /**
   * Called with the message's array once it exists and whenever more of its bytes have arrived: bytes
   * [0, byteEnd) are final. Called at least once, with the whole length, before the receive resolves; a transport
   * that moves a message in pieces (MPI) calls it as they arrive, so the caller may use the first bytes early (a GPU
   * uploads a received block's rows while later ones are on their way). It must not throw.
   */
  readonly progress?: (data: T, byteEnd: number) => void;
}

export interface Communicator {
  /** This process's rank in the communicator, 0 ≤ rank < size. */
  readonly rank: number;
  readonly size: number;

  /**
   * Starts sending `data` to `dest` with `tag`; resolves once `data` may be reused. With `immutable`, the caller
   * promises never to change `data` again, so it may be sent without a private copy (e.g. a rank's vector block).
   */
  send(dest: number, tag: number, data: MessageArray, options?: SendOptions): Promise<void>;
  /**
   * Receives the message from `source` with `tag` into a new array of the same kind as `like` (shared memory if
   * `like` is); `options.progress` follows its bytes as they arrive.
   */
  recv<T extends MessageArray>(source: number, tag: number, like: T, options?: ReceiveOptions<T>): Promise<T>;
  /**
   * Says that the next message from `source` with `tag` will hold `length` elements of `like`'s kind, so that a
   * transport may set its memory up before the message comes (MPI maps a large shared buffer's pages off the
   * main thread). Only a hint: a message of another length is still received, and a transport may ignore it.
   */
  prepareReceive(source: number, tag: number, like: MessageArray, length: number): void;

  /** Element-wise sum over all ranks; every rank gets the result. Float64 values must be integers < 2^53 for exactness. */
  allReduceSum<T extends Uint32Array | Float64Array>(data: T): Promise<T>;
  /** Broadcast from `root`; every rank returns the root's array. */
  broadcast<T extends MessageArray>(root: number, data: T): Promise<T>;
  barrier(): Promise<void>;

  /** Sub-communicator of the ranks with the same `color`, ordered by `key` (MPI_Comm_split semantics). */
  split(color: number, key: number): Promise<Communicator>;

  /** Ends the whole job with this message (all ranks stop; nothing hangs). */
  abort(message: string): never;
}
