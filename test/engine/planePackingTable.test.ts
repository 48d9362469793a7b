// planePackingTable against its definition: entry (plane p, two packed bytes) has bit k = plane p's bit of the code of
// field k of the 8 fields (SPEC §1: 4 fields a byte, LSB first), for every pair of bytes and every plane of the built-in
// layouts with the most planes (epistasis's six class planes, KING's four, CCC's).
import { describe, expect, it } from 'vitest';
import { epistasisPlaneLayout } from '../../src/analyses/epistasis/epistasisPlanes.js';
import { kingPlaneLayout } from '../../src/analyses/king/kingCounts.js';
import { planePackingTable } from '../../src/engine/blocks/planePacking.js';
import { planeLayout, type PlaneLayout } from '../helpers/layouts.js';

/** The table entry by its definition, one field at a time. */
function entryByDefinition(layout: PlaneLayout, plane: number, pair: number): number {
  let bits = 0;
  for (let field = 0; field < 8; field++) {
    const code = (pair >> (2 * field)) & 3;
    bits |= ((layout.bitsOfCode[code] >> plane) & 1) << field;
  }
  return bits;
}

describe('planePackingTable', () => {
  const layouts: readonly { readonly name: string; readonly layout: PlaneLayout }[] = [
    { name: 'epistasis', layout: epistasisPlaneLayout({ numControls: 5, numField: 12, sparse: true }) },
    { name: 'KING', layout: kingPlaneLayout() },
    { name: 'CCC sparse', layout: planeLayout('ccc', true) },
  ];
  for (const { name, layout } of layouts) {
    it(`${name}: every entry of every plane`, () => {
      const table = planePackingTable(layout);
      expect(table.length).toBe(layout.numPlanes << 16);
      const mismatches: string[] = [];
      for (let plane = 0; plane < layout.numPlanes; plane++) {
        for (let pair = 0; pair < 1 << 16; pair++) {
          const expected = entryByDefinition(layout, plane, pair);
          if (table[(plane << 16) + pair] !== expected && mismatches.length < 5) mismatches.push(`plane ${plane} pair ${pair}`);
        }
      }
      expect(mismatches).toEqual([]);
    });
  }
});
