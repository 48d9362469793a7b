// transposeOf (the T[ccm] gather of 3-way device finalize) against indexing the matrix directly: shapes that are and
// are not multiples of its tile, a single row and column, and the cache returning the same transpose.
import { describe, expect, it } from 'vitest';
import { transposeOf } from '../../mgemm/kernels/webgpu/tripleFinalizeWebgpu.js';
import { seededRandom } from './planeFixtures.js';

describe('transposeOf', () => {
  for (const [numRows, numCols] of [[1, 1], [1, 70], [70, 1], [64, 128], [130, 67], [200, 200]]) {
    it(`transposes ${numRows} × ${numCols}`, () => {
      const random = seededRandom(numRows * 1000 + numCols);
      const data = Uint32Array.from({ length: numRows * numCols }, () => Math.floor(random() * 2 ** 32));
      const t = transposeOf({ data, numCols });
      const want = new Uint32Array(data.length);
      for (let r = 0; r < numRows; r++) {
        for (let c = 0; c < numCols; c++) want[c * numRows + r] = data[r * numCols + c];
      }
      expect(t.data).toEqual(want);
      expect(t.numCols).toBe(numRows);
      expect(transposeOf({ data, numCols })).toBe(t);
    });
  }
});
