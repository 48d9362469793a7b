// Checksum weights: the row-wise forms the engine uses equal the per-entry definition of SPEC §5.
import { describe, expect, it } from 'vitest';
import { checksumWeight, entryUid2, entryUid3, pairRowEntryWeights, pairRowWeights, tripleRowWeights, tupleValuePairWeights } from '../../src/core/checksum.js';

describe('pairRowWeights', () => {
  const cases = [
    { nv: 48, i: 0, jFirst: 1, numCols: 47 },
    { nv: 48, i: 47, jFirst: 0, numCols: 47 },
    { nv: 48, i: 20, jFirst: 21, numCols: 10 },
    { nv: 1_000_000, i: 999_998, jFirst: 700_000, numCols: 300 },
    { nv: 3_000_000, i: 5, jFirst: 2_999_000, numCols: 1000 },
    { nv: 3_000_000, i: 2_999_999, jFirst: 0, numCols: 1000 },
    { nv: 100_000, i: 50_000, jFirst: 50_001, numCols: 49_999 },
  ];
  for (const c of cases) {
    it(`equals checksumWeight(entryUid2) for nv ${c.nv}, i ${c.i}, j ${c.jFirst}+${c.numCols}`, () => {
      const out = new Float64Array(4 * c.numCols);
      pairRowWeights(c.nv, c.i, c.jFirst, c.numCols, out);
      const expected: number[] = [];
      for (let t = 0; t < c.numCols; t++) {
        for (let e = 0; e < 4; e++) expected.push(checksumWeight(entryUid2(c.nv, c.i, e >> 1, c.jFirst + t, e & 1)));
      }
      expect(Array.from(out)).toEqual(expected);
    });
  }
});

describe('pairRowEntryWeights', () => {
  const cases = [
    { nv: 48, i: 0, jFirst: 1, numCols: 47 },
    { nv: 48, i: 47, jFirst: 0, numCols: 47 },
    { nv: 48, i: 20, jFirst: 5, numCols: 40 },
    { nv: 3_000_000, i: 2_999_999, jFirst: 0, numCols: 1000 },
    { nv: 100_000, i: 50_000, jFirst: 49_500, numCols: 1000 },
  ];
  for (const c of cases) {
    it(`equals checksumWeight(entryUid2) of each entry for nv ${c.nv}, i ${c.i}, j ${c.jFirst}+${c.numCols}`, () => {
      const js = Array.from({ length: c.numCols }, (_, t) => c.jFirst + t);
      // A row never holds j = i: each side of it is a run of its own.
      const runs = [js.filter((j) => j < c.i), js.filter((j) => j > c.i)].filter((run) => run.length > 0);
      for (const run of runs) {
        for (let e = 0; e < 4; e++) {
          const out = new Float64Array(run.length);
          pairRowEntryWeights(c.nv, c.i, e >> 1, run[0], e & 1, run.length, out);
          expect(Array.from(out)).toEqual(run.map((j) => checksumWeight(entryUid2(c.nv, c.i, e >> 1, j, e & 1))));
        }
      }
    });
  }
});

describe('tripleRowWeights', () => {
  const cases = [
    { nv: 36, i: 5, j: 17, kFirst: 0, numK: 36 },
    { nv: 36, i: 30, j: 2, kFirst: 0, numK: 36 },
    { nv: 20_000, i: 19_999, j: 7, kFirst: 9_000, numK: 200 },
  ];
  for (const c of cases) {
    it(`equals checksumWeight(entryUid3) for nv ${c.nv}, i ${c.i}, j ${c.j}, k ${c.kFirst}+${c.numK}`, () => {
      const ks = Array.from({ length: c.numK }, (_, t) => c.kFirst + t).filter((k) => k !== c.i && k !== c.j);
      // Rows never contain i or j; test each maximal run of valid k separately.
      for (const k of ks) {
        const out = new Float64Array(8);
        tripleRowWeights(c.nv, c.i, c.j, k, 1, out);
        const expected = Array.from({ length: 8 }, (_, e) =>
          checksumWeight(entryUid3(c.nv, c.i, e >> 2, c.j, (e >> 1) & 1, k, e & 1)));
        expect(Array.from(out)).toEqual(expected);
      }
      const run = ks.filter((k) => k > Math.max(c.i, c.j));
      if (run.length > 0) {
        const out = new Float64Array(8 * run.length);
        tripleRowWeights(c.nv, c.i, c.j, run[0], run.length, out);
        expect(out[8 * (run.length - 1) + 5]).toBe(checksumWeight(entryUid3(c.nv, c.i, 1, c.j, 0, run[run.length - 1], 1)));
      }
    });
  }
});

describe('tripleRowWeights over long runs', () => {
  // Each run of k below, between and above i and j, in one call, against the per-entry definition.
  const cases = [
    { nv: 40, i: 11, j: 29 },
    { nv: 40, i: 29, j: 11 },
    { nv: 5000, i: 4998, j: 3 },
    { nv: 20_000, i: 19_990, j: 19_995 },
  ];
  for (const c of cases) {
    it(`equals checksumWeight(entryUid3) for nv ${c.nv}, i ${c.i}, j ${c.j}`, () => {
      const lower = Math.min(c.i, c.j);
      const upper = Math.max(c.i, c.j);
      for (const [first, end] of [[0, lower], [lower + 1, upper], [upper + 1, c.nv]]) {
        const numK = Math.min(end - first, 700);
        if (numK <= 0) continue;
        const out = new Float64Array(8 * numK);
        tripleRowWeights(c.nv, c.i, c.j, first, numK, out);
        const expected: number[] = [];
        for (let t = 0; t < numK; t++) {
          for (let e = 0; e < 8; e++) expected.push(checksumWeight(entryUid3(c.nv, c.i, e >> 2, c.j, (e >> 1) & 1, first + t, e & 1)));
        }
        expect(Array.from(out)).toEqual(expected);
      }
    });
  }
});

describe('tupleValuePairWeights', () => {
  const cases = [
    { nv: 48, i: 0, jFirst: 1, numCols: 47 },
    { nv: 48, i: 47, jFirst: 0, numCols: 47 },
    { nv: 48, i: 20, jFirst: 3, numCols: 40 },
    { nv: 3_000_000, i: 2_999_999, jFirst: 0, numCols: 1000 },
    { nv: 3_000_000, i: 1_500_000, jFirst: 1_499_500, numCols: 1000 },
  ];
  for (const c of cases) {
    it(`equals checksumWeight(max·nv + min) for nv ${c.nv}, i ${c.i}, j ${c.jFirst}+${c.numCols}`, () => {
      const out = new Float64Array(c.numCols);
      tupleValuePairWeights(c.nv, c.i, c.jFirst, c.numCols, out);
      const expected = Array.from({ length: c.numCols }, (_, t) => {
        const j = c.jFirst + t;
        return checksumWeight(Math.max(c.i, j) * c.nv + Math.min(c.i, j));
      });
      expect(Array.from(out)).toEqual(expected);
    });
  }
});
