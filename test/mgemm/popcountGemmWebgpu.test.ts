// The WebGPU kernel families (bitwise, u8 dot4, tensor cores where present) against the reference kernel:
// random shapes, ragged fields, tile edges, every term-group shape the metrics use, strictUpper, chunking.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createPopcountGemmWebgpu, type PlaneMatrix, type PopcountGemmRequest, type PopcountGemmWebgpu, type TermGroup, type WebgpuPopcountGemmOptions,
} from '../../src/mgemm/index.js';
import { PopcountGemmRef } from '../../src/mgemm/kernels/ref/popcountGemmRef.js';
import { planeLayout, tally3Plan, termGroups2 } from '../helpers/layouts.js';
import { webgpuGate } from '../helpers/webgpuGate.js';
import { timeKernels } from '../../tools/lib/webgpuTiming.js';
import { chooseTally2Geometry } from '../../src/mgemm/kernels/webgpu/plan/tally2Geometry.js';
import { neededMismatches, planesFromFieldBits, randomFieldBits, seededRandom } from './planeFixtures.js';

const gate = await webgpuGate();

interface GroupSet {
  readonly name: string;
  readonly numPlanesA: number;
  readonly numPlanesB: number;
  readonly termGroups: readonly TermGroup[];
}

const sparse3 = tally3Plan(planeLayout('ccc', true));
/** The term groups the engine passes: 2-way dense/sparse CCC and DUO, 3-way dense and sparse CCC. */
const GROUP_SETS: readonly GroupSet[] = [
  { name: 'ccc 2-way dense', numPlanesA: 2, numPlanesB: 2, termGroups: termGroups2(planeLayout('ccc', false)) },
  { name: 'duo 2-way dense', numPlanesA: 1, numPlanesB: 1, termGroups: termGroups2(planeLayout('duo', false)) },
  { name: 'ccc 2-way sparse', numPlanesA: 3, numPlanesB: 3, termGroups: termGroups2(planeLayout('ccc', true)) },
  { name: 'duo 2-way sparse', numPlanesA: 2, numPlanesB: 2, termGroups: termGroups2(planeLayout('duo', true)) },
  { name: 'ccc 3-way dense', numPlanesA: tally3Plan(planeLayout('ccc', false)).planePairs.length, numPlanesB: 2, termGroups: tally3Plan(planeLayout('ccc', false)).termGroups },
  { name: 'ccc 3-way sparse', numPlanesA: sparse3.planePairs.length, numPlanesB: 3, termGroups: sparse3.termGroups },
];

interface Shape {
  readonly aCount: number;
  readonly bCount: number;
  readonly numField: number;
  readonly strictUpper: boolean;
  readonly seed: number;
}

/** A request on fresh random planes with odd row offsets; strictUpper shares one matrix. */
function requestOf(set: GroupSet, shape: Shape): PopcountGemmRequest {
  const random = seededRandom(shape.seed);
  const aFirst = 1 + Math.floor(random() * 5);
  const bFirst = shape.strictUpper ? aFirst : Math.floor(random() * 5);
  const a = planesFromFieldBits(randomFieldBits(random, aFirst + shape.aCount + 3, set.numPlanesA, shape.numField, 0.6), set.numPlanesA, shape.numField, true);
  const b = shape.strictUpper
    ? a
    : planesFromFieldBits(randomFieldBits(random, bFirst + shape.bCount + 2, set.numPlanesB, shape.numField, 0.4), set.numPlanesB, shape.numField, false);
  return { a, aFirst, aCount: shape.aCount, b, bFirst, bCount: shape.strictUpper ? shape.aCount : shape.bCount, termGroups: set.termGroups, strictUpper: shape.strictUpper };
}

/** Random sizes: fields not multiples of 32 or 128, vector counts not multiples of any tile. */
function randomShapes(seed: number, count: number): Shape[] {
  const random = seededRandom(seed);
  return Array.from({ length: count }, (_, k) => ({
    aCount: 1 + Math.floor(random() * 100),
    bCount: 1 + Math.floor(random() * 100),
    numField: 1 + Math.floor(random() * 400),
    strictUpper: k % 3 === 2,
    seed: seed * 100 + k,
  }));
}

/** Every kernel family that runs on any adapter; tensor cores (subgroup-matrix) share the dot4 path but need the feature. */
const OPTION_SETS: readonly { readonly name: string; readonly options: WebgpuPopcountGemmOptions }[] = [
  { name: 'bitwise, device limits', options: { kernel: 'bitwise' } },
  // 4 KiB bindings: operands of a few rows per chunk and outputs of a few sub-blocks per request.
  { name: 'bitwise, 4 KiB bindings', options: { kernel: 'bitwise', maxBindingBytes: 4096 } },
  { name: 'u8 dot4, device limits', options: { kernel: 'dot4' } },
  // 512 KiB: u8 sub-blocks of a few hundred rows; groups whose 128 × 256 tiles do not fit fall back to bitwise.
  { name: 'u8 dot4, 512 KiB bindings', options: { kernel: 'dot4', maxBindingBytes: 512 << 10 } },
  // 1 MiB expansions: K slabs of 256 bytes (u8Slabs.ts) past 256 fields, the output added to slab by slab.
  { name: 'u8 dot4, 1 MiB expansions (K slabs)', options: { kernel: 'dot4', u8ExpansionBytes: 1 << 20 } },
  ...(gate.hasSubgroupMatrix ? [
    { name: 'u8 subgroup-matrix (tensor cores)', options: { kernel: 'subgroup-matrix' as const } },
    { name: 'u8 subgroup-matrix, 1 MiB expansions (K slabs)', options: { kernel: 'subgroup-matrix' as const, u8ExpansionBytes: 1 << 20 } },
  ] : []),
];

describe.skipIf(!gate.available)(`webgpu bitwise kernels on ${gate.description}`, () => {
  const ref = new PopcountGemmRef();
  describe.each(OPTION_SETS)('$name', ({ options }) => {
    let gemm: PopcountGemmWebgpu;
    beforeAll(async () => {
      gemm = await createPopcountGemmWebgpu(options);
    });
    afterAll(async () => {
      await gemm.close();
    });

    async function expectSameAsRef(request: PopcountGemmRequest): Promise<void> {
      const [expected, actual] = [await ref.run(request), await gemm.run(request)];
      expect(neededMismatches(request, expected, actual)).toEqual([]);
    }

    it.each(GROUP_SETS)('equals ref on random sizes: $name', async (set) => {
      for (const shape of randomShapes(set.numPlanesA * 7 + set.termGroups.length, options.maxBindingBytes === undefined ? 3 : 2)) {
        await expectSameAsRef(requestOf(set, shape));
      }
    });

    it.each([
      // A field rank that holds none of the fields (npf > nf): every tally is zero.
      { name: 'no fields', aCount: 3, bCount: 5, numField: 0, strictUpper: false, seed: 5 },
      { name: 'one field', aCount: 3, bCount: 5, numField: 1, strictUpper: false, seed: 1 },
      { name: '33 fields, one row', aCount: 1, bCount: 77, numField: 33, strictUpper: false, seed: 2 },
      { name: '129 fields, tile edge + 1', aCount: 65, bCount: 65, numField: 129, strictUpper: true, seed: 3 },
      { name: 'several stages of words', aCount: 40, bCount: 31, numField: 32 * 8 * 3 + 17, strictUpper: false, seed: 4 },
    ])('equals ref on edges: $name', async (shape) => {
      for (const set of GROUP_SETS) await expectSameAsRef(requestOf(set, shape));
    });

    it('keeps resident operands correct when the same matrix is reused with other rows', async () => {
      const request = requestOf(GROUP_SETS[0], { aCount: 50, bCount: 60, numField: 300, strictUpper: false, seed: 9 });
      await expectSameAsRef(request);
      await expectSameAsRef({ ...request, aFirst: request.aFirst + 2, aCount: 40, bFirst: request.bFirst + 1, bCount: 30 });
    });

    it('uploads a prefetched matrix once, while other requests run, and computes with it', async () => {
      const request = requestOf(GROUP_SETS[0], { aCount: 70, bCount: 90, numField: 700, strictUpper: false, seed: 12 });
      const other = requestOf(GROUP_SETS[0], { aCount: 40, bCount: 30, numField: 700, strictUpper: false, seed: 13 });
      const matrixBytes = (m: PlaneMatrix): number => m.words.byteLength;
      const before = gemm.transfers.uploadedBytes;
      gemm.prefetch(request.b);
      gemm.prefetch(request.b);
      const [expectedOther, actualOther] = await Promise.all([ref.run(other), gemm.run(other)]);
      expect(neededMismatches(other, expectedOther, actualOther)).toEqual([]);
      await expectSameAsRef(request);
      // b once (two prefetches and a request), a, and the other request's two matrices.
      expect(gemm.transfers.uploadedBytes - before).toBe(matrixBytes(request.b) + matrixBytes(request.a) + matrixBytes(other.a) + matrixBytes(other.b));
    });

    // A block still arriving from another rank: the test writes rows only when rowsReady asks for them, after a
    // pause, so an upload that read a row before asking would compute with zeros.
    it('uploads a prefetched matrix still arriving only as rowsReady says its rows are final', async () => {
      const request = requestOf(GROUP_SETS[2], { aCount: 60, bCount: 80, numField: 500, strictUpper: false, seed: 14 });
      const final = request.b;
      const arriving = { ...final, words: new Uint32Array(final.words.length) };
      const rowWords = final.numPlanes * final.wordsPerPlane;
      let written = 0;
      const rowsReady = async (rowEnd: number): Promise<void> => {
        await new Promise((resolve) => setTimeout(resolve, 2));
        const end = Math.min(rowEnd, final.numVectors);
        if (end > written) arriving.words.set(final.words.subarray(written * rowWords, end * rowWords), written * rowWords);
        written = Math.max(written, end);
      };
      gemm.prefetch(arriving, rowsReady);
      const expected = await ref.run(request);
      const actual = await gemm.run({ ...request, b: arriving });
      expect(neededMismatches(request, expected, actual)).toEqual([]);
      expect(written).toBe(final.numVectors);
    });

    it('closes while a prefetched matrix waits for rows that never come', async () => {
      const closing = await createPopcountGemmWebgpu(options);
      const request = requestOf(GROUP_SETS[0], { aCount: 10, bCount: 20, numField: 300, strictUpper: false, seed: 15 });
      closing.prefetch(request.b, () => new Promise<void>(() => undefined));
      await closing.close();
    });

    it('returns empty or zero outputs when there is nothing to add', async () => {
      const request = requestOf(GROUP_SETS[1], { aCount: 5, bCount: 4, numField: 40, strictUpper: false, seed: 5 });
      expect(await gemm.run({ ...request, termGroups: [] })).toEqual([]);
      expect(Array.from((await gemm.run({ ...request, termGroups: [[]] }))[0])).toEqual(new Array(20).fill(0));
      expect((await gemm.run({ ...request, aCount: 0 }))[0].length).toBe(0);
    });

    it('cuts large requests into several sub-blocks', async () => {
      await expectSameAsRef(requestOf(GROUP_SETS[0], { aCount: 300, bCount: 290, numField: 1000, strictUpper: false, seed: 7 }));
      await expectSameAsRef(requestOf(GROUP_SETS[2], { aCount: 270, bCount: 270, numField: 999, strictUpper: true, seed: 8 }));
    });

    it('asks for 1024 workgroup tiles of its kernel per finalize request, within a sub-block and the pass values one binding holds', async () => {
      const byBinding = Math.floor(gemm.capabilities.maxStorageBufferBindingSize / 16);
      for (const set of GROUP_SETS.slice(0, 4)) {
        const shape = { termGroups: set.termGroups, numPlanes: set.numPlanesA, wordsPerPlane: 64 };
        const geometry = chooseTally2Geometry(set.termGroups.length, set.numPlanesA, set.numPlanesA, gemm.capabilities);
        const bitwiseTile = geometry.threadsY * geometry.rowsPerThread * geometry.threadsX * geometry.colsPerThread;
        // A field rank with no words runs bitwise whatever the family asked for.
        expect(gemm.fullRatePairs({ ...shape, wordsPerPlane: 0 })).toBe(Math.min(1024 * bitwiseTile, byBinding));
        const u8 = options.kernel !== 'bitwise' && (options.maxBindingBytes ?? Infinity) >= set.termGroups.length * 128 * 256 * 4;
        // 1 MiB expansions hold 4096 rows of 256-byte K slabs: a sub-block of at most 4096², fewer than 1024 u8 tiles.
        const u8Pairs = options.u8ExpansionBytes === 1 << 20 ? 4096 * 4096 : 1024 * 128 * 256;
        expect(gemm.fullRatePairs(shape)).toBe(Math.min(u8 ? u8Pairs : 1024 * bitwiseTile, byBinding));
      }
      if (options.kernel === 'dot4' && options.u8ExpansionBytes === undefined && options.maxBindingBytes === undefined) {
        // 256 KiB expansions hold 2048 rows of the shortest K slab (128 bytes): sub-blocks of 2048², under the binding's bound.
        const small = await createPopcountGemmWebgpu({ ...options, u8ExpansionBytes: 1 << 18 });
        try {
          expect(small.fullRatePairs({ termGroups: GROUP_SETS[0].termGroups, numPlanes: 2, wordsPerPlane: 64 })).toBe(Math.min(2048 * 2048, byBinding));
          expect(2048 * 2048).toBeLessThan(byBinding);
        } finally {
          await small.close();
        }
      }
    });

    it('times kernels without reading back', async () => {
      const request = requestOf(GROUP_SETS[0], { aCount: 64, bCount: 64, numField: 256, strictUpper: false, seed: 6 });
      const timing = await timeKernels(gemm, request, 2);
      expect(timing.seconds).toHaveLength(2);
      expect(timing.family).toBe(options.kernel ?? 'bitwise');
      for (const s of timing.seconds) expect(s).toBeGreaterThan(0);
    });
  });
});
