// The fast row generator of the random problem equals the per-field definition of SPEC §4.
import { describe, expect, it } from 'vitest';
import { fillRandomProblemRow, randomProblemCode } from '../../src/core/syntheticProblems.js';

describe('fillRandomProblemRow', () => {
  const cases: Array<{ v: number; fieldFirst: number; count: number; numField: number }> = [
    { v: 0, fieldFirst: 0, count: 100, numField: 100 },
    { v: 47, fieldFirst: 13, count: 87, numField: 100 },
    { v: 3, fieldFirst: 1000, count: 3000, numField: 5000 },
    // uid = f + nf·v beyond 2^31 and across several multiples of the randomizer's modulus.
    { v: 1_000_003, fieldFirst: 70_000, count: 2000, numField: 1 << 20 },
    { v: 2 ** 20, fieldFirst: 0, count: 1500, numField: 2 ** 22 },
  ];
  for (const c of cases) {
    it(`equals randomProblemCode for v ${c.v}, fields ${c.fieldFirst}..${c.fieldFirst + c.count - 1} of ${c.numField}`, () => {
      const out = new Uint8Array(c.count);
      fillRandomProblemRow(c.v, c.fieldFirst, c.numField, out);
      const expected = Uint8Array.from({ length: c.count }, (_, f) => randomProblemCode(c.v, c.fieldFirst + f, c.numField));
      expect(out).toEqual(expected);
      // The generator must produce all four codes on a long row (guards against a constant table).
      if (c.count >= 1000) expect(new Set(out).size).toBe(4);
    });
  }
});
