// Rank ↔ grid coordinates, local sizes with padding, and global ranges of blocks and slabs.
import { describe, expect, it } from 'vitest';
import {
  coordsOf,
  fieldSlabRange,
  numFieldLocal,
  numRanks,
  numVectorLocal,
  rankOf,
  vectorBlockRange,
} from '../../src/parallel/index.js';

describe('process grid', () => {
  it('maps rank = field + npf·(vector + npv·repl) and back for every rank', () => {
    for (const grid of [
      { numProcVector: 1, numProcField: 1, numProcRepl: 1 },
      { numProcVector: 3, numProcField: 2, numProcRepl: 4 },
      { numProcVector: 5, numProcField: 1, numProcRepl: 2 },
    ]) {
      for (let rank = 0; rank < numRanks(grid); rank++) {
        const coords = coordsOf(grid, rank);
        expect(rankOf(grid, coords)).toBe(rank);
        expect(coords.fieldIdx + grid.numProcField * (coords.vectorIdx + grid.numProcVector * coords.replIdx)).toBe(rank);
        expect(coords.vectorIdx).toBeLessThan(grid.numProcVector);
        expect(coords.replIdx).toBeLessThan(grid.numProcRepl);
      }
    }
    expect(coordsOf({ numProcVector: 3, numProcField: 2, numProcRepl: 4 }, 13)).toEqual({ fieldIdx: 1, vectorIdx: 0, replIdx: 2 });
  });

  it('pads vectors per block to ceil(nv/npv), and to a multiple of 6 for 3-way with npv > 2', () => {
    expect(numVectorLocal(10, 3, 2)).toBe(4);
    expect(numVectorLocal(10, 2, 3)).toBe(5);
    expect(numVectorLocal(10, 3, 3)).toBe(6);
    expect(numVectorLocal(37, 3, 3)).toBe(18);
    expect(numVectorLocal(36, 3, 3)).toBe(12);
    expect(numFieldLocal(100, 3)).toBe(34);
  });

  it('gives full lower blocks, one partial block and empty pad-only blocks', () => {
    const nvl = numVectorLocal(13, 6, 3); // 6: blocks 0, 1 full, block 2 holds one vector
    expect([0, 1, 2, 3].map((b) => vectorBlockRange(13, nvl, b))).toEqual([
      { begin: 0, end: 6 },
      { begin: 6, end: 12 },
      { begin: 12, end: 13 },
      { begin: 13, end: 13 },
    ]);
    expect([0, 1, 2].map((s) => fieldSlabRange(100, 34, s))).toEqual([
      { begin: 0, end: 34 },
      { begin: 34, end: 68 },
      { begin: 68, end: 100 },
    ]);
  });
});
