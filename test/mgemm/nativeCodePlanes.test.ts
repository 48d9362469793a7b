// The native addon's code-row packing and plane popcounts (native/src/codePlanes.cc, loadNativeCodePlanes) against their
// JS forms: packRowPlanes of each row (engine/blocks/planePacking.ts) for r², CCC, KING and IBS layouts, field counts
// around the 8-byte and 32-field words, rows at an odd byte offset, garbage past the last field, words past the used ones
// left alone; planeRowSums against referenceVectorSums, and the kernel set's vectorSums with and without rowsReady.
import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../src/core/seededRandom.js';
import { r2PlaneLayout } from '../../src/analyses/r2/r2Planes.js';
import { cometPlaneLayout } from '../../src/analyses/comet/index.js';
import { kingPlaneLayout } from '../../src/analyses/king/kingCounts.js';
import { ibsPlaneLayout } from '../../src/analyses/distance/ibsCounts.js';
import type { PlaneLayout } from '../../src/analyses/index.js';
import { packRowPlanes, planePackingTable } from '../../src/engine/blocks/planePacking.js';
import { loadNativeCodePlanes, loadNativePopcountKernel } from '../../src/mgemm/kernels/native/nativePopcount.js';
import { hostVectorSums, referenceVectorSums } from '../../src/mgemm/kernels/ref/popcountGemmRef.js';
import { createPopcountGemm, type PlaneMatrix, type VectorSumsRequest } from '../../src/mgemm/index.js';

const nativeStatus = loadNativePopcountKernel();
const native = loadNativeCodePlanes();

const LAYOUTS: readonly { readonly name: string; readonly layout: PlaneLayout }[] = [
  { name: 'r² sparse', layout: r2PlaneLayout(true) },
  { name: 'r² dense', layout: r2PlaneLayout(false) },
  { name: 'CCC sparse', layout: cometPlaneLayout('ccc', true) },
  { name: 'KING', layout: kingPlaneLayout() },
  { name: 'IBS', layout: ibsPlaneLayout() },
];

describe.runIf(nativeStatus.available)('native code-row packing', () => {
  it('loads with the native kernel', () => {
    expect(native).not.toBeNull();
  });

  describe.each(LAYOUTS)('$name', ({ layout }) => {
    it.each([1, 7, 31, 32, 33, 63, 64, 65, 100, 257, 1000])('equals packRowPlanes (%i fields)', (numField) => {
      const random = mulberry32(numField * 13 + layout.numPlanes);
      const numRows = 23;
      const bytesPerRow = Math.ceil(numField / 4);
      const wordsPerPlane = Math.ceil(numField / 32) + 2;
      // Rows from byte 3 of the buffer, every byte random (bits past the last field included).
      const src = 3;
      const packed = Uint8Array.from({ length: src + numRows * bytesPerRow + 5 }, () => Math.floor(random() * 256));
      const rowWords = layout.numPlanes * wordsPerPlane;
      // Words past the used ones hold a marker that both must leave as it is.
      const expected = new Uint32Array(numRows * rowWords + 7).fill(0xdeadbeef);
      const got = expected.slice();
      const table = planePackingTable(layout);
      for (let r = 0; r < numRows; r++) {
        packRowPlanes(table, packed, src + r * bytesPerRow, numField, { words: expected, rowBase: 7 + r * rowWords, numPlanes: layout.numPlanes, wordsPerPlane });
      }
      native?.packCodeRows({ packed, src, bytesPerRow, numRows, numField }, layout.bitsOfCode, {
        words: got, rowBase: 7, numPlanes: layout.numPlanes, wordsPerPlane,
      });
      expect(got).toEqual(expected);
    });
  });

  it('refuses rows past the packed bytes or the plane words', () => {
    const layout = r2PlaneLayout(true);
    const packed = new Uint8Array(100);
    const words = new Uint32Array(4 * 4 * 4);
    expect(() => native?.packCodeRows({ packed, src: 0, bytesPerRow: 25, numRows: 5, numField: 100 }, layout.bitsOfCode, {
      words, rowBase: 0, numPlanes: 4, wordsPerPlane: 4,
    })).toThrow(RangeError);
    expect(() => native?.packCodeRows({ packed, src: 0, bytesPerRow: 25, numRows: 4, numField: 100 }, layout.bitsOfCode, {
      words, rowBase: 1, numPlanes: 4, wordsPerPlane: 4,
    })).toThrow(RangeError);
  });
});

/** Random planes: numVectors rows of numPlanes planes, in shared memory. */
function randomPlanes(numVectors: number, numPlanes: number, wordsPerPlane: number, seed: number): PlaneMatrix {
  const random = mulberry32(seed);
  const words = new Uint32Array(new SharedArrayBuffer(4 * numVectors * numPlanes * wordsPerPlane));
  for (let w = 0; w < words.length; w++) words[w] = Math.floor(random() * 2 ** 32);
  return { numVectors, numPlanes, wordsPerPlane, words };
}

describe.runIf(nativeStatus.available)('native plane row sums', () => {
  it.each([
    { countPlanes: [0, 1], maskPlane: 3, wordsPerPlane: 4 },
    { countPlanes: [2], maskPlane: null, wordsPerPlane: 12 },
    { countPlanes: [0, 1, 2], maskPlane: 0, wordsPerPlane: 32 },
  ])('equal referenceVectorSums (count planes $countPlanes, mask $maskPlane, $wordsPerPlane words)', async ({ countPlanes, maskPlane, wordsPerPlane }) => {
    const request: VectorSumsRequest = { planes: randomPlanes(301, 4, wordsPerPlane, wordsPerPlane), countPlanes, maskPlane };
    const expected = referenceVectorSums(request);
    const sums = new Float64Array(301);
    const counts = new Float64Array(301);
    native?.planeRowSums(request, { sums, counts }, 0, 150);
    native?.planeRowSums(request, { sums, counts }, 150, 301);
    expect(sums).toEqual(expected.sums);
    expect(counts).toEqual(expected.counts);
    const addRows = native?.planeRowSums;
    // Through hostVectorSums, all at once and as rows become ready.
    expect(await hostVectorSums(request, { addRows })).toEqual(expected);
    expect(await hostVectorSums({ ...request, rowsReady: async () => undefined }, { addRows })).toEqual(expected);
  });

  it('are the native kernel set\'s vectorSums', async () => {
    const request: VectorSumsRequest = { planes: randomPlanes(1000, 4, 8, 5), countPlanes: [0, 1], maskPlane: 3 };
    const gemm = await createPopcountGemm({ backend: 'cpu', numThreads: 1 });
    try {
      expect(gemm.name).toMatch(/^avx512/);
      expect(await gemm.vectorSums(request)).toEqual(referenceVectorSums(request));
    } finally {
      await gemm.close();
    }
  });
});
