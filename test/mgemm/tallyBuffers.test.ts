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
});
