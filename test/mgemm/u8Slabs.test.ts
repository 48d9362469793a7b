// K slabs of the u8 path: whole rows while the budget holds U8_SLAB_ROWS of them, else slabs that it does hold,
// covering every field once in order, never shorter than the unit.
import { describe, expect, it } from 'vitest';
import { planU8Slabs, U8_SLAB_ROWS, U8_SLAB_UNIT_BYTES } from '../../src/mgemm/kernels/webgpu/plan/u8Slabs.js';

/** The slabs' fields cover [0, kBytes) once, in order, each a multiple of the unit and at most slabBytes. */
function expectCover(kBytes: number, budget: number): void {
  const { slabs, slabBytes } = planU8Slabs(kBytes, budget);
  let next = 0;
  const faults: string[] = [];
  for (const [s, slab] of slabs.entries()) {
    if (slab.wordFirst * 32 !== next || slab.rowBytes !== slab.numWords * 32 || slab.rowBytes % U8_SLAB_UNIT_BYTES !== 0 || slab.rowBytes > slabBytes) {
      faults.push(`slab ${s}: ${JSON.stringify(slab)} after byte ${next}`);
    }
    next += slab.rowBytes;
  }
  expect(faults).toEqual([]);
  expect(next).toBe(kBytes);
}

describe('planU8Slabs', () => {
  const budget = 512 << 20;
  it('keeps whole rows while the budget holds U8_SLAB_ROWS of them', () => {
    expect(planU8Slabs(65536, budget)).toEqual({ slabs: [{ wordFirst: 0, numWords: 2048, rowBytes: 65536 }], slabBytes: 65536 });
    expect(planU8Slabs(budget / U8_SLAB_ROWS, budget).slabs).toHaveLength(1);
  });
  it('cuts longer rows into slabs of which the budget holds U8_SLAB_ROWS rows, the last one shorter', () => {
    const slabBytes = budget / U8_SLAB_ROWS;
    const plan = planU8Slabs(2 ** 20, budget);
    expect(plan.slabBytes).toBe(slabBytes);
    expect(plan.slabs).toHaveLength(2 ** 20 / slabBytes);
    const ragged = planU8Slabs(2 ** 20 + 384, budget);
    expect(ragged.slabs).toHaveLength(2 ** 20 / slabBytes + 1);
    expect(ragged.slabs.at(-1)).toEqual({ wordFirst: 2 ** 20 / 32, numWords: 12, rowBytes: 384 });
    for (const kBytes of [128, 896, 2 ** 17 + 128, 2 ** 20 + 384]) {
      for (const b of [budget, 1 << 20, 512 << 10, 1]) expectCover(kBytes, b);
    }
  });
  it('never cuts below the unit, and rounds a slab down to it', () => {
    expect(planU8Slabs(896, 1).slabBytes).toBe(U8_SLAB_UNIT_BYTES);
    expect(planU8Slabs(896, U8_SLAB_ROWS * 300).slabBytes).toBe(256);
  });
  it('refuses rows that are not whole units', () => {
    expect(() => planU8Slabs(96, budget)).toThrow(/multiple of 128/);
    expect(() => planU8Slabs(0, budget)).toThrow(RangeError);
  });
});
