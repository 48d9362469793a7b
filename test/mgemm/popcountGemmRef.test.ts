// The reference kernel against the per-field definition of a tally, plus its cheap identities.

import { describe, expect, it } from 'vitest';
import type { PopcountGemmRequest } from '../../src/mgemm/index.js';
import { popcount32 } from '../../src/core/bitCodes.js';
import { PopcountGemmRef } from '../../src/mgemm/kernels/ref/popcountGemmRef.js';
import { CCC_DENSE_TERMS, naiveTallies, planesFromFieldBits, randomFieldBits, seededRandom } from './planeFixtures.js';

describe('popcount32', () => {
  it('counts bits of edge words', () => {
    expect([0, 1, 0x80000000, 0xffffffff, 0x55555555, 0x12345678].map(popcount32)).toEqual([0, 1, 1, 32, 16, 13]);
  });
});

describe('PopcountGemmRef', () => {
  const gemm = new PopcountGemmRef();

  it.each([1, 31, 33, 100, 1000])('equals the per-field tally definition (%i fields)', async (numField) => {
    const random = seededRandom(numField);
    const aBits = randomFieldBits(random, 9, 3, numField);
    const bBits = randomFieldBits(random, 8, 3, numField, 0.3);
    const request: PopcountGemmRequest = {
      a: planesFromFieldBits(aBits, 3, numField, false),
      aFirst: 1,
      aCount: 7,
      b: planesFromFieldBits(bBits, 3, numField, true),
      bFirst: 3,
      bCount: 5,
      termGroups: [CCC_DENSE_TERMS, [[2, 2]], [[0, 2], [2, 1]]],
      strictUpper: false,
    };
    expect(await gemm.run(request)).toEqual(naiveTallies(aBits, bBits, request));
  });

  it('has each plane popcount on the diagonal of a self product', async () => {
    const numField = 77;
    const bits = randomFieldBits(seededRandom(7), 6, 1, numField);
    const planes = planesFromFieldBits(bits, 1, numField, false);
    const request: PopcountGemmRequest = { a: planes, aFirst: 0, aCount: 6, b: planes, bFirst: 0, bCount: 6, termGroups: [[[0, 0]]], strictUpper: false };
    const [out] = await gemm.run(request);
    for (let v = 0; v < 6; v++) expect(out[v * 6 + v]).toBe(bits[v][0].reduce((sum, bit) => sum + bit, 0));
  });

  it('rejects planes and rows outside the operands', async () => {
    const planes = planesFromFieldBits(randomFieldBits(seededRandom(1), 4, 2, 40), 2, 40, false);
    const base: PopcountGemmRequest = { a: planes, aFirst: 0, aCount: 4, b: planes, bFirst: 0, bCount: 4, termGroups: [[[0, 1]]], strictUpper: false };
    await expect(gemm.run({ ...base, termGroups: [[[0, 2]]] })).rejects.toThrow(RangeError);
    await expect(gemm.run({ ...base, bFirst: 1 })).rejects.toThrow(RangeError);
  });
});
