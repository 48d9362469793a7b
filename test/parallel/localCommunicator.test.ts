// The size-1 communicator: messages to itself by tag, collectives that return copies, split, abort.
import { describe, expect, it } from 'vitest';
import { LocalCommunicator } from '../../src/parallel/index.js';

describe('LocalCommunicator', () => {
  it('queues messages to itself by tag, in order, as copies', async () => {
    const comm = new LocalCommunicator();
    const early = comm.recv(0, 3, new Float64Array(0)); // a receive posted before its send
    const buffer = Uint32Array.of(1, 2);
    await comm.send(0, 5, buffer);
    buffer[0] = 7;
    await comm.send(0, 5, buffer);
    await comm.send(0, 3, Float64Array.of(0.5));
    expect(Array.from(await early)).toEqual([0.5]);
    expect(Array.from(await comm.recv(0, 5, new Uint32Array(0)))).toEqual([1, 2]);
    expect(Array.from(await comm.recv(0, 5, new Uint32Array(0)))).toEqual([7, 2]);
  });

  it('refuses a receive of the wrong array kind, a bad peer and a negative tag', async () => {
    const comm = new LocalCommunicator();
    await comm.send(0, 1, Uint8Array.of(1));
    await expect(comm.recv(0, 1, new Float64Array(0))).rejects.toThrow(/got a Uint8Array, expected a Float64Array/);
    await expect(comm.send(1, 0, Uint8Array.of(1))).rejects.toThrow(/outside/);
    await expect(comm.send(0, -1, Uint8Array.of(1))).rejects.toThrow(/tag/);
  });

  it('returns copies from collectives', async () => {
    const comm = new LocalCommunicator();
    const data = Uint32Array.of(3, 4);
    const sum = await comm.allReduceSum(data);
    expect(sum).not.toBe(data);
    expect(sum).toBeInstanceOf(Uint32Array);
    expect(Array.from(sum)).toEqual([3, 4]);
    const broadcast = await comm.broadcast(0, Float64Array.of(1.5));
    expect(Array.from(broadcast)).toEqual([1.5]);
    await comm.barrier();
    const sub = await comm.split(3, 9);
    expect([sub.rank, sub.size]).toEqual([0, 1]);
    expect(() => comm.abort('stop')).toThrow('stop');
  });
});
