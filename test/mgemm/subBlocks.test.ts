// cutSubBlocks (how a 2-way request is cut for the GPU): on random requests, chunkings and limits, every needed
// tally (r < c under strictUpper) lies in exactly one sub-block, no sub-block holds anything outside the request or
// straddles a chunk, sub-blocks respect their row, column and output limits, and rows and columns come in whole
// units except at the end of a chunk's range.

import { describe, expect, it } from 'vitest';
import type { PlaneMatrix, PopcountGemmRequest } from '../../src/mgemm/index.js';
import type { PlaneChunk } from '../../src/mgemm/kernels/webgpu/operands/residentPlanes.js';
import type { SubBlock } from '../../src/mgemm/kernels/webgpu/plan/requestPlan.js';
import { cutSubBlocks, type SubBlockLimits } from '../../src/mgemm/kernels/webgpu/plan/subBlocks.js';
import { seededRandom } from './planeFixtures.js';

/** Chunks of `numRows` rows, each at most `rowsPer` (the buffers are never touched: the cut is pure). */
function chunksOf(numRows: number, rowsPer: number): PlaneChunk[] {
  const chunks: PlaneChunk[] = [];
  for (let firstRow = 0; firstRow < numRows; firstRow += rowsPer) {
    chunks.push({ firstRow, numRows: Math.min(rowsPer, numRows - firstRow), buffer: { label: `rows ${firstRow}` } as unknown as GPUBuffer });
  }
  return chunks;
}

const shapeOnly = (numVectors: number): PlaneMatrix => ({ numVectors, numPlanes: 1, wordsPerPlane: 4, words: new Uint32Array(0) });

/** What is wrong with `blocks` as the cut of `request` (empty when nothing). */
function violations(request: PopcountGemmRequest, aChunks: readonly PlaneChunk[], bChunks: readonly PlaneChunk[], limits: SubBlockLimits, blocks: readonly SubBlock[]): string[] {
  const found: string[] = [];
  const covered = new Uint8Array(request.aCount * request.bCount);
  const maxOutWords = Math.min(limits.maxBindingBytes, limits.outputBytes) / 4;
  const rangeEnd = (chunk: PlaneChunk, first: number, count: number): number => Math.min(first + count, chunk.firstRow + chunk.numRows);
  blocks.forEach((blk, k) => {
    const { aChunk, bChunk, rowFirst, numRows, colFirst, numCols } = blk;
    if (!aChunks.includes(aChunk) || !bChunks.includes(bChunk)) found.push(`block ${k}: a chunk not given`);
    if (rowFirst < aChunk.firstRow || rowFirst + numRows > aChunk.firstRow + aChunk.numRows) found.push(`block ${k}: rows outside its A chunk`);
    if (colFirst < bChunk.firstRow || colFirst + numCols > bChunk.firstRow + bChunk.numRows) found.push(`block ${k}: columns outside its B chunk`);
    if (numRows < 1 || numRows > limits.maxRows || numCols < 1 || numCols > limits.maxCols) found.push(`block ${k}: ${numRows} × ${numCols} outside the limits`);
    if (limits.outWords(numRows, numCols) > maxOutWords) found.push(`block ${k}: output of ${limits.outWords(numRows, numCols)} words exceeds ${maxOutWords}`);
    if (numRows % limits.rowUnit !== 0 && rowFirst + numRows !== rangeEnd(aChunk, request.aFirst, request.aCount)) found.push(`block ${k}: ${numRows} rows, not whole units`);
    if (numCols % limits.colUnit !== 0 && colFirst + numCols !== rangeEnd(bChunk, request.bFirst, request.bCount)) found.push(`block ${k}: ${numCols} columns, not whole units`);
    for (let r = rowFirst; r < rowFirst + numRows; r++) {
      for (let c = colFirst; c < colFirst + numCols; c++) {
        const i = r - request.aFirst;
        const j = c - request.bFirst;
        if (i < 0 || i >= request.aCount || j < 0 || j >= request.bCount) found.push(`block ${k}: (${r}, ${c}) outside the request`);
        else covered[i * request.bCount + j]++;
      }
    }
  });
  for (let i = 0; i < request.aCount; i++) {
    for (let j = 0; j < request.bCount; j++) {
      const needed = !request.strictUpper || request.aFirst + i < request.bFirst + j;
      const times = covered[i * request.bCount + j];
      if ((needed && times !== 1) || times > 1) found.push(`(${request.aFirst + i}, ${request.bFirst + j}) in ${times} blocks`);
    }
  }
  return found.slice(0, 5);
}

describe('cutSubBlocks', () => {
  it('covers each needed tally once, within chunks and limits, on random requests', () => {
    const random = seededRandom(29);
    const int = (lo: number, hi: number): number => lo + Math.floor(random() * (hi - lo + 1));
    for (let trial = 0; trial < 300; trial++) {
      const strictUpper = trial % 3 === 0;
      const numVectorsA = int(1, 120);
      const numVectorsB = strictUpper ? numVectorsA : int(1, 120);
      const aFirst = int(0, numVectorsA - 1);
      const aCount = int(1, numVectorsA - aFirst);
      const bFirst = strictUpper ? aFirst : int(0, numVectorsB - 1);
      const bCount = strictUpper ? aCount : int(1, numVectorsB - bFirst);
      const aChunks = chunksOf(numVectorsA, int(1, numVectorsA));
      const bChunks = strictUpper ? aChunks : chunksOf(numVectorsB, int(1, numVectorsB));
      const numGroups = int(1, 4);
      // The u8 kernels' padded outputs or the bitwise kernel's exact ones; one unit block always fits.
      const padded = trial % 2 === 1;
      const rowUnit = padded ? int(1, 8) : 1;
      const colUnit = padded ? int(1, 8) : 1;
      const pad = (n: number, unit: number): number => Math.ceil(n / unit) * unit;
      const outWords = (rows: number, cols: number): number => numGroups * pad(rows, rowUnit) * pad(cols, colUnit);
      const unitBytes = 4 * outWords(rowUnit, colUnit);
      const limits: SubBlockLimits = {
        maxRows: pad(int(1, 60), rowUnit), maxCols: pad(int(1, 60), colUnit), rowUnit, colUnit, outWords,
        outputBytes: unitBytes * int(1, 40), maxBindingBytes: unitBytes * int(1, 40),
      };
      const request: PopcountGemmRequest = {
        a: shapeOnly(numVectorsA), aFirst, aCount, b: shapeOnly(numVectorsB), bFirst, bCount, termGroups: [], strictUpper,
      };
      const blocks = cutSubBlocks(request, aChunks, bChunks, limits);
      expect(violations(request, aChunks, bChunks, limits, blocks), `trial ${trial}`).toEqual([]);
    }
  });

  it('leaves out sub-blocks wholly below the diagonal of a strictUpper request', () => {
    const chunks = chunksOf(64, 64);
    const limits: SubBlockLimits = { maxRows: 16, maxCols: 16, rowUnit: 1, colUnit: 1, outWords: (r, c) => r * c, outputBytes: 1 << 20, maxBindingBytes: 1 << 20 };
    const request: PopcountGemmRequest = { a: shapeOnly(64), aFirst: 0, aCount: 64, b: shapeOnly(64), bFirst: 0, bCount: 64, termGroups: [], strictUpper: true };
    const blocks = cutSubBlocks(request, chunks, chunks, limits);
    // 4 × 4 blocks of 16 × 16: the 6 above the diagonal and the 4 on it.
    expect(blocks.map((b) => `${b.rowFirst}/${b.colFirst}`)).toEqual([
      '0/0', '0/16', '16/16', '0/32', '16/32', '32/32', '0/48', '16/48', '32/48', '48/48',
    ]);
  });
});
