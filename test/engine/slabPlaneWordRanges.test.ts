// Blocks of a layout with plane field ranges (epistasis's class planes) carry PlaneMatrix.planeWordRanges
// (planePacking.ts slabPlaneWordRanges): per plane the slab's words of its field range — what a GPU kernel set then
// uploads alone —, and every bit of the block lies inside them, on ragged slabs, built bit by bit or by block workers
// (which pack each plane only within its range, planeWordSegments, and clear the rest) or on one thread (natively,
// every word, then masked).
import { describe, expect, it } from 'vitest';
import { epistasisPlaneLayout } from '../../src/analyses/epistasis/epistasisPlanes.js';
import { buildBlock } from '../../src/engine/blocks/blockBuild.js';
import {
  maskPlaneFieldRanges, packRowPlanes, planePackingTable, planeWordSegments, slabPlaneWordRanges,
} from '../../src/engine/blocks/planePacking.js';
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
      expect(built.words).toEqual(bitByBit.words);
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

describe('blocks of packed codes with plane field ranges', () => {
  // Random 2-bit codes of 20 vectors in memory (SPEC §1, pad fields zero): one thread packs them natively where the
  // addon is built (every word, then masked), block workers in JavaScript (within the ranges); both as bit by bit.
  const numVector = 20;
  const bytesPerVector = Math.ceil(NUM_FIELD / 4);
  const codeOf = (v: number, f: number): number => ((v * 7919 + f * 104729) * 2654435761 >>> 28) & 3;
  const packed = new Uint8Array(new SharedArrayBuffer(numVector * bytesPerVector));
  for (let v = 0; v < numVector; v++) for (let f = 0; f < NUM_FIELD; f++) packed[v * bytesPerVector + (f >> 2)] |= codeOf(v, f) << (2 * (f & 3));
  const state = new Int32Array(new SharedArrayBuffer(4));
  state[0] = 1;
  for (const slab of SLABS) {
    it(`fields [${slab.fieldFirst}, +${slab.numFieldLocal}): on one thread and by block workers as bit by bit`, async () => {
      const shape: SlabShape = { numVectorLocal: 12, vectorFirst: 4, numVectorReal: 9, ...slab };
      const bitByBit = planesFromCodes(layout, shape, (v, fieldFirst, out) => {
        for (let f = 0; f < out.length; f++) out[f] = codeOf(v, fieldFirst + f);
      });
      expect(bitByBit.words.some((w) => w !== 0)).toBe(true);
      for (const numThreads of [1, 2]) {
        const built = await buildBlock({ kind: 'memory', packed, state }, numVector, NUM_FIELD, layout, shape, { numThreads, minFieldsPerThread: 1 });
        expect(built.words, `${numThreads} threads`).toEqual(bitByBit.words);
        expect(built.planeWordRanges).toEqual(bitByBit.planeWordRanges);
      }
    });
  }
});

describe('planeWordSegments', () => {
  it('cuts a row where ranges start or end, each piece with the planes whose range holds it', () => {
    expect(planeWordSegments([[0, 2], [0, 2], [1, 4], [1, 4]], 4, 4)).toEqual([
      { first: 0, end: 1, planes: [0, 1] }, { first: 1, end: 2, planes: [0, 1, 2, 3] }, { first: 2, end: 4, planes: [2, 3] },
    ]);
    // A null range is the whole plane; an empty one holds no word; words no plane wants are left out.
    expect(planeWordSegments([[5, 5], null, [2, 3]], 3, 8)).toEqual([
      { first: 0, end: 2, planes: [1] }, { first: 2, end: 3, planes: [1, 2] }, { first: 3, end: 5, planes: [1] }, { first: 5, end: 8, planes: [1] },
    ]);
    expect(planeWordSegments([[1, 2], [6, 7]], 2, 8)).toEqual([{ first: 1, end: 2, planes: [0] }, { first: 6, end: 7, planes: [1] }]);
  });

  it('packing within the segments and masking gives the planes of packing whole rows and masking, over any old words', () => {
    for (const slab of SLABS) {
      const numField = slab.numFieldLocal;
      const wordsPerPlane = Math.ceil(Math.ceil(numField / 32) / 4) * 4;
      const rowWords = layout.numPlanes * wordsPerPlane;
      const bytesPerRow = Math.ceil(numField / 4);
      const packed = Uint8Array.from({ length: 3 * bytesPerRow }, (_, k) => (k * 2654435761) >>> 24);
      const table = planePackingTable(layout);
      const segments = planeWordSegments(slabPlaneWordRanges(layout, slab.fieldFirst, numField)!, layout.numPlanes, wordsPerPlane);
      const [whole, within] = [new Uint32Array(3 * rowWords), new Uint32Array(3 * rowWords).fill(0xdeadbeef)];
      for (let r = 0; r < 3; r++) {
        packRowPlanes(table, packed, r * bytesPerRow, numField, { words: whole, rowBase: r * rowWords, numPlanes: layout.numPlanes, wordsPerPlane });
        packRowPlanes(table, packed, r * bytesPerRow, numField, { words: within, rowBase: r * rowWords, numPlanes: layout.numPlanes, wordsPerPlane, segments });
      }
      for (const words of [whole, within]) maskPlaneFieldRanges(layout, slab.fieldFirst, numField, { words, numPlanes: layout.numPlanes, wordsPerPlane }, 0, 3);
      // Alignment padding past the slab's words is not the packers' (a fresh matrix holds zeros there).
      for (let r = 0; r < 3; r++) {
        for (let p = 0; p < layout.numPlanes; p++) {
          const base = r * rowWords + p * wordsPerPlane;
          const used = Math.ceil(numField / 32);
          expect(Array.from(within.subarray(base, base + used)), `fields [${slab.fieldFirst}, +${numField}) row ${r} plane ${p}`).toEqual(Array.from(whole.subarray(base, base + used)));
        }
      }
      expect(whole.some((w) => w !== 0)).toBe(true);
    }
  });
});
