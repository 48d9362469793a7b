// addPairRowChecksum (one pass over a pair row's four entries) against the definition: each entry's weight from its
// uid (checksumWeight of entryUid2) and ChecksumAccumulator.add per entry.
import { describe, expect, it } from 'vitest';
import { ChecksumAccumulator, checksumWeight, entryUid2 } from '../../src/core/checksum.js';
import { addPairRowChecksum } from '../../src/core/pairRowChecksum.js';

/** A seeded generator of uniform [0, 1) doubles. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

/** The definition: entry (a, b) of pair (i, jFirst + c) at values[4c + 2a + b], one add per entry. */
function naiveRowChecksum(checksum: ChecksumAccumulator, numVector: number, row: { i: number; jFirst: number; numCols: number }, values: Float64Array): void {
  for (let c = 0; c < row.numCols; c++) {
    for (let e = 0; e < 4; e++) checksum.add(entryUid2(numVector, row.i, e >> 1, row.jFirst + c, e & 1), values[4 * c + e]);
  }
}

function state(checksum: ChecksumAccumulator): { sum: bigint; entries: number; zeros: number } {
  return { sum: checksum.sum(), entries: checksum.entries, zeros: checksum.zeros };
}

describe('addPairRowChecksum', () => {
  const numVector = 5000;
  it('equals the per-entry definition for scaled counts, on both sides of i and across flushes', () => {
    const next = random(7);
    const fast = new ChecksumAccumulator();
    const naive = new ChecksumAccumulator();
    // Rows left of i, right of it, and straddling it (j = i itself is never in a row: jFirst > i or the row ends before).
    const rows = [{ i: 4000, jFirst: 0, numCols: 4000 }, { i: 17, jFirst: 18, numCols: 4982 }, { i: 2500, jFirst: 2501, numCols: 1200 }];
    for (const row of rows) {
      // Counts up to 2^24 − 1 (KING's largest), some 0: the fast path's sums must flush before they lose bits.
      const values = Float64Array.from({ length: 4 * row.numCols }, () => (next() < 0.1 ? 0 : Math.floor(next() * (2 ** 24 - 1))) * 2 ** -22);
      addPairRowChecksum(fast, numVector, row, values);
      naiveRowChecksum(naive, numVector, row, values);
    }
    expect(state(fast)).toEqual(state(naive));
    expect(fast.zeros).toBeGreaterThan(0);
  });

  it('equals the definition for values that are not counts (the general path), NaN and pairs mixing both', () => {
    const next = random(11);
    const fast = new ChecksumAccumulator();
    const naive = new ChecksumAccumulator();
    const row = { i: 300, jFirst: 100, numCols: 1500 };
    const values = Float64Array.from({ length: 4 * row.numCols }, (_, k) => {
      const kind = k % 7;
      if (kind === 0) return next() * 16;
      if (kind === 1) return Number.NaN;
      if (kind === 2) return 2 ** -40 * Math.floor(next() * 1000);
      return Math.floor(next() * 50000) * 2 ** -22;
    });
    addPairRowChecksum(fast, numVector, row, values);
    naiveRowChecksum(naive, numVector, row, values);
    expect(state(fast)).toEqual(state(naive));
  });

  it('refuses a value outside [0, 16) as addEntries does', () => {
    const values = new Float64Array([1, 2, 3, 16]);
    expect(() => addPairRowChecksum(new ChecksumAccumulator(), 10, { i: 0, jFirst: 1, numCols: 1 }, values)).toThrow(/\[0, 16\)/);
    expect(() => addPairRowChecksum(new ChecksumAccumulator(), 10, { i: 0, jFirst: 1, numCols: 1 }, new Float64Array([-(2 ** -22), 0, 0, 0]))).toThrow(/\[0, 16\)/);
  });

  it('gives each entry the weight of its uid (a single entry isolates one weight)', () => {
    const fast = new ChecksumAccumulator();
    addPairRowChecksum(fast, 100, { i: 40, jFirst: 60, numCols: 1 }, new Float64Array([0, 2 ** -22, 0, 0]));
    // Entry (a = 0 of i, b = 1 of j): j = 60 > i, so its uid is (60·100 + 40)·4 + 2.
    expect(fast.sum()).toBe(BigInt(checksumWeight((60 * 100 + 40) * 4 + 2)) * 2n ** 34n);
  });
});
