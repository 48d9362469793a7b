// The receiving side of startBlockExchange against a peer whose block arrives in steps (as MPI pieces do): the
// block's planes are offered before it is whole, with rows final exactly as far as the receive has reported, and
// whole with its sums; a block of the wrong size or a failed receive rejects both, never leaves them waiting, and a
// failed block nobody asked for is no unhandled rejection.
import { describe, expect, it } from 'vitest';
import type { Communicator, MessageArray, ReceiveOptions } from '../../src/parallel/index.js';
import { buildOwnPlanes, startBlockExchange } from '../../src/engine/blocks/blockExchange.js';
import { rankLayout } from '../../src/engine/run/rankPlans.js';
import { planeLayout } from '../helpers/layouts.js';
import type { VectorBlock } from '../../src/engine/blocks/vectorBlock.js';
import { makeJob } from './jobFixtures.js';

const job = makeJob({ numVector: 64, numField: 3000, decomposition: { numProcVector: 2 } });
const planes = planeLayout('ccc', false);

/** The peer's side of one receive of block words: the test delivers its bytes when it likes. */
interface ScriptedReceive {
  readonly like: Uint32Array;
  readonly progress: ((data: Uint32Array, byteEnd: number) => void) | undefined;
  resolve(data: Uint32Array): void;
  reject(error: Error): void;
}

/** Rank 0 of two: sends go nowhere; receives of block words wait for the test; the sums come at once. */
class ScriptedPeer implements Communicator {
  readonly rank = 0;
  readonly size = 2;
  readonly wordReceives: ScriptedReceive[] = [];
  private wordsPosted: () => void = () => undefined;
  /** Resolves once the exchange has posted its receive of block words. */
  readonly wordsReceivePosted = new Promise<void>((resolve) => {
    this.wordsPosted = resolve;
  });

  constructor(private readonly sums: Float64Array) {}

  send(): Promise<void> {
    return Promise.resolve();
  }

  recv<T extends MessageArray>(_source: number, _tag: number, like: T, options?: ReceiveOptions<T>): Promise<T> {
    if (like instanceof Float64Array) return Promise.resolve(this.sums.slice() as T);
    if (!(like instanceof Uint32Array)) throw new Error('unexpected receive');
    return new Promise<T>((resolve, reject) => {
      this.wordReceives.push({
        like,
        progress: options?.progress as ((data: Uint32Array, byteEnd: number) => void) | undefined,
        resolve: (data) => resolve(data as T),
        reject,
      });
      this.wordsPosted();
    });
  }

  prepareReceive(): void {}
  allReduceSum<T extends Uint32Array | Float64Array>(): Promise<T> { throw new Error('not used'); }
  broadcast<T extends MessageArray>(): Promise<T> { throw new Error('not used'); }
  barrier(): Promise<void> { throw new Error('not used'); }
  split(): Promise<Communicator> { throw new Error('not used'); }
  abort(message: string): never { throw new Error(message); }
}

/** Settles pending promise callbacks. */
const tick = (): Promise<void> => new Promise((resolve) => { setImmediate(resolve); });

/** Whether `promise` has resolved by now. */
async function hasResolved(promise: Promise<unknown>): Promise<boolean> {
  let resolved = false;
  void promise.then(() => { resolved = true; }, () => undefined);
  await tick();
  return resolved;
}

async function exchangeOnRank0(sums: Float64Array): Promise<{ peer: ScriptedPeer; peerWords: Uint32Array; blocks: ReturnType<typeof startBlockExchange> }> {
  const layout = rankLayout(job, 0);
  expect(layout.exchange.receives.map((r) => [r.block, r.peerRank])).toEqual([[1, 1]]);
  const filling = await buildOwnPlanes(job, layout, planes, 1);
  const peerFilling = await buildOwnPlanes(job, rankLayout(job, 1), planes, 1);
  await Promise.all([filling.done, peerFilling.done]);
  const peer = new ScriptedPeer(sums);
  // The own block's sums are never needed here: the exchange only sends them.
  const blocks = startBlockExchange(peer, layout, filling, new Promise<VectorBlock>(() => undefined));
  await peer.wordsReceivePosted;
  return { peer, peerWords: peerFilling.planes.words, blocks };
}

describe('startBlockExchange, receiving', () => {
  it('offers a block\'s planes while it arrives, rows final as the receive reports them, then whole with its sums', async () => {
    const sums = Float64Array.from({ length: 64 }, (_, i) => i * 3);
    const { peer, peerWords, blocks } = await exchangeOnRank0(sums);
    const [receive] = peer.wordReceives;
    const arrivingPlanes = blocks.arriving(1);
    const block = blocks.block(1);
    expect(await hasResolved(arrivingPlanes)).toBe(false);

    const words = new Uint32Array(new SharedArrayBuffer(peerWords.byteLength));
    receive.progress?.(words, 0);
    const incoming = await arrivingPlanes;
    expect(incoming.planes.words).toBe(words);
    const numRows = incoming.planes.numVectors;
    const rowBytes = peerWords.byteLength / numRows;
    const halfRows = Math.floor(numRows / 2);
    const firstHalf = incoming.rowsReady(halfRows);
    const allRows = incoming.rowsReady(numRows);
    expect(await hasResolved(firstHalf)).toBe(false);

    // One byte short of half the rows, then exactly half.
    words.set(peerWords.subarray(0, (halfRows * rowBytes) / 4));
    receive.progress?.(words, halfRows * rowBytes - 4);
    expect(await hasResolved(firstHalf)).toBe(false);
    receive.progress?.(words, halfRows * rowBytes);
    expect(await hasResolved(firstHalf)).toBe(true);
    expect(await hasResolved(allRows)).toBe(false);
    expect(await hasResolved(incoming.done)).toBe(false);

    words.set(peerWords);
    receive.progress?.(words, words.byteLength);
    expect(await hasResolved(allRows)).toBe(true);
    expect(await hasResolved(incoming.done)).toBe(true);
    expect(await hasResolved(block)).toBe(false);
    receive.resolve(words);
    const whole = await block;
    // The same plane matrix object: a GPU set that uploaded it while it arrived finds it resident.
    expect(whole.planes).toBe(incoming.planes);
    expect(Array.from(whole.planes.words)).toEqual(Array.from(peerWords));
    expect(Array.from(whole.sums)).toEqual(Array.from(sums.subarray(0, 32)));
    expect(Array.from(whole.counts)).toEqual(Array.from(sums.subarray(32)));
    expect(() => blocks.block(0)).toThrow('block 0 was not planned to be received');
  });

  it('rejects a block of the wrong size, offered or whole', async () => {
    const { peer, peerWords, blocks } = await exchangeOnRank0(new Float64Array(64));
    const [receive] = peer.wordReceives;
    const short = new Uint32Array(new SharedArrayBuffer(peerWords.byteLength - 4));
    receive.progress?.(short, 0);
    receive.progress?.(short, short.byteLength);
    receive.resolve(short);
    const expected = `block 1 from rank 1: ${short.length} words, expected ${peerWords.length}`;
    await expect(blocks.arriving(1)).rejects.toThrow(expected);
    await expect(blocks.block(1)).rejects.toThrow(expected);
  });

  it('rejects the offered planes and their rows when the receive fails', async () => {
    const { peer, peerWords, blocks } = await exchangeOnRank0(new Float64Array(64));
    const [receive] = peer.wordReceives;
    const words = new Uint32Array(new SharedArrayBuffer(peerWords.byteLength));
    receive.progress?.(words, 0);
    const incoming = await blocks.arriving(1);
    const rows = incoming.rowsReady(1);
    receive.reject(new Error('peer vanished'));
    await expect(rows).rejects.toThrow('peer vanished');
    await expect(incoming.done).rejects.toThrow('peer vanished');
    await expect(blocks.block(1)).rejects.toThrow('peer vanished');
  });

  it('leaves no unhandled rejection when the job stops before the block is asked for; asking later gets the error', async () => {
    const { peer, blocks } = await exchangeOnRank0(new Float64Array(64));
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown): void => { unhandled.push(reason); };
    process.on('unhandledRejection', onUnhandled);
    try {
      peer.wordReceives[0].reject(new Error('stopped: rank 1 failed'));
      // Node reports unhandled rejections once the microtasks after a macrotask have run.
      await tick();
      await tick();
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
    expect(unhandled).toEqual([]);
    await expect(blocks.block(1)).rejects.toThrow('stopped: rank 1 failed');
  });
});
