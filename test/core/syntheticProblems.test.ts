// The fast row generators of the synthetic problems (code per field, packed bytes) equal the per-field definitions of SPEC §4.
import { describe, expect, it } from 'vitest';
import { AnalyticProblem, fillRandomProblemRow, fillRandomProblemRowPacked, randomProblemCode } from '../../src/core/syntheticProblems.js';

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

describe('fillRandomProblemRowPacked', () => {
  const cases: Array<{ v: number; fieldFirst: number; count: number; numField: number }> = [
    { v: 0, fieldFirst: 0, count: 100, numField: 100 },
    { v: 47, fieldFirst: 13, count: 87, numField: 100 },
    { v: 5, fieldFirst: 1, count: 1, numField: 3 },
    { v: 3, fieldFirst: 1000, count: 3003, numField: 5000 },
    { v: 1_000_003, fieldFirst: 70_001, count: 2002, numField: 1 << 20 },
    // More 8-field groups than the randomizer has values: the row wraps around the generator's table.
    { v: 2, fieldFirst: 5, count: 8 * 714_025 + 27, numField: 6_000_000 },
  ];
  for (const c of cases) {
    it(`packs randomProblemCode for v ${c.v}, fields ${c.fieldFirst}..${c.fieldFirst + c.count - 1} of ${c.numField}`, () => {
      const offset = 3;
      const out = new Uint8Array(offset + Math.ceil(c.count / 4) + 2).fill(0xff);
      fillRandomProblemRowPacked(c.v, c.fieldFirst, c.numField, c.count, out, offset);
      const expected = new Uint8Array(out.length).fill(0xff);
      expected.fill(0, offset, offset + Math.ceil(c.count / 4));
      for (let f = 0; f < c.count; f++) expected[offset + (f >> 2)] |= randomProblemCode(c.v, c.fieldFirst + f, c.numField) << (2 * (f & 3));
      expect(out).toEqual(expected);
    });
  }
});

describe('AnalyticProblem.fillRowPacked', () => {
  for (const { numVector, numField, fieldFirst, count } of [
    { numVector: 4, numField: 2, fieldFirst: 0, count: 2 },
    { numVector: 37, numField: 101, fieldFirst: 10, count: 91 },
    { numVector: 1000, numField: 5000, fieldFirst: 1234, count: 2001 },
  ]) {
    it(`packs code() for ${numVector} vectors, fields ${fieldFirst}..${fieldFirst + count - 1} of ${numField}`, () => {
      const problem = new AnalyticProblem(numVector, numField);
      const groups = problem.groupsOfFields(fieldFirst, count);
      for (let v = 0; v < numVector; v += Math.max(1, Math.floor(numVector / 7))) {
        const out = new Uint8Array(Math.ceil(count / 4) + 1).fill(0xff);
        problem.fillRowPacked(v, groups, out, 1);
        const expected = new Uint8Array(out.length).fill(0xff);
        expected.fill(0, 1, 1 + Math.ceil(count / 4));
        for (let f = 0; f < count; f++) expected[1 + (f >> 2)] |= problem.code(v, fieldFirst + f) << (2 * (f & 3));
        expect(out).toEqual(expected);
      }
    });
  }
});
