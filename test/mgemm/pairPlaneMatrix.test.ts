// mGEMM4's pair planes (mgemm4.ts pairPlaneMatrix) against the AND of the two vectors' planes computed word by word
// here, with and without the planes' word ranges (epistasis class planes hold bits in their class's words only).
import { describe, expect, it } from 'vitest';
import { pairPlaneMatrix, type PlaneMatrix, type PlaneWordRange } from '../../src/mgemm/index.js';

const NUM_VECTORS = 7;
const NUM_PLANES = 3;
const WORDS_PER_PLANE = 11;

/** Random planes, zero outside `ranges` (a null range: every word). */
function randomPlanes(seed: number, ranges: readonly (PlaneWordRange | null)[] | null): PlaneMatrix {
  let state = seed;
  const next = (): number => (state = (Math.imul(state, 1103515245) + 12345) >>> 0);
  const words = new Uint32Array(NUM_VECTORS * NUM_PLANES * WORDS_PER_PLANE);
  for (let v = 0; v < NUM_VECTORS; v++) {
    for (let p = 0; p < NUM_PLANES; p++) {
      const [first, end] = ranges?.[p] ?? [0, WORDS_PER_PLANE];
      for (let w = first; w < end; w++) words[(v * NUM_PLANES + p) * WORDS_PER_PLANE + w] = next() ^ (next() << 16);
    }
  }
  const matrix: PlaneMatrix = { numVectors: NUM_VECTORS, numPlanes: NUM_PLANES, wordsPerPlane: WORDS_PER_PLANE, words };
  return ranges === null ? matrix : { ...matrix, planeWordRanges: ranges };
}

describe('pairPlaneMatrix', () => {
  const first = Int32Array.from([0, 0, 3, 6, 2]);
  const second = Int32Array.from([1, 5, 4, 6, 2]);
  const planePairs: [number, number][] = [[0, 0], [0, 1], [1, 2], [2, 0], [2, 2]];

  for (const ranges of [null, [[0, 5], [4, 11], null], [[0, 3], [8, 11], [2, 9]]] as (PlaneWordRange | null)[][] | null[]) {
    it(`is the AND of the pair's planes, word by word (ranges ${JSON.stringify(ranges)})`, () => {
      const planes = randomPlanes(17, ranges);
      const pairs = pairPlaneMatrix(planes, first, second, planePairs);
      expect([pairs.numVectors, pairs.numPlanes, pairs.wordsPerPlane]).toEqual([first.length, planePairs.length, WORDS_PER_PLANE]);
      for (let r = 0; r < first.length; r++) {
        for (const [q, [p, pp]] of planePairs.entries()) {
          for (let w = 0; w < WORDS_PER_PLANE; w++) {
            const want = (planes.words[(first[r] * NUM_PLANES + p) * WORDS_PER_PLANE + w] & planes.words[(second[r] * NUM_PLANES + pp) * WORDS_PER_PLANE + w]) >>> 0;
            expect(pairs.words[(r * planePairs.length + q) * WORDS_PER_PLANE + w]).toBe(want);
          }
        }
      }
      if (ranges === null) {
        expect(pairs.planeWordRanges ?? null).toBeNull();
        return;
      }
      // Each pair plane's range is where both its planes' ranges meet (an empty one starts and ends at one word).
      const whole: PlaneWordRange = [0, WORDS_PER_PLANE];
      const meet = (a: PlaneWordRange, b: PlaneWordRange): PlaneWordRange => {
        const lo = Math.max(a[0], b[0]);
        return [lo, Math.max(lo, Math.min(a[1], b[1]))];
      };
      expect(pairs.planeWordRanges).toEqual(planePairs.map(([p, pp]) =>
        ranges[p] === null && ranges[pp] === null ? null : meet(ranges[p] ?? whole, ranges[pp] ?? whole)));
    });
  }
});
