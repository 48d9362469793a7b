// Plane-matrix helpers: padding, shared allocation, sharing copies, and the 3-way pair products.

import { describe, expect, it } from 'vitest';
import { allocatePlaneMatrix, planeWordsFor, toSharedPlaneMatrix, WORDS_PER_PLANE_ALIGN } from '../../src/mgemm/index.js';
// Pair products are the CPU kernel sets' own step of run3 (mgemm/tally3ByPairProducts.ts), not an mgemm export.
import { pairProductPlanes } from '../../src/mgemm/planeMatrix.js';
import { planesFromFieldBits, randomFieldBits, seededRandom } from './planeFixtures.js';

describe('planeWordsFor', () => {
  it('rounds fields up to whole aligned words', () => {
    expect([0, 1, 32, 128, 129, 4099].map(planeWordsFor)).toEqual([0, 4, 4, 4, 8, 132]);
    expect(planeWordsFor(1000) % WORDS_PER_PLANE_ALIGN).toBe(0);
  });
});

describe('allocatePlaneMatrix', () => {
  it('gives zeroed shared words of the right shape', () => {
    const matrix = allocatePlaneMatrix(5, 3, 100);
    expect(matrix).toMatchObject({ numVectors: 5, numPlanes: 3, wordsPerPlane: 4 });
    expect(matrix.words.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(matrix.words.length).toBe(60);
    expect(matrix.words.every((word) => word === 0)).toBe(true);
  });
});

describe('toSharedPlaneMatrix', () => {
  it('keeps shared matrices and copies the others', () => {
    const shared = allocatePlaneMatrix(2, 1, 64);
    expect(toSharedPlaneMatrix(shared)).toBe(shared);
    const local = planesFromFieldBits(randomFieldBits(seededRandom(3), 2, 1, 64), 1, 64, false);
    const copy = toSharedPlaneMatrix(local);
    expect(copy.words.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(Array.from(copy.words)).toEqual(Array.from(local.words));
  });
});

describe('pairProductPlanes', () => {
  it('ANDs x rows with one y row plane pair by plane pair, field by field', () => {
    const numField = 70;
    const random = seededRandom(11);
    const xBits = randomFieldBits(random, 6, 2, numField);
    const yBits = randomFieldBits(random, 3, 2, numField);
    const pairs = [
      [0, 0],
      [0, 1],
      [1, 0],
      [1, 1],
    ] as const;
    const product = pairProductPlanes(planesFromFieldBits(xBits, 2, numField, false), 1, 4, planesFromFieldBits(yBits, 2, numField, true), 2, pairs);
    const expectedBits = [1, 2, 3, 4].map((x) => pairs.map(([xPlane, yPlane]) => xBits[x][xPlane].map((bit, f) => bit & yBits[2][yPlane][f])));
    expect(product.words.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(Array.from(product.words)).toEqual(Array.from(planesFromFieldBits(expectedBits, 4, numField, false).words));
  });
});
