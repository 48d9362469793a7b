// The 3-way pipeline's pure parts: j-slices of a unit (every triple once) and their batching per mGEMM3 call.
import { describe, expect, it } from 'vitest';
import { forEachTripleSlice, sliceBatches, type JSlice, type TripleUnit } from '../../src/engine/pipeline/pipeline3.js';
import { RecordedTriplesPerCall, TOP_FIRST_TRIPLES_PER_CALL } from '../../src/engine/pipeline/recordedTriplesPerCall.js';

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

describe('sliceBatches', () => {
  const slices = slicesOf({ part: 3, jBlock: 1, kBlock: 2, sectionAxis: 1, sectionFirst: 0, sectionEnd: 10 }, 7, 10, 5);
  const batchSlices = (all: JSlice[], numGroups: number, maxBytes: number, maxTriples = Infinity): JSlice[][] =>
    [...sliceBatches(all, numGroups, () => ({ maxBytes, maxTriples }))];

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

  it('bounds triples too, and reads the limits afresh at each batch', () => {
    // Slices of 7 × 5 = 35 triples.
    expect(batchSlices(slices, 1, 1 << 20, 70).map((b) => b.length)).toEqual([2, 2, 2, 2, 2]);
    const limits = [35, 105, 1000];
    let asked = 0;
    const batches = [...sliceBatches(slices, 1, () => ({ maxBytes: 1 << 20, maxTriples: limits[Math.min(asked++, limits.length - 1)] }))];
    expect(batches.map((b) => b.length)).toEqual([1, 3, 6]);
    expect(batches.flat()).toEqual(slices);
  });
});

describe('RecordedTriplesPerCall', () => {
  it('a top-N run\'s first call is small (its records all come back), then the calls grow from the usual floor', () => {
    const size = new RecordedTriplesPerCall({ firstTriples: TOP_FIRST_TRIPLES_PER_CALL });
    expect(size.limit).toBe(1 << 12);
    // The first call's 8 entries a triple all came back: later calls hold what fits twice that density.
    size.observe(1 << 12, 8 << 12);
    expect(size.limit).toBe(1 << 20);
  });

  it('a top-N run\'s unbarred first call does not bound the barred calls after it', () => {
    const barred = new RecordedTriplesPerCall({ firstTriples: TOP_FIRST_TRIPLES_PER_CALL, firstUnbarred: true });
    const counted = new RecordedTriplesPerCall({ firstTriples: TOP_FIRST_TRIPLES_PER_CALL });
    for (const size of [barred, counted]) {
      // Every triple of the first call came back (one entry each), then the bar let through 1 in 100,000.
      size.observe(1 << 12, 1 << 12);
      expect(size.limit).toBe(1 << 20);
      size.observe(size.limit, 10);
      expect(size.limit).toBe(1 << 22);
      size.observe(size.limit, 40);
    }
    expect(barred.limit).toBe(1 << 24);
    // Counted, the first call's density (half of 8 Mi records at 1 per triple) keeps every call at 4 Mi triples.
    expect(counted.limit).toBe(1 << 22);
    // Records that crowd a barred call still bound the next ones.
    barred.observe(1 << 20, 1 << 21);
    expect(barred.limit).toBe(1 << 21);
  });

  it('starts from all 8 entries passing, grows 4× a call while records are rare, and stays within the records room', () => {
    const size = new RecordedTriplesPerCall();
    expect(size.limit).toBe(1 << 20);
    size.observe(size.limit, 0);
    expect(size.limit).toBe(1 << 22);
    size.observe(size.limit, 10);
    expect(size.limit).toBe(1 << 24);
    size.observe(size.limit, 100);
    expect(size.limit).toBe(1 << 25);
    // Dense records: half of 8 Mi records at 2 per triple.
    size.observe(1 << 20, 1 << 21);
    expect(size.limit).toBe(1 << 21);
    // The densest call so far keeps bounding it, and it never drops below the first call's size.
    size.observe(1 << 20, 0);
    expect(size.limit).toBe(1 << 21);
    size.observe(1 << 20, 8 << 20);
    expect(size.limit).toBe(1 << 20);
  });
});
