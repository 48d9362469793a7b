// The naive Czekanowski oracle against SPEC §8's reference checksums (CoMet's), so that the oracle the engine is
// compared with is itself checked against independent figures.
import { describe, expect, it } from 'vitest';
import { naiveCzekanowski } from './naiveCzekanowski.js';

/** SPEC §8's table. */
export const SPEC8_CHECKSUMS = [
  { numWay: 2, numVector: 30, values: 'random', precision: 'double', checksum: '0-4537258543260-1078763221379199200' },
  { numWay: 2, numVector: 30, values: 'random', precision: 'single', checksum: '0-4537180826735-154992869210324992' },
  { numWay: 2, numVector: 30, values: 'analytic', precision: 'double', checksum: '0-4463590880879-730217089338372472' },
  { numWay: 3, numVector: 20, values: 'random', precision: 'double', checksum: '0-13323218380069-375755266502870904' },
  { numWay: 3, numVector: 20, values: 'random', precision: 'single', checksum: '0-13323063305477-681334241534935040' },
  { numWay: 3, numVector: 20, values: 'analytic', precision: 'double', checksum: '0-13319397788919-312100611710366392' },
] as const;

describe('naive Czekanowski', () => {
  for (const c of SPEC8_CHECKSUMS) {
    it(`${c.numWay}-way ${c.values} ${c.precision} gives SPEC §8's checksum`, () => {
      const result = naiveCzekanowski({ ...c, numField: 100 });
      expect(result.checksum).toBe(c.checksum);
    });
  }
});
