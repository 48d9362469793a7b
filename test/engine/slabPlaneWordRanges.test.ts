// Blocks of a layout with plane field ranges (epistasis's class planes) carry PlaneMatrix.planeWordRanges
// (planePacking.ts slabPlaneWordRanges): per plane the slab's words of its field range — what a GPU kernel set then
// uploads alone —, and every bit of the block lies inside them, on ragged slabs, built bit by bit or by block workers.
import { describe, expect, it } from 'vitest';
import { epistasisPlaneLayout } from '../../src/analyses/epistasis/epistasisPlanes.js';
import { buildBlock } from '../../src/engine/blocks/blockBuild.js';
import { slabPlaneWordRanges } from '../../src/engine/blocks/planePacking.js';
import { planesFromCodes, type SlabShape } from '../../src/engine/blocks/vectorBlock.js';
import type { PlaneMatrix } from '../../src/mgemm/index.js';
import { randomProblemCode } from '../../src/core/syntheticProblems.js';
import { planeLayout } from '../helpers/layouts.js';

const NUM_FIELD = 100;
const NUM_CONTROLS = 45;
const layout = epistasisPlaneLayout({ numControls: NUM_CONTROLS, numField: NUM_FIELD, sparse: true });

/** Slabs of the 100 fields: whole, ragged, one inside the controls, one past them. */
const SLABS: readonly { readonly fieldFirst: number; readonly numFieldLocal: number }[] = [
  { fieldFirst: 0, numFieldLocal: 100 }, { fieldFirst: 30, numFieldLocal: 50 }, { fieldFirst: 3, numFieldLocal: 33 }, { fieldFirst: 64, numFieldLocal: 36 },
];

/** Words of row r, plane p set outside [first, end). */
function bitsOutside(planes: PlaneMatrix, r: number, p: number, [first, end]: readonly [number, number]): number {
  let outside = 0;
  const base = (r * planes.numPlanes + p) * planes.wordsPerPlane;
  for (let w = 0; w < planes.wordsPerPlane; w++) if ((w < first || w >= end) && planes.words[base + w] !== 0) outside++;
  return outside;
}

describe('slabPlaneWordRanges', () => {
  it('gives each plane the slab\'s words of its class\'s fields (empty where the slab holds none)', () => {
    // Controls [0, 45), cases [45, 100); three planes each.
    const controlsThenCases = (controls: readonly [number, number], cases: readonly [number, number]): (readonly [number, number])[] =>
      [controls, controls, controls, cases, cases, cases];
    expect(slabPlaneWordRanges(layout, 0, 100)).toEqual(controlsThenCases([0, 2], [1, 4]));
    expect(slabPlaneWordRanges(layout, 30, 50)).toEqual(controlsThenCases([0, 1], [0, 2]));
    expect(slabPlaneWordRanges(layout, 64, 36)).toEqual(controlsThenCases([0, 0], [0, 2]));
    expect(slabPlaneWordRanges(layout, 3, 33)).toEqual(controlsThenCases([0, 2], [1, 1]));
  });

  it('is null for a layout without plane field ranges', () => {
    expect(slabPlaneWordRanges(planeLayout('ccc', true), 0, 100)).toBeNull();
  });

  for (const slab of SLABS) {
    it(`blocks carry them and have no bit outside them: fields [${slab.fieldFirst}, +${slab.numFieldLocal})`, async () => {
      const shape: SlabShape = { numVectorLocal: 12, vectorFirst: 4, numVectorReal: 9, ...slab };
      const expected = slabPlaneWordRanges(layout, slab.fieldFirst, slab.numFieldLocal);
      const bitByBit = planesFromCodes(layout, shape, (v, fieldFirst, out) => {
        for (let f = 0; f < out.length; f++) out[f] = randomProblemCode(v, fieldFirst + f, NUM_FIELD);
      });
      const built = await buildBlock({ kind: 'random' }, 20, NUM_FIELD, layout, shape, { numThreads: 2, minFieldsPerThread: 1 });
      for (const planes of [bitByBit, built]) {
        expect(planes.planeWordRanges).toEqual(expected);
        let setWords = 0;
        for (let r = 0; r < shape.numVectorLocal; r++) {
          for (let p = 0; p < layout.numPlanes; p++) {
            expect(bitsOutside(planes, r, p, expected![p]!)).toBe(0);
            setWords += bitsOutside(planes, r, p, [0, 0]);
          }
        }
        // The random problem leaves few words empty: the ranges did not hold an empty block.
        expect(setWords).toBeGreaterThan(0);
      }
    });
  }
});
