// The 3-way pipeline's pure parts: j-slices of a unit (every triple once) and their batching per mGEMM3 call.
import { describe, expect, it } from 'vitest';
import { batchSlices, forEachTripleSlice, type JSlice, type TripleUnit } from '../../src/engine/pipeline3.js';

const slicesOf = (unit: TripleUnit, numI: number, numJ: number, numK: number): JSlice[] => {
  const slices: JSlice[] = [];
  forEachTripleSlice(unit, numI, numJ, numK, (jLocal, iRange, kRange) => slices.push({ jLocal, iRange, kRange }));
  return slices;
};

describe('forEachTripleSlice', () => {
  it('covers the tetrahedron i < j < k of a block once', () => {
    const n = 9;
    const seen = new Set<string>();
    for (const { jLocal: j, iRange, kRange } of slicesOf({ part: 1, jBlock: 0, kBlock: 0, sectionAxis: 1, sectionFirst: 0, sectionEnd: n }, n, n, n)) {
      for (let i = iRange.first; i < iRange.end; i++) for (let k = kRange.first; k < kRange.end; k++) {
        expect(i < j && j < k).toBe(true);
        seen.add(`${i},${j},${k}`);
      }
    }
    expect(seen.size).toBe((n * (n - 1) * (n - 2)) / 6);
  });
});

describe('batchSlices', () => {
  const slices = slicesOf({ part: 3, jBlock: 1, kBlock: 2, sectionAxis: 1, sectionFirst: 0, sectionEnd: 10 }, 7, 10, 5);

  it('keeps every slice once, in order, each batch within the bound unless a slice alone exceeds it', () => {
    for (const maxBytes of [1, 4 * 7 * 5, 4 * 7 * 5 * 3 + 1, 1 << 20]) {
      for (const numGroups of [1, 8]) {
        const batches = batchSlices(slices, numGroups, maxBytes);
        expect(batches.flat()).toEqual(slices);
        for (const batch of batches) {
          const bytes = batch.reduce((sum, s) => sum + 4 * numGroups * (s.iRange.end - s.iRange.first) * (s.kRange.end - s.kRange.first), 0);
          expect(batch.length === 1 || bytes <= maxBytes).toBe(true);
        }
      }
    }
    expect(batchSlices(slices, 1, 4 * 7 * 5 * 3 + 1).map((b) => b.length)).toEqual([3, 3, 3, 1]);
    expect(batchSlices(slices, 1, 1 << 20)).toHaveLength(1);
    expect(batchSlices([], 1, 100)).toEqual([]);
  });
});
