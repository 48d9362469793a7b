// The factored 3-way inclusion–exclusion of finalize3 against its definition (tallyLayout's coefficient3).
import { describe, expect, it } from 'vitest';
import { entryTallies3 } from '../../src/analyses/comet/tripleValues.js';
import { coefficient3 } from '../helpers/layouts.js';
import { seededRandom } from '../mgemm/planeFixtures.js';

describe('entryTallies3', () => {
  for (const countedBits of [1, 2]) {
    it(`equals Σ_t coefficient3(e, t, ${countedBits})·T[t] for random products`, () => {
      const random = seededRandom(17 + countedBits);
      const r = new Float64Array(8);
      for (let trial = 0; trial < 200; trial++) {
        const T = Array.from({ length: 8 }, () => Math.floor(random() * 2 ** 24));
        entryTallies3(countedBits, T[0], T[1], T[2], T[3], T[4], T[5], T[6], T[7], r);
        const expected = Array.from({ length: 8 }, (_, e) => T.reduce((sum, tv, t) => sum + coefficient3(e, t, countedBits) * tv, 0));
        expect(Array.from(r)).toEqual(expected);
      }
    });
  }
});
