// Device finalize of 3-way requests (mgemm/tripleFinalize.ts) on the kernel families and tally layouts against an
// oracle built from the CPU's own pieces, independent of src/engine/finalize3.ts: reference tallies, tallyLayout's
// coefficient3 inclusion–exclusion, core/formulas.ts denseValue3 / sparseValue3, core/thresholds.ts and
// core/checksum.ts's accumulator with entryUid3. Ragged shapes, every order of (i, j, k), small bindings; a top-N run's
// records-only bar against the oracle's records filtered by value.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createPopcountGemmWebgpu, TRIPLE_VECTOR_WORDS, type PlaneMatrix, type PopcountGemmWebgpu, type Tally3Slice,
  type FormulaTripleFinalizeRequest, type TripleFinalizeRequest, type TripleThresholdBits, type WebgpuPopcountGemmOptions,
} from '../../src/mgemm/index.js';
import { PopcountGemmRef } from '../../src/mgemm/kernels/ref/popcountGemmRef.js';
import { ChecksumAccumulator, entryUid3 } from '../../src/core/checksum.js';
import { denseValue3, sparseValue3, type FormulaConstants } from '../../src/core/formulas.js';
import { markPassingEntries, type Threshold } from '../../src/core/thresholds.js';
import { countedBitsPerField, defaultMultiplier, DEFAULT_PARAM, type MetricKind } from '../../src/core/types.js';
import { float32BitsAtMost } from '../../src/analyses/devicePairs.js';
import { coefficient3, planeLayout, tally3Plan, termGroups2, type PlaneLayout } from '../helpers/layouts.js';
import { planesFromCodes } from '../../src/engine/blocks/vectorBlock.js';
import { referenceVectorSums } from '../../src/mgemm/kernels/ref/popcountGemmRef.js';
import { float32Bits } from '../helpers/float32Bits.js';
import { webgpuGate } from '../helpers/webgpuGate.js';
import { seededRandom } from './planeFixtures.js';

const gate = await webgpuGate();

interface Case {
  readonly name: string;
  readonly metric: MetricKind;
  readonly sparse: boolean;
  readonly threshold: Threshold;
  readonly numI: number;
  readonly numK: number;
  readonly numField: number;
  /** Global indices of request row 0, of j and of request column 0 (distinct triples, chosen to mix the orders). */
  readonly iVectorFirst: number;
  readonly jVectorGlobal: number;
  readonly kVectorFirst: number;
  readonly seed: number;
}

const NUM_VECTOR = 1000;
/** Local rows of the request inside its operand matrices: not 0, so offsets are exercised. */
const I_FIRST = 1;
const J_LOCAL = 2;
const K_FIRST = 3;

interface Sums {
  readonly sums: Float64Array;
  readonly counts: Float64Array;
}

/** Operands: random codes (about 10 % missing in sparse mode) → planes, sums and counts of the i, j and k blocks. */
interface Operands {
  readonly layout: PlaneLayout;
  readonly x: PlaneMatrix;
  readonly y: PlaneMatrix;
  readonly z: PlaneMatrix;
  readonly xSums: Sums;
  readonly ySums: Sums;
  readonly zSums: Sums;
}

function operandsOf(c: Case): Operands {
  const layout = planeLayout(c.metric, c.sparse);
  const random = seededRandom(c.seed);
  const matrix = (numVectors: number): PlaneMatrix => planesFromCodes(
    layout, { numVectorLocal: numVectors, vectorFirst: 0, numVectorReal: numVectors, fieldFirst: 0, numFieldLocal: c.numField },
    (_v, _f, out) => {
      for (let f = 0; f < out.length; f++) out[f] = c.sparse && random() < 0.1 ? 2 : [0, 1, 3, 1][Math.floor(random() * 4)];
    },
  );
  const x = matrix(I_FIRST + c.numI + 2);
  const y = matrix(J_LOCAL + 3);
  const z = matrix(K_FIRST + c.numK + 1);
  return { layout, x, y, z, xSums: referenceVectorSums({ planes: x, ...layout }), ySums: referenceVectorSums({ planes: y, ...layout }), zSums: referenceVectorSums({ planes: z, ...layout }) };
}

function thresholdBits(t: Threshold): TripleThresholdBits {
  if (t.kind === 'single') return { kind: 'single', above: float32BitsAtMost(t.value) };
  if (t.kind === 'multi3') {
    return {
      kind: 'multi3', lll: float32BitsAtMost(t.tLLL), llh: float32BitsAtMost(t.tLLH), lhh: float32BitsAtMost(t.tLHH),
      hhh: float32BitsAtMost(t.tHHH), lllhhh: float32BitsAtMost(t.tLLLHHH),
    };
  }
  return { kind: 'none' };
}

/** Per-vector words as the contract defines them: s1, count, f_a = rc·s_a, g_a = 1 − p·f_a. */
function vectorWords(k: FormulaConstants, c: Case, sums: Sums, first: number, count: number): Uint32Array {
  const words = new Uint32Array(count * TRIPLE_VECTOR_WORDS);
  const doubles = new Float64Array(words.buffer);
  const C = k.countedBits;
  for (let v = 0; v < count; v++) {
    const s1 = sums.sums[first + v];
    const n = c.sparse ? sums.counts[first + v] : c.numField;
    const at = v * TRIPLE_VECTOR_WORDS;
    words[at] = s1;
    words[at + 1] = n;
    if (n === 0) continue;
    const rc = c.sparse ? (1 / C) * (1 / n) : (1 / C) * (1 / c.numField);
    doubles[at / 2 + 1] = rc * (C * n - s1);
    doubles[at / 2 + 2] = rc * s1;
    doubles[at / 2 + 3] = 1 - k.param * (rc * (C * n - s1));
    doubles[at / 2 + 4] = 1 - k.param * (rc * s1);
  }
  return words;
}

/** Σ c_x c_y of all rows of two matrices (reference kernel). */
async function pairCounts(layout: PlaneLayout, a: PlaneMatrix, b: PlaneMatrix): Promise<Uint32Array> {
  const [data] = await new PopcountGemmRef().run({
    a, aFirst: 0, aCount: a.numVectors, b, bFirst: 0, bCount: b.numVectors, termGroups: termGroups2(layout).slice(0, 1), strictUpper: false,
  });
  return data;
}

/** The single slice of a case: y row J_LOCAL, x rows from I_FIRST, z rows from K_FIRST. */
const sliceOf = (c: Case): Tally3Slice => ({ yRow: J_LOCAL, xFirst: I_FIRST, xCount: c.numI, zFirst: K_FIRST, zCount: c.numK });

async function requestOf(c: Case, ops: Operands, k: FormulaConstants, slices: readonly Tally3Slice[] = [sliceOf(c)]): Promise<FormulaTripleFinalizeRequest> {
  const plan = tally3Plan(ops.layout);
  const C = k.countedBits;
  return {
    gemm: { x: ops.x, y: ops.y, z: ops.z, planePairs: plan.planePairs, termGroups: plan.termGroups, slices },
    products: plan.products,
    formula: {
      sparse: c.sparse, countedBits: C === 1 ? 1 : 2, multiplier: k.multiplier, param: k.param, numField: c.numField,
      denseRsum: (1 / (C * C * C)) * (1 / c.numField),
    },
    xVectors: vectorWords(k, c, ops.xSums, 0, ops.x.numVectors),
    yVectors: vectorWords(k, c, ops.ySums, 0, ops.y.numVectors),
    zVectors: vectorWords(k, c, ops.zSums, 0, ops.z.numVectors),
    pairCounts: c.sparse ? null : {
      yx: { data: await pairCounts(ops.layout, ops.y, ops.x), numCols: ops.x.numVectors },
      yz: { data: await pairCounts(ops.layout, ops.y, ops.z), numCols: ops.z.numVectors },
      xz: { data: await pairCounts(ops.layout, ops.x, ops.z), numCols: ops.z.numVectors },
    },
    // The case's global indices are those of its slice's row 0, j and column 0.
    xVectorFirst: c.iVectorFirst - I_FIRST,
    yVectorFirst: c.jVectorGlobal - J_LOCAL,
    zVectorFirst: c.kVectorFirst - K_FIRST,
    numVector: NUM_VECTOR,
    threshold: thresholdBits(c.threshold),
    records: true,
  };
}

/** What the CPU computes for the request: S, counts, and the records [2i + a, 2j + b, 2k + c, value bits] slice by slice, row-major. */
async function oracle(c: Case, ops: Operands, k: FormulaConstants, request: FormulaTripleFinalizeRequest): Promise<{ sum: bigint; entries: number; zeros: number; records: number[] }> {
  const tallies = await new PopcountGemmRef().run3(request.gemm);
  const products = request.products;
  const C = k.countedBits;
  const accumulator = new ChecksumAccumulator();
  const records: number[] = [];
  const values = new Float64Array(8);
  const keep = new Uint8Array(8);
  const T = new Array<number>(8).fill(0);
  request.gemm.slices.forEach((slice, s) => {
    const { yRow, xFirst, xCount, zFirst, zCount } = slice;
    const sj1 = ops.ySums.sums[yRow];
    const cj = c.sparse ? ops.ySums.counts[yRow] : c.numField;
    for (let r = 0; r < xCount; r++) {
      const si1 = ops.xSums.sums[xFirst + r];
      const ci = c.sparse ? ops.xSums.counts[xFirst + r] : c.numField;
      for (let col = 0; col < zCount; col++) {
        const sk1 = ops.zSums.sums[zFirst + col];
        const ck = c.sparse ? ops.zSums.counts[zFirst + col] : c.numField;
        const t = r * zCount + col;
        if (c.sparse) {
          products.forEach((p, g) => { T[p] = tallies[s][g][t]; });
        } else {
          const pc = request.pairCounts;
          if (pc === null) throw new Error('dense request without pair counts');
          T.splice(0, 8, c.numField, sk1, sj1, pc.yz.data[yRow * pc.yz.numCols + zFirst + col], si1,
            pc.xz.data[(xFirst + r) * pc.xz.numCols + zFirst + col], pc.yx.data[yRow * pc.yx.numCols + xFirst + r], tallies[s][0][t]);
        }
        const rs = [0, 1, 2, 3, 4, 5, 6, 7].map((e) => T.reduce((sum, x, p) => sum + coefficient3(e, p, C) * x, 0));
        const cijk = rs.reduce((a, b) => a + b, 0);
        for (let e = 0; e < 8; e++) {
          const si = (e >> 2) === 1 ? si1 : C * ci - si1;
          const sj = ((e >> 1) & 1) === 1 ? sj1 : C * cj - sj1;
          const sk = (e & 1) === 1 ? sk1 : C * ck - sk1;
          values[e] = c.sparse ? sparseValue3(k, rs[e], si, sj, sk, ci, cj, ck, cijk) : denseValue3(k, rs[e], si, sj, sk, c.numField);
        }
        markPassingEntries(c.threshold, values, 8, keep);
        for (let e = 0; e < 8; e++) {
          if (keep[e] === 0) continue;
          const uid = entryUid3(NUM_VECTOR, request.xVectorFirst + xFirst + r, e >> 2, request.yVectorFirst + yRow, (e >> 1) & 1,
            request.zVectorFirst + zFirst + col, e & 1);
          accumulator.add(uid, values[e]);
          records.push(2 * (request.xVectorFirst + xFirst + r) + (e >> 2), 2 * (request.yVectorFirst + yRow) + ((e >> 1) & 1),
            2 * (request.zVectorFirst + zFirst + col) + (e & 1), float32Bits(values[e]));
        }
      }
    }
  });
  return { sum: accumulator.sum(), entries: accumulator.entries, zeros: accumulator.zeros, records };
}

const MULTI3 = { kind: 'multi3', tLLL: 0.1, tLLH: 0.2, tLHH: 0.3, tHHH: 0.25, tLLLHHH: 0.35 } as const;

const CASES: readonly Case[] = [
  { name: 'ccc dense, i < j < k, no threshold', metric: 'ccc', sparse: false, threshold: { kind: 'none' }, numI: 37, numK: 29, numField: 133, iVectorFirst: 100, jVectorGlobal: 200, kVectorFirst: 300, seed: 1 },
  { name: 'ccc dense, k < i < j, threshold 0.2', metric: 'ccc', sparse: false, threshold: { kind: 'single', value: 0.2 }, numI: 45, numK: 33, numField: 65, iVectorFirst: 500, jVectorGlobal: 900, kVectorFirst: 10, seed: 2 },
  { name: 'ccc sparse, j < k < i, multi3', metric: 'ccc', sparse: true, threshold: MULTI3, numI: 21, numK: 50, numField: 90, iVectorFirst: 700, jVectorGlobal: 3, kVectorFirst: 400, seed: 3 },
  { name: 'ccc sparse, i < k < j, threshold 0', metric: 'ccc', sparse: true, threshold: { kind: 'single', value: 0 }, numI: 40, numK: 40, numField: 31, iVectorFirst: 100, jVectorGlobal: 500, kVectorFirst: 200, seed: 4 },
  { name: 'duo dense, j < i < k, multi3', metric: 'duo', sparse: false, threshold: MULTI3, numI: 30, numK: 19, numField: 100, iVectorFirst: 50, jVectorGlobal: 20, kVectorFirst: 80, seed: 5 },
  { name: 'duo sparse, k < j < i, few fields (many zeros), no threshold', metric: 'duo', sparse: true, threshold: { kind: 'none' }, numI: 26, numK: 35, numField: 7, iVectorFirst: 300, jVectorGlobal: 100, kVectorFirst: 20, seed: 6 },
];

const OPTION_SETS: readonly { readonly name: string; readonly options: WebgpuPopcountGemmOptions }[] = [
  { name: 'bitwise', options: { kernel: 'bitwise' } },
  { name: 'bitwise, 4 KiB bindings (several sub-blocks)', options: { kernel: 'bitwise', maxBindingBytes: 4096 } },
  { name: 'u8 dot4 (padded tally layout)', options: { kernel: 'dot4' } },
  ...(gate.hasSubgroupMatrix ? [{ name: 'u8 subgroup-matrix', options: { kernel: 'subgroup-matrix' as const } }] : []),
];

const constantsOf = (metric: MetricKind): FormulaConstants => ({ countedBits: countedBitsPerField(metric), multiplier: defaultMultiplier(metric), param: DEFAULT_PARAM });

/** Finalizes `request` on the device and expects exactly the oracle's checksum sum, counts and records. */
async function expectOracleResult(gemm: PopcountGemmWebgpu, request: TripleFinalizeRequest, want: Awaited<ReturnType<typeof oracle>>, label = ''): Promise<void> {
  const got = await gemm.finalizeTriples(request);
  if (got.kind !== 'done') throw new Error(`device declined: ${got.reason}`);
  expect({ sum: got.checksumSum, entries: got.entries, zeros: got.zeros }, label).toEqual({ sum: want.sum, entries: want.entries, zeros: want.zeros });
  expect(Array.from(got.records.words), label).toEqual(want.records);
}

describe.skipIf(!gate.available)(`webgpu 3-way device finalize on ${gate.description}`, () => {
  describe.each(OPTION_SETS)('$name', ({ options }) => {
    let gemm: PopcountGemmWebgpu;
    beforeAll(async () => {
      gemm = await createPopcountGemmWebgpu(options);
    });
    afterAll(async () => {
      await gemm.close();
    });

    it.each(CASES)('equals the CPU: $name', async (c) => {
      const k = constantsOf(c.metric);
      const ops = operandsOf(c);
      const request = await requestOf(c, ops, k);
      const want = await oracle(c, ops, k, request);
      expect(want.entries).toBeGreaterThan(0);
      await expectOracleResult(gemm, request, want);
    });
  });

  /** Ragged j-slices of one request over the case's operands (y has J_LOCAL + 3 rows), an empty one included. */
  const slicesOf = (c: Case, ops: Operands): Tally3Slice[] => [
    { yRow: 0, xFirst: 0, xCount: ops.x.numVectors, zFirst: 0, zCount: ops.z.numVectors },
    { yRow: 4, xFirst: I_FIRST + 3, xCount: c.numI - 5, zFirst: K_FIRST, zCount: c.numK },
    { yRow: 2, xFirst: 2, xCount: 0, zFirst: 0, zCount: 4 },
    { yRow: 2, xFirst: I_FIRST, xCount: c.numI, zFirst: K_FIRST + 2, zCount: 7 },
    { yRow: 1, xFirst: 5, xCount: 1, zFirst: 1, zCount: ops.z.numVectors - 1 },
  ];

  describe.each([
    { name: 'bitwise, one output round', options: { kernel: 'bitwise' } },
    { name: 'bitwise, 4 KiB bindings and 8 KiB output rounds (a slice\'s sub-blocks in several rounds)', options: { kernel: 'bitwise', maxBindingBytes: 4096, maxReadBackBytes: 8192 } },
    { name: 'u8 dot4, 64 KiB output rounds', options: { kernel: 'dot4', maxReadBackBytes: 1 << 16 } },
  ] satisfies { name: string; options: WebgpuPopcountGemmOptions }[])('several j-slices per request: $name', ({ options }) => {
    let gemm: PopcountGemmWebgpu;
    beforeAll(async () => {
      gemm = await createPopcountGemmWebgpu(options);
    });
    afterAll(async () => {
      await gemm.close();
    });

    it.each(CASES)('equals the CPU slice by slice: $name', async (c) => {
      // Distinct global ranges for x, y and z (the case's own may overlap over whole operands): k < j < i or i < j < k.
      const ordered: Case = c.seed % 2 === 0 ? { ...c, iVectorFirst: 600, jVectorGlobal: 300, kVectorFirst: 20 } : { ...c, iVectorFirst: 20, jVectorGlobal: 300, kVectorFirst: 600 };
      const k = constantsOf(c.metric);
      const ops = operandsOf(ordered);
      const request = await requestOf(ordered, ops, k, slicesOf(ordered, ops));
      const want = await oracle(ordered, ops, k, request);
      expect(want.entries).toBeGreaterThan(0);
      await expectOracleResult(gemm, request, want);
    });

    it.each(CASES)('a top-N run\'s records-only bar: the oracle\'s records at least (at most) as strong, ties included: $name', async (c) => {
      const ordered: Case = { ...c, iVectorFirst: 20, jVectorGlobal: 300, kVectorFirst: 600 };
      const k = constantsOf(c.metric);
      const ops = operandsOf(ordered);
      const request = await requestOf(ordered, ops, k, slicesOf(ordered, ops));
      const want = await oracle(ordered, ops, k, request);
      const values = new Float32Array(Uint32Array.from(want.records).buffer);
      const sorted = Array.from({ length: want.records.length / 4 }, (_, r) => values[4 * r + 3]).filter((v) => !Number.isNaN(v)).sort((x, y) => x - y);
      for (const keep of ['atLeast', 'atMost'] as const) {
        // A value some records hold, with records on both sides of it.
        const third = keep === 'atLeast' ? sorted[Math.floor((2 * sorted.length) / 3)] : sorted[Math.floor(sorted.length / 3)];
        const barValue = keep === 'atLeast' && third === sorted[0] ? sorted.find((v) => v > sorted[0]) ?? third : third;
        const kept = want.records.filter((_, idx) => {
          const v = values[4 * Math.floor(idx / 4) + 3];
          return keep === 'atLeast' ? v >= barValue : v <= barValue;
        });
        expect(kept.length).toBeGreaterThan(0);
        expect(kept.length).toBeLessThan(want.records.length);
        const recordBar = { keep, valueBits: new Uint32Array(Float32Array.of(barValue).buffer)[0] };
        await expectOracleResult(gemm, { ...request, recordBar }, { ...want, records: kept }, keep);
      }
    });
  });

  // Every metric's default mult (9/2, 4) has a short significand; another mult takes the general product.
  it.each([CASES[0], CASES[2]])('equals the CPU with a mult of a long significand (4.1): $name', async (c) => {
    const gemm = await createPopcountGemmWebgpu({ kernel: 'bitwise' });
    try {
      const k: FormulaConstants = { countedBits: countedBitsPerField(c.metric), multiplier: 4.1, param: DEFAULT_PARAM };
      const ops = operandsOf(c);
      const request = await requestOf(c, ops, k);
      const want = await oracle(c, ops, k, request);
      expect(want.entries).toBeGreaterThan(0);
      await expectOracleResult(gemm, request, want);
    } finally {
      await gemm.close();
    }
  });

  // The single-threshold screen (finalize3Program.ts) skips triples on an f32 estimate; thresholds at the values
  // themselves (their float32, one double ulp either side) and at high quantiles must still give the CPU's result.
  it.each([CASES[0], CASES[3]])('screens a single threshold only where nothing can pass, thresholds at the values: $name', async (c) => {
    const gemm = await createPopcountGemmWebgpu({ kernel: 'bitwise' });
    try {
      const k = constantsOf(c.metric);
      const ops = operandsOf(c);
      const all = await oracle({ ...c, threshold: { kind: 'none' } }, ops, k, await requestOf({ ...c, threshold: { kind: 'none' } }, ops, k));
      const bits = new Uint32Array(all.records.filter((_, idx) => idx % 4 === 3)).sort();
      const asDouble = (b: number): number => new Float32Array(new Uint32Array([b]).buffer)[0];
      const thresholds: number[] = [];
      for (const q of [0.5, 0.9, 0.999]) {
        const v = asDouble(bits[Math.floor(q * (bits.length - 1))]);
        thresholds.push(v, v * (1 - 2 ** -52), v * (1 + 2 ** -52), v * (1 - 2 ** -22));
      }
      for (const value of thresholds) {
        const withThreshold: Case = { ...c, threshold: { kind: 'single', value } };
        const request = await requestOf(withThreshold, ops, k);
        const want = await oracle(withThreshold, ops, k, request);
        await expectOracleResult(gemm, request, want, `threshold ${value}`);
      }
    } finally {
      await gemm.close();
    }
  });

  it('declines a request whose passing values leave [0, 16), and grows its record room', async () => {
    const gemm = await createPopcountGemmWebgpu({ kernel: 'bitwise' });
    try {
      const c = CASES[0];
      const ops = operandsOf(c);
      // p = −40: 1 − p·f ≈ 21 for common f, so values exceed 16; without a threshold they pass, which the CPU rejects.
      const bad: FormulaConstants = { countedBits: 2, multiplier: 4.5, param: -40 };
      expect((await gemm.finalizeTriples(await requestOf(c, ops, bad))).kind).toBe('needsHost');
      // 90 × 100 triples, 8 entries each, all passing: more records than the first buffer (2^16) holds.
      const big: Case = { ...c, numI: 90, numK: 100, numField: 40, seed: 9 };
      const bigOps = operandsOf(big);
      const k = constantsOf('ccc');
      const request = await requestOf(big, bigOps, k);
      const got = await gemm.finalizeTriples(request);
      if (got.kind !== 'done') throw new Error(`device declined: ${got.reason}`);
      expect(got.records.count).toBe(8 * 90 * 100);
      const want = await oracle(big, bigOps, k, request);
      expect(got.checksumSum).toBe(want.sum);
      expect(Array.from(got.records.words)).toEqual(want.records);
    } finally {
      await gemm.close();
    }
  });
});
