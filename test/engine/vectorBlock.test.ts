// packRowPlanes (table-driven, a byte pair at a time; what blocks are built with) gives exactly the planes
// planesFromCodes builds bit by bit, for every metric layout, odd field counts, and garbage in the unused bits of
// each vector's last byte.
import { describe, expect, it } from 'vitest';
import { allocatePlaneMatrix, type PlaneMatrix } from '../../src/mgemm/index.js';
import type { MetricKind } from '../../src/core/types.js';
import { packRowPlanes, planePackingTable, slabPlaneWordRanges } from '../../src/engine/blocks/planePacking.js';
import { planeLayout, type PlaneLayout } from '../helpers/layouts.js';
import { planesFromCodes, type SlabShape } from '../../src/engine/blocks/vectorBlock.js';

/** The slab's planes from packed rows (`ceil(numFieldLocal/4)` bytes each), one packRowPlanes call per row. */
function planesOfPackedRows(layout: PlaneLayout, shape: SlabShape, packed: Uint8Array): PlaneMatrix {
  const planes = allocatePlaneMatrix(shape.numVectorLocal, layout.numPlanes, shape.numFieldLocal);
  const { wordsPerPlane, words, numPlanes } = planes;
  const table = planePackingTable(layout);
  const bytesPerVector = Math.ceil(shape.numFieldLocal / 4);
  for (let r = 0; r < shape.numVectorReal; r++) {
    packRowPlanes(table, packed, r * bytesPerVector, shape.numFieldLocal, { words, rowBase: r * numPlanes * wordsPerPlane, numPlanes, wordsPerPlane });
  }
  // As blocks carry them (none for these layouts).
  return { ...planes, planeWordRanges: slabPlaneWordRanges(layout, shape.fieldFirst, shape.numFieldLocal) };
}

describe('packRowPlanes', () => {
  for (const metric of ['ccc', 'duo', 'r2'] as MetricKind[]) {
    for (const sparse of [false, true]) {
      for (const numField of [1, 3, 4, 31, 32, 33, 63, 64, 65, 129, 250]) {
        it(`${metric} ${sparse ? 'sparse' : 'dense'} ${numField} fields`, () => {
          const layout = planeLayout(metric, sparse);
          const shape: SlabShape = { numVectorLocal: 8, vectorFirst: 100, numVectorReal: 5, fieldFirst: 7, numFieldLocal: numField };
          const bytesPerVector = Math.ceil(numField / 4);
          let s = 12345 + numField;
          const packed = Uint8Array.from({ length: shape.numVectorReal * bytesPerVector }, () => {
            s = (s * 1103515245 + 12345) >>> 0;
            return s >>> 24;
          });
          const code = (v: number, f: number): number => {
            const r = v - shape.vectorFirst, fl = f - shape.fieldFirst;
            return (packed[r * bytesPerVector + (fl >> 2)] >> ((fl & 3) * 2)) & 3;
          };
          const rowCodes = (v: number, fieldFirst: number, out: Uint8Array): void => {
            for (let f = 0; f < out.length; f++) out[f] = code(v, fieldFirst + f);
          };
          expect(planesOfPackedRows(layout, shape, packed)).toEqual(planesFromCodes(layout, shape, rowCodes));
        });
      }
    }
  }
});
