// The WebGPU min-plus kernel set against the reference kernel set, bit for bit: real (non-integer) values — wide
// exponents, subnormals, −0 — in soft arithmetic, and integer-valued ones in exact integers, double and single;
// ragged 2-way requests (offsets, strictUpper) and 3-way requests (several slices of different shapes, each order
// of the operands' blocks); small bindings and read-backs that cut operands into many chunks and outputs into many
// submits and bands; vector sums.
import { afterAll, describe, expect, it } from 'vitest';
import {
  allocatePlaneMatrix, createMinPlusGemmWebgpu, createPopcountGemm, realValuesOf, valueBits, type MinPlusGemmWebgpu, type PlaneMatrix,
  type PopcountGemm, type PopcountGemm3Request, type PopcountGemmRequest, type RealOperands, type ValuePrecision,
} from '../../src/mgemm/index.js';
import { webgpuGate } from '../helpers/webgpuGate.js';
import { seededRandom } from './planeFixtures.js';

const gate = await webgpuGate();
const NUM_FIELD = 77;

type Values = 'real' | 'integer';

/** A matrix of `values`: real ones spread over many binades (some subnormal, some −0), or small integers. */
function matrixOf(numVectors: number, precision: ValuePrecision, values: Values, seed: number): PlaneMatrix {
  const random = seededRandom(seed);
  const planes = allocatePlaneMatrix(numVectors, valueBits(precision), NUM_FIELD);
  const view = realValuesOf(planes, precision);
  const tiny = precision === 'double' ? 2 ** -1074 : 2 ** -149;
  for (let v = 0; v < numVectors; v++) {
    for (let f = 0; f < NUM_FIELD; f++) {
      const k = random();
      const value = values === 'integer' ? Math.floor(random() * 1000)
        : k < 0.05 ? tiny * Math.floor(random() * 1000) : k < 0.08 ? -0 : k < 0.1 ? 0 : random() * 2 ** Math.floor(random() * 40 - 20);
      view.values[v * view.rowStride + f] = value;
    }
  }
  return planes;
}

const sumsEqual = (got: readonly Uint32Array[], want: readonly Uint32Array[], cells: readonly number[]): boolean =>
  got.length === want.length && cells.every((e) => got.every((g, w) => g[e] === want[w][e]));

describe.skipIf(!gate.available)(`min-plus kernel set on WebGPU (${gate.description})`, () => {
  const open: PopcountGemm[] = [];
  afterAll(async () => { for (const g of open) await g.close(); });
  const openPair = async (precision: ValuePrecision, options = {}): Promise<[MinPlusGemmWebgpu, PopcountGemm]> => {
    const operands: RealOperands = { precision, numField: NUM_FIELD };
    const gpu = await createMinPlusGemmWebgpu(operands, options);
    const ref = await createPopcountGemm({ backend: 'ref', realOperands: operands });
    open.push(gpu, ref);
    return [gpu, ref];
  };

  for (const precision of ['double', 'single'] as const) {
    for (const values of ['real', 'integer'] as const) {
      // 16 rows of 1 KiB (double) per chunk, 24 (double) or 48 (single) sums per submit, fewer than an output row:
      // many chunks, pieces and submits, column and row bands.
      const small = { maxBindingBytes: 16 * 64 * 4 * 4, maxReadBackBytes: 24 * 8 };
      const arithmetic = values === 'real' ? 'soft' : 'integer';

      it(`2-way ${values} ${precision} (${arithmetic}): = reference, offsets, strictUpper, many chunks and submits`, async () => {
        const [gpu, ref] = await openPair(precision, small);
        const a = matrixOf(45, precision, values, 1);
        const b = matrixOf(38, precision, values, 2);
        const requests: PopcountGemmRequest[] = [
          { a, aFirst: 3, aCount: 41, b, bFirst: 1, bCount: 37, termGroups: [[[0, 0]]], strictUpper: false },
          { a, aFirst: 0, aCount: 45, b: a, bFirst: 0, bCount: 45, termGroups: [[[0, 0]]], strictUpper: true },
        ];
        for (const request of requests) {
          const [got, want] = await Promise.all([gpu.run(request), ref.run(request)]);
          const cells: number[] = [];
          for (let r = 0; r < request.aCount; r++) for (let c = request.strictUpper ? r + 1 : 0; c < request.bCount; c++) cells.push(r * request.bCount + c);
          expect(sumsEqual(got, want, cells)).toBe(true);
          expect(await gpu.withKernels(request, async (k) => k.arithmetic)).toBe(arithmetic);
        }
      });

      it(`3-way ${values} ${precision} (${arithmetic}): = reference, slices of several shapes, every block order`, async () => {
        const [gpu, ref] = await openPair(precision, small);
        const x = matrixOf(40, precision, values, 3);
        const y = matrixOf(20, precision, values, 4);
        const z = matrixOf(35, precision, values, 5);
        const slices = [
          { yRow: 0, xFirst: 0, xCount: 40, zFirst: 0, zCount: 35 }, { yRow: 19, xFirst: 5, xCount: 17, zFirst: 30, zCount: 5 },
          { yRow: 7, xFirst: 33, xCount: 1, zFirst: 2, zCount: 19 },
        ];
        for (const blockIndices of [undefined, [2, 0, 1], [1, 1, 0], [0, 2, 1]] as const) {
          const request: PopcountGemm3Request = { x, y, z, planePairs: [[0, 0]], termGroups: [[[0, 0]]], slices, blockIndices };
          const [got, want] = await Promise.all([gpu.run3(request), ref.run3(request)]);
          slices.forEach((slice, s) => {
            const cells = Array.from({ length: slice.xCount * slice.zCount }, (_, e) => e);
            expect(sumsEqual(got[s], want[s], cells)).toBe(true);
          });
        }
        const request: PopcountGemm3Request = { x, y, z, planePairs: [[0, 0]], termGroups: [[[0, 0]]], slices };
        expect(await gpu.withKernels(request, async (k) => k.arithmetic)).toBe(arithmetic);
      });

      it(`vector sums ${values} ${precision} = reference (in field order, the run's precision)`, async () => {
        const [gpu, ref] = await openPair(precision, small);
        const planes = matrixOf(50, precision, values, 6);
        const request = { planes, countPlanes: [], maskPlane: null };
        const [got, want] = await Promise.all([gpu.vectorSums(request), ref.vectorSums(request)]);
        expect(got.sums).toEqual(want.sums);
        expect(got.counts).toEqual(want.counts);
      });
    }
  }

  it('integers whose sums could reach 2^p take the soft arithmetic, with the same bits', async () => {
    const [gpu, ref] = await openPair('single');
    const a = matrixOf(20, 'single', 'integer', 7);
    realValuesOf(a, 'single').values[5] = 2 ** 24 - 1000;
    const request: PopcountGemmRequest = { a, aFirst: 0, aCount: 20, b: a, bFirst: 0, bCount: 20, termGroups: [[[0, 0]]], strictUpper: false };
    expect(await gpu.withKernels(request, async (k) => k.arithmetic)).toBe('soft');
    const [got, want] = await Promise.all([gpu.run(request), ref.run(request)]);
    expect(sumsEqual(got, want, Array.from({ length: 400 }, (_, e) => e))).toBe(true);
  });
});
