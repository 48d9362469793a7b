// The blocked min-plus kernels give the reference kernels' bits: ragged tiles, several field blocks, strictUpper,
// both precisions, on non-integer values (sums that round: only the same order of additions gives the same bits).
import { describe, expect, it } from 'vitest';
import { allocatePlaneMatrix, pairMinOrder, realValuesOf, valueBits, type ValuePrecision } from '../../src/mgemm/index.js';
import { KC, minPlus2Blocked, minPlus2Reference, minPlus3Blocked, minPlus3Reference } from '../../src/mgemm/kernels/minplus/minPlusKernels.js';
import { seededRealValues } from '../analyses/czekanowski/czekanowskiJobs.js';

function realMatrix(numVectors: number, numField: number, precision: ValuePrecision, seed: number) {
  const planes = allocatePlaneMatrix(numVectors, valueBits(precision), numField);
  const view = realValuesOf(planes, precision);
  const values = seededRealValues(numVectors * numField, seed, precision);
  for (let v = 0; v < numVectors; v++) view.values.set(values.subarray(v * numField, (v + 1) * numField), v * view.rowStride);
  return view;
}

const outOf = (precision: ValuePrecision, n: number) => (precision === 'double' ? new Float64Array(n) : new Float32Array(n));

describe('min-plus kernels', () => {
  for (const precision of ['double', 'single'] as const) {
    const numField = KC + 77;
    it(`2-way blocked = reference (${precision}, 11 × 9, nf ${numField})`, () => {
      const a = realMatrix(13, numField, precision, 3);
      const b = realMatrix(10, numField, precision, 4);
      const tile = { a, aFirst: 1, b, bFirst: 1, bCount: 9, numField, rowFirst: 0, rowEnd: 11, strictUpper: false };
      const want = outOf(precision, 99);
      const got = outOf(precision, 99);
      minPlus2Reference({ ...tile, out: want });
      minPlus2Blocked({ ...tile, out: got });
      expect(got).toEqual(want);
      // A direct sum of one entry, in field order, for the reference itself.
      let s = 0;
      for (let f = 0; f < numField; f++) {
        s = Math.min(a.values[2 * a.rowStride + f], b.values[4 * b.rowStride + f]) + s;
        if (precision === 'single') s = Math.fround(s);
      }
      expect(want[1 * 9 + 3]).toBe(s);
    });

    it(`2-way strictUpper: every entry above the diagonal (${precision})`, () => {
      const a = realMatrix(10, 40, precision, 5);
      const tile = { a, aFirst: 0, b: a, bFirst: 0, bCount: 10, numField: 40, rowFirst: 0, rowEnd: 10, strictUpper: true };
      const want = outOf(precision, 100);
      const got = outOf(precision, 100);
      minPlus2Reference({ ...tile, out: want });
      minPlus2Blocked({ ...tile, out: got });
      for (let r = 0; r < 10; r++) for (let c = r + 1; c < 10; c++) expect(got[r * 10 + c]).toBe(want[r * 10 + c]);
    });

    for (const blockIndices of [undefined, [2, 0, 1], [1, 1, 0]] as const) it(`3-way blocked = reference (${precision}, 7 × 6, nf ${numField}, blocks ${String(blockIndices)})`, () => {
      const x = realMatrix(8, numField, precision, 6);
      const z = realMatrix(7, numField, precision, 7);
      const tile = { x, xFirst: 1, y: x, yRow: 0, z, zFirst: 1, zCount: 6, numField, rowFirst: 0, rowEnd: 7, order: pairMinOrder(blockIndices) };
      const want = outOf(precision, 42);
      const got = outOf(precision, 42);
      minPlus3Reference({ ...tile, out: want });
      minPlus3Blocked({ ...tile, out: got }, new Float64Array(KC));
      expect(got).toEqual(want);
    });
  }
});
