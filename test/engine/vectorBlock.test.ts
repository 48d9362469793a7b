// planesFromPacked (table-driven, a byte pair at a time) builds exactly the planes planesFromCodes builds, for
// every metric layout, odd field counts, and garbage in the unused bits of each vector's last byte.
import { describe, expect, it } from 'vitest';
import type { MetricKind } from '../../src/core/types.js';
import { planeLayout } from '../../src/engine/tallyLayout.js';
import { planesFromCodes, planesFromPacked, type SlabShape } from '../../src/engine/vectorBlock.js';

describe('planesFromPacked', () => {
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
          expect(planesFromPacked(layout, shape, packed)).toEqual(planesFromCodes(layout, shape, rowCodes));
        });
      }
    }
  }
});
