// Recycled tally memory of the CPU kernel set: handed-back buffers are reused (smallest that fits), zeroed, as
// arrays of the exact length asked for; shared and plain memory are not mixed; a buffer is kept once.
import { describe, expect, it } from 'vitest';
import { TallyBuffers } from '../../src/mgemm/kernels/wasm/tallyBuffers.js';

describe('TallyBuffers', () => {
  it('reuses handed-back buffers, zeroed, at the exact length asked for, smallest fitting first', () => {
    const buffers = new TallyBuffers(true);
    const [small, large] = buffers.take([100, 1000]);
    expect(small.buffer).toBeInstanceOf(SharedArrayBuffer);
    small.fill(7);
    large.fill(9);
    buffers.give([large, small]);
    const [first, second, third] = buffers.take([50, 500, 10]);
    expect(first.buffer).toBe(small.buffer);
    expect(second.buffer).toBe(large.buffer);
    expect(third.buffer).not.toBe(small.buffer);
    expect([first.length, second.length, third.length]).toEqual([50, 500, 10]);
    expect(first.every((x) => x === 0) && second.every((x) => x === 0) && third.every((x) => x === 0)).toBe(true);
  });

  it('keeps a buffer once however many arrays lie on it, and only memory of its own kind', () => {
    const buffers = new TallyBuffers(false);
    const [whole] = buffers.take([64]);
    buffers.give([whole.subarray(0, 32), whole.subarray(32), new Uint32Array(new SharedArrayBuffer(4096))]);
    const [again, fresh] = buffers.take([64, 64]);
    expect(again.buffer).toBe(whole.buffer);
    expect(fresh.buffer).not.toBe(whole.buffer);
    expect(fresh.buffer).toBeInstanceOf(ArrayBuffer);
  });

  it('lays contiguous arrays on one buffer, reused whole when handed back, without zeroing it', () => {
    const buffers = new TallyBuffers(true);
    const arrays = buffers.takeContiguous([3, 5, 2]);
    expect(arrays.map((a) => [a.byteOffset / 4, a.length])).toEqual([[0, 3], [3, 5], [8, 2]]);
    expect(new Set(arrays.map((a) => a.buffer)).size).toBe(1);
    arrays[1].fill(7);
    buffers.give(arrays);
    const again = buffers.takeContiguous([4, 4]);
    expect(again[0].buffer).toBe(arrays[0].buffer);
    expect(Array.from(again[0])).toEqual([0, 0, 0, 7]);
    const larger = buffers.takeContiguous([11]);
    expect(larger[0].buffer).not.toBe(arrays[0].buffer);
  });
});
