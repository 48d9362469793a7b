// stackSlices (which j-slices share one GEMM): every row of every non-empty slice lands in exactly one part, parts
// keep slice order and lie one after another in their stack, no part straddles a row cut, and stacks respect their
// row, output and waste limits; tetrahedron slices (z = (j, n)) stack many to one.

import { describe, expect, it } from 'vitest';
import type { Tally3Slice } from '../../src/mgemm/index.js';
import { stackSlices, type SliceStack, type SliceStackLimits } from '../../src/mgemm/kernels/webgpu/plan/sliceStacks.js';
import { seededRandom } from './planeFixtures.js';

/** Every property the driver relies on; returns what is wrong (empty when nothing). */
function violations(slices: readonly Tally3Slice[], limits: SliceStackLimits, stacks: readonly SliceStack[]): string[] {
  const found: string[] = [];
  const covered = slices.map((s) => new Uint8Array(s.xCount));
  let lastSlice = -1;
  stacks.forEach((stack, k) => {
    let row = 0;
    let own = 0;
    for (const part of stack.parts) {
      const slice = slices[part.sliceIdx];
      if (part.sliceIdx < lastSlice) found.push(`stack ${k}: slice ${part.sliceIdx} after slice ${lastSlice}`);
      lastSlice = part.sliceIdx;
      if (part.stackRowFirst !== row) found.push(`stack ${k}: part at row ${part.stackRowFirst}, expected ${row}`);
      row += part.numRows;
      own += part.numRows * slice.zCount;
      if (part.numRows < 1 || part.sliceRowFirst < 0 || part.sliceRowFirst + part.numRows > slice.xCount) found.push(`stack ${k}: part outside slice ${part.sliceIdx}`);
      const xFirst = slice.xFirst + part.sliceRowFirst;
      for (const cut of limits.rowCuts) if (cut > xFirst && cut < xFirst + part.numRows) found.push(`stack ${k}: part straddles cut ${cut}`);
      for (let r = part.sliceRowFirst; r < part.sliceRowFirst + part.numRows; r++) covered[part.sliceIdx][r]++;
      if (slice.zFirst < stack.zFirst || slice.zFirst + slice.zCount > stack.zFirst + stack.zCount) found.push(`stack ${k}: z range misses slice ${part.sliceIdx}`);
    }
    if (row !== stack.numRows) found.push(`stack ${k}: ${stack.numRows} rows, parts have ${row}`);
    if (stack.numRows > limits.maxRows) found.push(`stack ${k}: ${stack.numRows} rows`);
    const outputs = stack.numRows * stack.zCount;
    if (stack.parts.length > 1 && outputs > limits.maxOutputs) found.push(`stack ${k}: ${outputs} outputs`);
    if (outputs > limits.maxWasteRatio * own) found.push(`stack ${k}: ${outputs} outputs for ${own} own`);
    const zLo = Math.min(...stack.parts.map((p) => slices[p.sliceIdx].zFirst));
    const zHi = Math.max(...stack.parts.map((p) => slices[p.sliceIdx].zFirst + slices[p.sliceIdx].zCount));
    if (zLo !== stack.zFirst || zHi !== stack.zFirst + stack.zCount) found.push(`stack ${k}: z range wider than its slices'`);
  });
  slices.forEach((s, idx) => {
    if (s.zCount === 0) {
      if (covered[idx].some((c) => c !== 0)) found.push(`empty slice ${idx} stacked`);
      return;
    }
    covered[idx].forEach((c, r) => { if (c !== 1) found.push(`slice ${idx} row ${r} in ${c} parts`); });
  });
  return found.slice(0, 8);
}

/** The engine's part-1 slices of n vectors: j with i < j < k. */
function tetrahedron(n: number): Tally3Slice[] {
  return Array.from({ length: n }, (_, j) => ({ yRow: j, xFirst: 0, xCount: j, zFirst: j + 1, zCount: n - j - 1 }))
    .filter((s) => s.xCount > 0 && s.zCount > 0);
}

describe('stackSlices', () => {
  it('random slices, cuts and limits: every row once, in order, within the limits', () => {
    for (let seed = 1; seed <= 200; seed++) {
      const random = seededRandom(seed);
      const n = 1 + Math.floor(random() * 60);
      const slices: Tally3Slice[] = Array.from({ length: Math.floor(random() * 12) }, () => {
        const xFirst = Math.floor(random() * n);
        const zFirst = Math.floor(random() * n);
        return {
          yRow: Math.floor(random() * n), xFirst, xCount: random() < 0.1 ? 0 : Math.floor(random() * (n - xFirst + 1)),
          zFirst, zCount: random() < 0.1 ? 0 : Math.floor(random() * (n - zFirst + 1)),
        };
      });
      const limits: SliceStackLimits = {
        maxRows: 1 + Math.floor(random() * 40), maxOutputs: 1 + Math.floor(random() * 2000), maxWasteRatio: 1 + random(),
        rowCuts: Array.from({ length: Math.floor(random() * 3) }, () => Math.floor(random() * n)),
      };
      expect(violations(slices, limits, stackSlices(slices, limits)), `seed ${seed}`).toEqual([]);
    }
  });

  it('stacks tetrahedron slices many to one, with little waste', () => {
    const slices = tetrahedron(512);
    const limits: SliceStackLimits = { maxRows: 1 << 20, maxOutputs: 1 << 20, maxWasteRatio: 1.125, rowCuts: [0] };
    const stacks = stackSlices(slices, limits);
    expect(violations(slices, limits, stacks)).toEqual([]);
    // 512³ / 6 ≈ 22 M triples in stacks of 2^20 outputs: 21 at the least (35 with the thin ones at the end), not 510.
    expect(stacks.length).toBeLessThan(40);
    const computed = stacks.reduce((sum, s) => sum + s.numRows * s.zCount, 0);
    const own = slices.reduce((sum, s) => sum + s.xCount * s.zCount, 0);
    expect(computed / own).toBeLessThan(1.05);
  });

  it('a slice wider than maxRows is cut into parts, one stack each when outputs allow no more', () => {
    const slices: Tally3Slice[] = [{ yRow: 0, xFirst: 3, xCount: 10, zFirst: 0, zCount: 5 }];
    const stacks = stackSlices(slices, { maxRows: 4, maxOutputs: 20, maxWasteRatio: 1, rowCuts: [] });
    expect(stacks.map((s) => s.parts.map((p) => [p.sliceRowFirst, p.numRows]))).toEqual([[[0, 4]], [[4, 4]], [[8, 2]]]);
  });

  it('rejects limits that cannot make progress', () => {
    expect(() => stackSlices(tetrahedron(8), { maxRows: 0, maxOutputs: 10, maxWasteRatio: 1, rowCuts: [] })).toThrow(RangeError);
    expect(() => stackSlices(tetrahedron(8), { maxRows: 4, maxOutputs: 10, maxWasteRatio: 0.5, rowCuts: [] })).toThrow(RangeError);
  });
});
