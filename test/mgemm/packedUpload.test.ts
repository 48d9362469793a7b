// Matrices whose planes are zero outside word ranges (PlaneMatrix.planeWordRanges, epistasis's class planes) cross to
// the GPU packed — only the words of each plane's range — and are written out whole there (residentPlanes.ts,
// unpackPlanesProgram.ts): the tallies and vector sums are those of the host's matrix, only the packed words are
// uploaded, over chunks of a small binding, staging pieces of many rows and rows that arrive while they upload.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createPopcountGemmWebgpu, type PlaneMatrix, type PlaneWordRange, type PopcountGemmRequest, type PopcountGemmWebgpu, type TermGroup,
  type WebgpuPopcountGemmOptions,
} from '../../src/mgemm/index.js';
import { PopcountGemmRef } from '../../src/mgemm/kernels/ref/popcountGemmRef.js';
import { packedPlaneRowsOf, packedRowWords } from '../../src/mgemm/kernels/webgpu/programs/unpackPlanesProgram.js';
import { webgpuGate } from '../helpers/webgpuGate.js';
import { neededMismatches, planesFromFieldBits, randomFieldBits, seededRandom, type FieldBits } from './planeFixtures.js';

const gate = await webgpuGate();

const NUM_PLANES = 4;
/** Word ranges of planes of 50 words (1570 fields): ragged bounds, a plane without range, an empty one. */
const RANGES: readonly (PlaneWordRange | null)[] = [[0, 21], [21, 50], null, [7, 7]];
const TERM_GROUPS: readonly TermGroup[] = [[[0, 0]], [[0, 1]], [[1, 1], [2, 0]], [[2, 2]], [[1, 2]]];
/** Groups the u8 kernels take whole (products of plane sums). */
const FACTORED_GROUPS: readonly TermGroup[] = [[[0, 0]], [[0, 1]], [[1, 1]], [[2, 2]], [[1, 2], [0, 2]]];

/** Random planes of `numVectors` rows with every bit outside its plane's range cleared, carrying the ranges. */
function rangedPlanes(seed: number, numVectors: number, numField: number, ranges: readonly (PlaneWordRange | null)[]): PlaneMatrix {
  const bits: FieldBits = randomFieldBits(seededRandom(seed), numVectors, ranges.length, numField, 0.5).map((planes) => planes.map((fields, p) => {
    const range = ranges[p];
    return fields.map((bit, f) => (range === null || (f >= 32 * range[0] && f < 32 * range[1]) ? bit : 0));
  }));
  return { ...planesFromFieldBits(bits, ranges.length, numField, true), planeWordRanges: ranges };
}

/** Bytes a matrix crosses as when packed. */
function packedBytes(matrix: PlaneMatrix): number {
  const packed = packedPlaneRowsOf(matrix);
  if (packed === null) throw new Error('not packed');
  return matrix.numVectors * packedRowWords(packed) * 4;
}

/** Popcount of words [first, end) of plane p of row r. */
function planePopcount(m: PlaneMatrix, r: number, p: number): number {
  let sum = 0;
  const base = (r * m.numPlanes + p) * m.wordsPerPlane;
  for (let w = base; w < base + m.wordsPerPlane; w++) {
    let x = m.words[w];
    while (x !== 0) {
      x &= x - 1;
      sum++;
    }
  }
  return sum;
}

describe('packedPlaneRowsOf', () => {
  const shape = { numPlanes: 3, wordsPerPlane: 40 };
  it('packs the ranges (a null one whole, clamped to the plane) when they leave out a quarter of a row or more', () => {
    expect(packedPlaneRowsOf({ ...shape, planeWordRanges: [[0, 20], [20, 40], [5, 90]] })).toEqual({ ...shape, ranges: [[0, 20], [20, 40], [5, 40]] });
    expect(packedPlaneRowsOf({ ...shape, planeWordRanges: [[0, 10], null, [3, 3]] })).toEqual({ ...shape, ranges: [[0, 10], [0, 40], [3, 3]] });
  });
  it('sends whole rows without ranges, or when they save less than a quarter', () => {
    expect(packedPlaneRowsOf({ ...shape })).toBeNull();
    expect(packedPlaneRowsOf({ ...shape, planeWordRanges: null })).toBeNull();
    expect(packedPlaneRowsOf({ ...shape, planeWordRanges: [[0, 40], [0, 40], [0, 11]] })).toBeNull();
    expect(packedPlaneRowsOf({ ...shape, planeWordRanges: [[0, 40], [0, 40], [0, 10]] })).not.toBeNull();
  });
});

const OPTION_SETS: readonly { readonly name: string; readonly options: WebgpuPopcountGemmOptions; readonly groups: readonly TermGroup[] }[] = [
  { name: 'bitwise', options: { kernel: 'bitwise' }, groups: TERM_GROUPS },
  // 4 KiB bindings: chunks of a few rows, each its own packed upload.
  { name: 'bitwise, 4 KiB bindings', options: { kernel: 'bitwise', maxBindingBytes: 4096 }, groups: TERM_GROUPS },
  { name: 'u8 dot4', options: { kernel: 'dot4' }, groups: FACTORED_GROUPS },
];

describe.skipIf(!gate.available)(`packed uploads on ${gate.description}`, () => {
  const ref = new PopcountGemmRef();
  describe.each(OPTION_SETS)('$name', ({ options, groups }) => {
    let gemm: PopcountGemmWebgpu;
    beforeAll(async () => {
      gemm = await createPopcountGemmWebgpu(options);
    });
    afterAll(async () => {
      await gemm.close();
    });

    it.each([false, true])('gives the tallies of the host\'s matrices, uploading only their ranges\' words (strictUpper %s)', async (strictUpper) => {
      const a = rangedPlanes(3, 45, 1570, RANGES);
      const b = strictUpper ? a : rangedPlanes(4, 39, 1570, RANGES);
      const request: PopcountGemmRequest = {
        a, aFirst: 2, aCount: 41, b, bFirst: strictUpper ? 2 : 0, bCount: strictUpper ? 41 : 39, termGroups: groups, strictUpper,
      };
      const before = gemm.transfers.uploadedBytes;
      const actual = await gemm.run(request);
      expect(neededMismatches(request, await ref.run(request), actual)).toEqual([]);
      expect(gemm.transfers.uploadedBytes - before).toBe(packedBytes(a) + (strictUpper ? 0 : packedBytes(b)));
    });

    // A block still arriving: rows are written only when rowsReady asks for them, after a pause, so an upload that
    // packed a row before asking would send zeros.
    it('packs a prefetched matrix still arriving only as rowsReady says its rows are final', async () => {
      const final = rangedPlanes(5, 60, 1570, RANGES);
      const arriving: PlaneMatrix = { ...final, words: new Uint32Array(final.words.length) };
      const rowWords = final.numPlanes * final.wordsPerPlane;
      let written = 0;
      const rowsReady = async (rowEnd: number): Promise<void> => {
        await new Promise((resolve) => setTimeout(resolve, 2));
        const end = Math.min(rowEnd, final.numVectors);
        if (end > written) arriving.words.set(final.words.subarray(written * rowWords, end * rowWords), written * rowWords);
        written = Math.max(written, end);
      };
      gemm.prefetch(arriving, rowsReady);
      const a = rangedPlanes(6, 10, 1570, RANGES);
      const request: PopcountGemmRequest = { a, aFirst: 0, aCount: 10, b: final, bFirst: 0, bCount: 60, termGroups: groups, strictUpper: false };
      const expected = await ref.run(request);
      expect(neededMismatches(request, expected, await gemm.run({ ...request, b: arriving }))).toEqual([]);
      expect(written).toBe(final.numVectors);
    });
  });

  it('unpacks rows over several staging pieces: vector sums of every plane are the host\'s', async () => {
    const gemm = await createPopcountGemmWebgpu({ kernel: 'bitwise' });
    try {
      // Planes of 2^16 words, half of each sent: 128 Ki packed words a row, 32 rows a 16 MiB staging piece; 45 rows.
      const wordsPerPlane = 1 << 16;
      const halves: PlaneWordRange[] = [[0, wordsPerPlane / 2], [wordsPerPlane / 2, wordsPerPlane], [5, wordsPerPlane / 2 + 5], [wordsPerPlane / 2 - 3, wordsPerPlane - 3]];
      const numVectors = 45;
      const planes: PlaneMatrix = {
        numVectors, numPlanes: 4, wordsPerPlane, words: new Uint32Array(new SharedArrayBuffer(numVectors * 4 * wordsPerPlane * 4)), planeWordRanges: halves,
      };
      const random = seededRandom(8);
      for (let r = 0; r < numVectors; r++) {
        for (const [p, [first, end]] of halves.entries()) {
          const base = (r * 4 + p) * wordsPerPlane;
          for (let w = first; w < end; w++) planes.words[base + w] = Math.floor(random() * 2 ** 32);
        }
      }
      const before = gemm.transfers.uploadedBytes;
      for (const [countPlanes, maskPlane] of [[[0, 1], 2], [[3], 1], [[2], 0]] as const) {
        const sums = await gemm.vectorSums({ planes, countPlanes, maskPlane });
        for (let r = 0; r < numVectors; r++) {
          expect(sums.sums[r]).toBe(countPlanes.reduce<number>((sum, p) => sum + planePopcount(planes, r, p), 0));
          expect(sums.counts[r]).toBe(planePopcount(planes, r, maskPlane));
        }
      }
      expect(gemm.transfers.uploadedBytes - before).toBe(packedBytes(planes));
    } finally {
      await gemm.close();
    }
  });
});
