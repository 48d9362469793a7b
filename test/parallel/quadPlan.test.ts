// The 4-way plan: every quadruple i < j < k < l exactly once over all parts (ranks × phases × stages), for several
// vector counts, tile shapes and part counts; pair orders and per-tile counts against direct enumeration.
import { describe, expect, it } from 'vitest';
import {
  colPairsOf, firstColPairOf, quadPlan, quadsOfTile, quadTiles, rowPairIndex, rowPairsOf, type QuadTile,
} from '../../src/parallel/index.js';

/** The unique quadruples of a tile, enumerated cell by cell from its decoded pairs. */
function quadsIn(numVector: number, tile: QuadTile): string[] {
  const rows = rowPairsOf(tile.rowFirst, tile.rowEnd);
  const cols = colPairsOf(numVector, tile.colFirst, tile.colEnd);
  const quads: string[] = [];
  for (let r = 0; r < rows.i.length; r++) {
    for (let c = 0; c < cols.k.length; c++) {
      if (rows.j[r] < cols.k[c]) quads.push(`${rows.i[r]},${rows.j[r]},${cols.k[c]},${cols.l[c]}`);
    }
  }
  return quads;
}

describe('quad plan', () => {
  it('pair orders: row pairs j-major, column pairs k-major, each index once', () => {
    for (const nv of [4, 7, 30]) {
      const numPairs = (nv * (nv - 1)) / 2;
      const rows = rowPairsOf(0, numPairs);
      const cols = colPairsOf(nv, 0, numPairs);
      const wantRows: string[] = [];
      for (let j = 1; j < nv; j++) for (let i = 0; i < j; i++) wantRows.push(`${i},${j}`);
      const wantCols: string[] = [];
      for (let k = 0; k < nv; k++) for (let l = k + 1; l < nv; l++) wantCols.push(`${k},${l}`);
      expect(Array.from(rows.i, (i, r) => `${i},${rows.j[r]}`)).toEqual(wantRows);
      expect(Array.from(cols.k, (k, c) => `${k},${cols.l[c]}`)).toEqual(wantCols);
      for (let r = 0; r < numPairs; r++) expect(rowPairIndex(rows.i[r], rows.j[r])).toBe(r);
      // A slice starting mid-list decodes the same pairs.
      const mid = Math.floor(numPairs / 3);
      expect(Array.from(colPairsOf(nv, mid, numPairs).k)).toEqual(Array.from(cols.k.subarray(mid)));
      expect(Array.from(rowPairsOf(mid, numPairs).j)).toEqual(Array.from(rows.j.subarray(mid)));
      expect(firstColPairOf(nv, nv - 1)).toBe(numPairs);
    }
  });

  it('every quadruple exactly once over the parts; quadsOfTile counts them', () => {
    for (const [nv, rowsPerTile, colsPerTile] of [[4, 128, 256], [9, 5, 7], [17, 13, 29], [23, 40, 11]] as const) {
      const want: string[] = [];
      for (let i = 0; i < nv; i++) for (let j = i + 1; j < nv; j++) for (let k = j + 1; k < nv; k++) for (let l = k + 1; l < nv; l++) want.push(`${i},${j},${k},${l}`);
      for (const tile of quadTiles(nv, rowsPerTile, colsPerTile)) expect(tile.work).toBe(quadsIn(nv, tile.tile).length);
      for (const numPart of [1, 3, 8]) {
        const got: string[] = [];
        const works: number[] = [];
        for (let part = 0; part < numPart; part++) {
          const tiles = quadPlan({ numVector: nv, rowsPerTile, colsPerTile, numPart, partIdx: part });
          for (const tile of tiles) got.push(...quadsIn(nv, tile));
          works.push(tiles.reduce((sum, tile) => sum + quadsOfTile(nv, tile), 0));
        }
        expect(got.sort()).toEqual([...want].sort());
        expect(works.reduce((a, b) => a + b, 0)).toBe(want.length);
      }
    }
  });

  it('refuses fewer than 4 vectors and a part out of range', () => {
    expect(() => quadPlan({ numVector: 3, rowsPerTile: 8, colsPerTile: 8, numPart: 1, partIdx: 0 })).toThrow(/at least 4 vectors/);
    expect(() => quadPlan({ numVector: 9, rowsPerTile: 8, colsPerTile: 8, numPart: 2, partIdx: 2 })).toThrow(RangeError);
  });
});
