// The row sorter against Array.prototype.sort (stable) of the same rows: in memory, and spilled to scratch runs.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RowSorter } from '../../src/io/index.js';

const dir = mkdtempSync(join(tmpdir(), 'snptally-rowsort-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Rows of 4 words: keys from small ranges (many ties) and full 32-bit values; the last word numbers the row. */
function randomRows(numRows: number, seed: number): number[][] {
  let state = seed;
  const next = (): number => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state;
  };
  return Array.from({ length: numRows }, (_, r) => [next() % 5, next() >>> 0, next() % 3 === 0 ? 0xffffffff : next() % 70000, r]);
}

function naiveSorted(rows: number[][], numKeyWords: number): number[][] {
  return [...rows].sort((a, b) => {
    for (let w = 0; w < numKeyWords; w++) if (a[w] !== b[w]) return a[w] - b[w];
    return 0;
  });
}

function sortedBy(sorter: RowSorter, rowWords: number): number[][] {
  const out: number[][] = [];
  for (const batch of sorter.sorted(37)) {
    for (let r = 0; r < batch.numRows; r++) out.push(Array.from(batch.rows.subarray(r * rowWords, (r + 1) * rowWords)));
  }
  return out;
}

describe('RowSorter', () => {
  for (const [numKeyWords, rowsPerChunk] of [[3, 1 << 20], [3, 100], [1, 64], [2, 1000]] as const) {
    it(`sorts 3000 rows by ${numKeyWords} key words, stably, with ${rowsPerChunk} rows per chunk`, () => {
      const rows = randomRows(3000, numKeyWords * 31 + rowsPerChunk);
      const sorter = new RowSorter({ rowWords: 4, numKeyWords, rowsPerChunk, scratchParent: dir });
      for (const row of rows) sorter.add(row);
      expect(sorter.numRows).toBe(3000);
      expect(sorter.scratchPath !== null).toBe(rowsPerChunk < 3000);
      expect(sortedBy(sorter, 4)).toEqual(naiveSorted(rows, numKeyWords));
      sorter.dispose();
      expect(readdirSync(dir)).toEqual([]);
    });
  }

  it('yields nothing for no rows', () => {
    const sorter = new RowSorter({ rowWords: 2, numKeyWords: 2 });
    expect(sortedBy(sorter, 2)).toEqual([]);
  });
});
