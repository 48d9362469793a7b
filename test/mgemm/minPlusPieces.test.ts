// The min-plus request planner (webgpu/minplus/minPlusPieces.ts), pure: over random chunkings of the operands and
// output caps, the packed pieces cover every needed output cell exactly once (2-way: all, or those above the diagonal
// with strictUpper; 3-way: every slice's), each within one chunk per operand, and every submit fits its cap.
import { describe, expect, it } from 'vitest';
import { packPieces, pairPieces, triplePieces, type ChunkRows } from '../../src/mgemm/kernels/webgpu/minplus/minPlusPieces.js';
import type { PlaneMatrix } from '../../src/mgemm/index.js';
import { seededRandom } from './planeFixtures.js';

const matrix = (numVectors: number): PlaneMatrix => ({ numVectors, numPlanes: 64, wordsPerPlane: 4, words: new Uint32Array(0) });

function chunking(numRows: number, random: () => number): ChunkRows[] {
  const chunks: ChunkRows[] = [];
  for (let first = 0; first < numRows;) {
    const n = Math.min(numRows - first, 1 + Math.floor(random() * 20));
    chunks.push({ firstRow: first, numRows: n });
    first += n;
  }
  return chunks;
}

describe('min-plus pieces', () => {
  const random = seededRandom(25);
  for (let trial = 0; trial < 20; trial++) {
    const strictUpper = trial % 2 === 1;
    it(`2-way trial ${trial}${strictUpper ? ', strictUpper' : ''}: each needed cell once, submits within the cap`, () => {
      const n = 20 + Math.floor(random() * 40);
      const a = matrix(n);
      const request = strictUpper
        ? { a, aFirst: 0, aCount: n, b: a, bFirst: 0, bCount: n, termGroups: [], strictUpper }
        : { a, aFirst: 3, aCount: n - 5, b: a, bFirst: 1, bCount: n - 2, termGroups: [], strictUpper };
      const chunks = chunking(n, random);
      const cap = 10 + Math.floor(random() * 200);
      const submits = packPieces(pairPieces(request, chunks, chunks), 2, cap);
      const hits = new Uint8Array(request.aCount * request.bCount);
      for (const submit of submits) {
        expect(submit.groupWords).toBeLessThanOrEqual(cap);
        for (const p of submit.pieces) {
          expect(p.chunkRows[0] + p.numRows).toBeLessThanOrEqual(chunks[p.chunks[0]].numRows);
          expect(p.chunkRows[1] + p.numCols).toBeLessThanOrEqual(chunks[p.chunks[1]].numRows);
          for (let r = 0; r < p.numRows; r++) for (let c = 0; c < p.numCols; c++) hits[(p.rowFirst + r) * request.bCount + p.colFirst + c]++;
        }
      }
      for (let r = 0; r < request.aCount; r++) {
        for (let c = strictUpper ? r + 1 : 0; c < request.bCount; c++) expect(hits[r * request.bCount + c]).toBe(1);
      }
      expect(Math.max(...hits)).toBe(1);
    });
  }

  it('3-way: every cell of every slice once, the y row in its chunk', () => {
    const x = matrix(50);
    const slices = [{ yRow: 0, xFirst: 0, xCount: 50, zFirst: 0, zCount: 50 }, { yRow: 33, xFirst: 7, xCount: 20, zFirst: 41, zCount: 9 }];
    const chunks = chunking(50, random);
    const submits = packPieces(triplePieces({ x, y: x, z: x, planePairs: [], termGroups: [], slices }, { x: chunks, y: chunks, z: chunks }), 3, 77);
    const hits = slices.map((s) => new Uint8Array(s.xCount * s.zCount));
    for (const submit of submits) {
      for (const p of submit.pieces) {
        const slice = slices[p.target];
        expect(chunks[p.chunks[1]].firstRow + p.chunkRows[1]).toBe(slice.yRow);
        for (let r = 0; r < p.numRows; r++) for (let c = 0; c < p.numCols; c++) hits[p.target][(p.rowFirst + r) * slice.zCount + p.colFirst + c]++;
      }
    }
    for (const h of hits) expect([...h].every((count) => count === 1)).toBe(true);
  });
});
