// The 3-way request (run3, contract.ts) on every kernel set: ref against the definition field by field,
// the CPU kernel set (inline and pooled, both microkernels) and every WebGPU family (pair products built on the GPU) against
// ref — random sizes with ragged edges, dense and sparse bits, the engine's 3-way term groups, several
// slices per request, operand and output chunking, several submits.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createPopcountGemmWebgpu, type PlaneMatrix, type PopcountGemm, type PopcountGemm3Request, type PopcountGemm3Result, type Tally3Slice,
  type WebgpuPopcountGemmOptions,
} from '../../src/mgemm/index.js';
import { PopcountGemmRef } from '../../src/mgemm/kernels/ref/popcountGemmRef.js';
import { createPopcountGemmWasm } from '../../src/mgemm/kernels/wasm/popcountGemmWasm.js';
import { planeLayout, tally3Plan } from '../helpers/layouts.js';
import { webgpuGate } from '../helpers/webgpuGate.js';
import { timeKernels3 } from '../../tools/lib/webgpuTiming.js';
import { planesFromFieldBits, randomFieldBits, seededRandom, type FieldBits } from './planeFixtures.js';

const gate = await webgpuGate();

/** The engine's 3-way layouts: CCC and DUO, dense (only T[ccc]) and sparse (all eight products). */
const LAYOUTS = (['ccc', 'duo'] as const).flatMap((metric) => [false, true].map((sparse) => {
  const layout = planeLayout(metric, sparse);
  return { name: `${metric} ${sparse ? 'sparse' : 'dense'}`, numPlanes: layout.numPlanes, plan: tally3Plan(layout) };
}));
type Layout = (typeof LAYOUTS)[number];

/** A request with its per-field bits (for the field-by-field oracle). */
interface Case {
  readonly request: PopcountGemm3Request;
  readonly bits: { readonly x: FieldBits; readonly y: FieldBits; readonly z: FieldBits };
}

/**
 * Random x, y, z (or one matrix for all three, as the engine's part-1 units) and 1–6 slices with odd
 * offsets; a few slices are empty. `density` is the chance of a set bit (0.5 dense, 0.05 sparse).
 */
function randomCase(
  layout: Layout, seed: number, options: { density: number; maxRows: number; maxField: number; shared: boolean; numField?: number },
): Case {
  const random = seededRandom(seed);
  const numField = options.numField ?? 1 + Math.floor(random() * options.maxField);
  const rows = (): number => 1 + Math.floor(random() * options.maxRows);
  const make = (numVectors: number): { bits: FieldBits; planes: PlaneMatrix } => {
    const bits = randomFieldBits(random, numVectors, layout.numPlanes, numField, options.density);
    return { bits, planes: planesFromFieldBits(bits, layout.numPlanes, numField, random() < 0.5) };
  };
  const x = make(rows() + 3);
  const y = options.shared ? x : make(rows());
  const z = options.shared ? x : make(rows() + 2);
  const range = (n: number): [number, number] => {
    const first = Math.floor(random() * n);
    return [first, random() < 0.1 ? 0 : Math.floor(random() * (n - first + 1))];
  };
  const slices: Tally3Slice[] = Array.from({ length: 1 + Math.floor(random() * 6) }, () => {
    const [xFirst, xCount] = range(x.bits.length);
    const [zFirst, zCount] = range(z.bits.length);
    return { yRow: Math.floor(random() * y.bits.length), xFirst, xCount, zFirst, zCount };
  });
  return {
    request: { x: x.planes, y: y.planes, z: z.planes, planePairs: layout.plan.planePairs, termGroups: layout.plan.termGroups, slices },
    bits: { x: x.bits, y: y.bits, z: z.bits },
  };
}

/** The 3-way tallies straight from their definition, field by field. */
function naiveTally3({ request, bits }: Case): PopcountGemm3Result {
  return request.slices.map((s) => request.termGroups.map((group) => {
    const out = new Uint32Array(s.xCount * s.zCount);
    for (let r = 0; r < s.xCount; r++) {
      for (let c = 0; c < s.zCount; c++) {
        let sum = 0;
        for (const [pair, zPlane] of group) {
          const [xPlane, yPlane] = request.planePairs[pair];
          const xf = bits.x[s.xFirst + r][xPlane], yf = bits.y[s.yRow][yPlane], zf = bits.z[s.zFirst + c][zPlane];
          for (let f = 0; f < xf.length; f++) sum += xf[f] & yf[f] & zf[f];
        }
        out[r * s.zCount + c] = sum;
      }
    }
    return out;
  }));
}

/** Where two results differ (up to 5, readable), or nothing. */
function mismatches(expected: PopcountGemm3Result, actual: PopcountGemm3Result): string[] {
  const found: string[] = [];
  if (actual.length !== expected.length) return [`${actual.length} slices, expected ${expected.length}`];
  expected.forEach((groups, s) => groups.forEach((want, g) => {
    const got = actual[s][g];
    if (got === undefined || got.length !== want.length) { found.push(`slice ${s} group ${g}: length ${got?.length}, expected ${want.length}`); return; }
    for (let t = 0; t < want.length && found.length < 5; t++) if (got[t] !== want[t]) found.push(`slice ${s} group ${g} [${t}]: ${got[t]}, expected ${want[t]}`);
  }));
  return found;
}

const CASE_KINDS = [
  { name: 'dense bits', density: 0.5, shared: false },
  { name: 'sparse bits', density: 0.05, shared: false },
  { name: 'one matrix for x, y and z', density: 0.4, shared: true },
] as const;

describe('ref run3', () => {
  const ref = new PopcountGemmRef();
  it.each(LAYOUTS)('equals the field-by-field definition: $name', async (layout) => {
    for (const [k, kind] of CASE_KINDS.entries()) {
      for (let trial = 0; trial < 3; trial++) {
        const c = randomCase(layout, 1000 * k + 10 * trial + layout.numPlanes, { ...kind, maxRows: 12, maxField: 150 });
        expect(mismatches(naiveTally3(c), await ref.run3(c.request))).toEqual([]);
      }
    }
  });

  it('rejects slices outside the matrices and terms outside the pairs', async () => {
    const c = randomCase(LAYOUTS[1], 5, { density: 0.5, maxRows: 5, maxField: 40, shared: false });
    const bad = { ...c.request.slices[0], zFirst: c.request.z.numVectors, zCount: 1 };
    await expect(ref.run3({ ...c.request, slices: [bad] })).rejects.toThrow(RangeError);
    await expect(ref.run3({ ...c.request, termGroups: [[[c.request.planePairs.length, 0]]] })).rejects.toThrow(/term pair/);
  });
});

/** WebGPU option sets: every family that runs on any adapter, and small limits that force chunking. */
const WEBGPU_OPTION_SETS: readonly { readonly name: string; readonly options: WebgpuPopcountGemmOptions }[] = [
  { name: 'webgpu bitwise', options: { kernel: 'bitwise' } },
  // 4 KiB bindings: x, y, z in chunks of a few rows, pair products a few rows per dispatch; 4 KiB read-backs: many submits.
  { name: 'webgpu bitwise, 4 KiB bindings and read-backs', options: { kernel: 'bitwise', maxBindingBytes: 4096, maxReadBackBytes: 4096 } },
  { name: 'webgpu u8 dot4', options: { kernel: 'dot4' } },
  { name: 'webgpu u8 dot4, 512 KiB bindings, 1 MiB read-backs', options: { kernel: 'dot4', maxBindingBytes: 512 << 10, maxReadBackBytes: 1 << 20 } },
  { name: 'webgpu u8 dot4, 1 MiB expansions (K slabs of 256 bytes past 256 fields)', options: { kernel: 'dot4', u8ExpansionBytes: 1 << 20 } },
  ...(gate.hasSubgroupMatrix ? [
    { name: 'webgpu subgroup-matrix', options: { kernel: 'subgroup-matrix' as const } },
    { name: 'webgpu subgroup-matrix, 1 MiB expansions (K slabs)', options: { kernel: 'subgroup-matrix' as const, u8ExpansionBytes: 1 << 20 } },
  ] : []),
];

/** Kernel sets checked against ref. */
const KERNEL_SETS: readonly { readonly name: string; readonly gpu: boolean; readonly create: () => Promise<PopcountGemm> }[] = [
  // The CPU kernel set with its default microkernel (native where available) and with the wasm one.
  { name: 'cpu, inline', gpu: false, create: () => createPopcountGemmWasm({ numThreads: 1 }) },
  { name: 'cpu, 2 threads, tiny panels', gpu: false, create: () => createPopcountGemmWasm({ numThreads: 2, minWordOpsPerThread: 0 }) },
  { name: 'cpu wasm microkernel, inline', gpu: false, create: () => createPopcountGemmWasm({ numThreads: 1, microkernel: 'wasm' }) },
  { name: 'cpu wasm microkernel, 2 threads, tiny panels', gpu: false, create: () => createPopcountGemmWasm({ numThreads: 2, minWordOpsPerThread: 0, microkernel: 'wasm' }) },
  ...WEBGPU_OPTION_SETS.map(({ name, options }) => ({ name, gpu: true, create: (): Promise<PopcountGemm> => createPopcountGemmWebgpu(options) })),
];

describe.each(KERNEL_SETS)('$name run3 equals ref', ({ gpu, create }) => {
  const ref = new PopcountGemmRef();
  let gemm: PopcountGemm;
  beforeAll(async () => {
    if (gpu && !gate.available) return;
    gemm = await create();
  });
  afterAll(async () => {
    await gemm?.close();
  });
  const skip = gpu && !gate.available;

  it.skipIf(skip).each(LAYOUTS)('random sizes and ragged edges: $name', async (layout) => {
    for (const [k, kind] of CASE_KINDS.entries()) {
      for (let trial = 0; trial < 2; trial++) {
        const c = randomCase(layout, 7000 + 1000 * k + 10 * trial + layout.numPlanes, { ...kind, maxRows: 70, maxField: 400 });
        expect(mismatches(await ref.run3(c.request), await gemm.run3(c.request))).toEqual([]);
      }
    }
  });

  it.skipIf(skip)('many slices over larger rows (sub-blocks, chunks, submits)', async () => {
    const c = randomCase(LAYOUTS[1], 99, { density: 0.3, maxRows: 300, maxField: 700, shared: false });
    const { request } = c;
    const slices = Array.from({ length: 12 }, (_, s) => ({
      yRow: s % request.y.numVectors, xFirst: s, xCount: request.x.numVectors - s, zFirst: 0, zCount: request.z.numVectors - (s % 3),
    }));
    const many = { ...request, slices };
    expect(mismatches(await ref.run3(many), await gemm.run3(many))).toEqual([]);
  });

  it.skipIf(skip).each(LAYOUTS)('zero tallies without fields (a field rank that holds none): $name', async (layout) => {
    const c = randomCase(layout, 5, { density: 0.5, maxRows: 20, maxField: 0, shared: false, numField: 0 });
    const got = await gemm.run3(c.request);
    expect(mismatches(await ref.run3(c.request), got)).toEqual([]);
    expect(got.flat().every((tallies) => tallies.every((t) => t === 0))).toBe(true);
  });

  it.skipIf(skip)('returns empty outputs for empty slices and no slices', async () => {
    const { request } = randomCase(LAYOUTS[0], 3, { density: 0.5, maxRows: 10, maxField: 50, shared: false });
    expect(await gemm.run3({ ...request, slices: [] })).toEqual([]);
    const empty = await gemm.run3({ ...request, slices: [{ yRow: 0, xFirst: 1, xCount: 0, zFirst: 0, zCount: 3 }] });
    expect(empty.map((groups) => groups.map((g) => g.length))).toEqual([[0]]);
  });
});

describe.skipIf(!gate.available)('webgpu run3 kernel-only timing', () => {
  it('times all dispatches of a request without reading back', async () => {
    const gemm = await createPopcountGemmWebgpu({ kernel: 'bitwise' });
    try {
      const { request } = randomCase(LAYOUTS[0], 11, { density: 0.5, maxRows: 60, maxField: 300, shared: false });
      const timing = await timeKernels3(gemm, { ...request, slices: request.slices.filter((s) => s.xCount > 0 && s.zCount > 0) }, 2);
      expect(timing.family).toBe('bitwise');
      expect(timing.seconds).toHaveLength(2);
      for (const s of timing.seconds) expect(s).toBeGreaterThan(0);
    } finally {
      await gemm.close();
    }
  });
});
