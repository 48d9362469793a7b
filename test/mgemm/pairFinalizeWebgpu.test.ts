// Device finalize of 2-way requests (mgemm/pairFinalize.ts) on every kernel family and tally layout against an
// oracle built from the CPU's own pieces: reference tallies, core/formulas.ts values, core/thresholds.ts, and
// core/checksum.ts's accumulator. Random ragged shapes, small bindings (several sub-blocks), strictUpper; a top-N run's
// records-only bar against the oracle's records filtered by value.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createPopcountGemmWebgpu, type PairFinalizeRequest, type PairFinalizeResult, type PairThresholdBits, type PlaneMatrix,
  type PopcountGemmWebgpu, type RecordBar, type WebgpuPopcountGemmOptions,
} from '../../src/mgemm/index.js';
import { PopcountGemmRef } from '../../src/mgemm/kernels/ref/popcountGemmRef.js';
import { ChecksumAccumulator, entryUid2 } from '../../src/core/checksum.js';
import { denseFactors2, denseValue2, sparseValue2, type FormulaConstants } from '../../src/core/formulas.js';
import { markPassingEntries, type Threshold } from '../../src/core/thresholds.js';
import { defaultMultiplier, DEFAULT_PARAM, countedBitsPerField, type MetricKind } from '../../src/core/types.js';
import { planesFromCodes } from '../../src/engine/blocks/vectorBlock.js';
import { referenceVectorSums } from '../../src/mgemm/kernels/ref/popcountGemmRef.js';
import { planeLayout, termGroups2, type PlaneLayout } from '../helpers/layouts.js';
import { float32BitsAtMost } from '../../src/analyses/devicePairs.js';
import { COMET_PAIR_VECTOR_WORDS, cometPairConstants, cometPairProgram } from '../../src/analyses/comet/cometPairProgram.js';
import { float32Bits } from '../helpers/float32Bits.js';
import { webgpuGate } from '../helpers/webgpuGate.js';
import { seededRandom } from './planeFixtures.js';

const gate = await webgpuGate();

interface Case {
  readonly name: string;
  readonly metric: MetricKind;
  readonly sparse: boolean;
  readonly threshold: Threshold;
  readonly strictUpper: boolean;
  readonly numRows: number;
  readonly numCols: number;
  readonly numField: number;
  readonly seed: number;
}

/** Operands of a case: random codes (about 10 % missing in sparse mode) → planes, sums and counts. */
interface Operands {
  readonly layout: PlaneLayout;
  readonly a: PlaneMatrix;
  readonly b: PlaneMatrix;
  readonly aSums: { sums: Float64Array; counts: Float64Array };
  readonly bSums: { sums: Float64Array; counts: Float64Array };
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
  const a = matrix(c.numRows + 3);
  const b = c.strictUpper ? a : matrix(c.numCols + 2);
  return { layout, a, b, aSums: referenceVectorSums({ planes: a, ...layout }), bSums: referenceVectorSums({ planes: b, ...layout }) };
}

function thresholdBits(t: Threshold): PairThresholdBits {
  if (t.kind === 'single') return { kind: 'single', above: float32BitsAtMost(t.value) };
  if (t.kind === 'multi2') return { kind: 'multi2', ll: float32BitsAtMost(t.tLL), lh: float32BitsAtMost(t.tLH), hh: float32BitsAtMost(t.tHH), llhh: float32BitsAtMost(t.tLLHH) };
  return { kind: 'none' };
}

/** Per-vector words as cometPairProgram.ts defines them (dense g factors from core/formulas' factors). */
function vectorWords(k: FormulaConstants, numField: number, sums: { sums: Float64Array; counts: Float64Array }, sparse: boolean): Uint32Array {
  const n = sums.sums.length;
  const words = new Uint32Array(n * COMET_PAIR_VECTOR_WORDS);
  const doubles = new Float64Array(words.buffer);
  const { recipCrc } = denseFactors2(k, numField);
  for (let v = 0; v < n; v++) {
    const s1 = sums.sums[v];
    words[v * COMET_PAIR_VECTOR_WORDS] = s1;
    words[v * COMET_PAIR_VECTOR_WORDS + 1] = sparse ? sums.counts[v] : numField;
    if (!sparse) {
      doubles[v * 4 + 1] = 1 - k.param * (recipCrc * (k.countedBits * numField - s1));
      doubles[v * 4 + 2] = 1 - k.param * (recipCrc * s1);
    }
  }
  return words;
}

const ROW_VECTOR_FIRST = 500;
const COL_VECTOR_FIRST = 37;
const NUM_VECTOR = 1000;

function requestOf(c: Case, ops: Operands, k: FormulaConstants): PairFinalizeRequest {
  const aFirst = c.strictUpper ? 2 : 1;
  const constants = cometPairConstants(k, c.numField);
  if (constants === null) throw new Error('constants outside the device library range');
  return {
    gemm: {
      a: ops.a, aFirst, aCount: c.numRows, b: ops.b, bFirst: c.strictUpper ? aFirst : 2,
      bCount: c.strictUpper ? c.numRows : c.numCols, termGroups: termGroups2(ops.layout), strictUpper: c.strictUpper,
    },
    values: cometPairProgram(c.sparse),
    constants,
    rowVectors: vectorWords(k, c.numField, ops.aSums, c.sparse),
    colVectors: c.strictUpper ? vectorWords(k, c.numField, ops.aSums, c.sparse) : vectorWords(k, c.numField, ops.bSums, c.sparse),
    rowVectorFirst: ROW_VECTOR_FIRST,
    colVectorFirst: c.strictUpper ? ROW_VECTOR_FIRST : COL_VECTOR_FIRST,
    numVector: NUM_VECTOR,
    threshold: thresholdBits(c.threshold),
    records: true,
  };
}

/** What the CPU computes for the request: S, counts, and the records (2i + a, 2j + b, value bits) row by row. */
async function oracle(c: Case, ops: Operands, k: FormulaConstants, request: PairFinalizeRequest): Promise<{ sum: bigint; entries: number; zeros: number; records: number[] }> {
  const { gemm } = request;
  const tallies = await new PopcountGemmRef().run(gemm);
  const accumulator = new ChecksumAccumulator();
  const records: number[] = [];
  const values = new Float64Array(4);
  const keep = new Uint8Array(4);
  for (let r = 0; r < gemm.aCount; r++) {
    for (let col = 0; col < gemm.bCount; col++) {
      const row = gemm.aFirst + r;
      const bRow = gemm.bFirst + col;
      if (c.strictUpper && row >= bRow) continue;
      const t = r * gemm.bCount + col;
      const C = k.countedBits;
      const si1 = ops.aSums.sums[row];
      const sj1 = (c.strictUpper ? ops.aSums : ops.bSums).sums[bRow];
      const r11 = tallies[0][t];
      if (c.sparse) {
        const ci = ops.aSums.counts[row];
        const cj = (c.strictUpper ? ops.aSums : ops.bSums).counts[bRow];
        const [sIJ, sJI, nIJ] = [tallies[1][t], tallies[2][t], tallies[3][t]];
        const r10 = C * sIJ - r11, r01 = C * sJI - r11, r00 = C * C * nIJ - C * sIJ - C * sJI + r11;
        const cij = r00 + r01 + r10 + r11;
        const si0 = C * ci - si1, sj0 = C * cj - sj1;
        values.set([sparseValue2(k, r00, si0, sj0, ci, cj, cij), sparseValue2(k, r01, si0, sj1, ci, cj, cij),
          sparseValue2(k, r10, si1, sj0, ci, cj, cij), sparseValue2(k, r11, si1, sj1, ci, cj, cij)]);
      } else {
        const m = c.numField;
        const r10 = C * si1 - r11, r01 = C * sj1 - r11, r00 = C * C * m - C * si1 - C * sj1 + r11;
        const si0 = C * m - si1, sj0 = C * m - sj1;
        values.set([denseValue2(k, r00, si0, sj0, m), denseValue2(k, r01, si0, sj1, m), denseValue2(k, r10, si1, sj0, m), denseValue2(k, r11, si1, sj1, m)]);
      }
      markPassingEntries(c.threshold, values, 4, keep);
      for (let e = 0; e < 4; e++) {
        if (keep[e] === 0) continue;
        accumulator.add(entryUid2(NUM_VECTOR, request.rowVectorFirst + row, e >> 1, request.colVectorFirst + bRow, e & 1), values[e]);
        records.push(2 * (request.rowVectorFirst + row) + (e >> 1), 2 * (request.colVectorFirst + bRow) + (e & 1), float32Bits(values[e]));
      }
    }
  }
  return { sum: accumulator.sum(), entries: accumulator.entries, zeros: accumulator.zeros, records };
}

const CASES: readonly Case[] = [
  { name: 'ccc dense, ragged, no threshold', metric: 'ccc', sparse: false, threshold: { kind: 'none' }, strictUpper: false, numRows: 70, numCols: 45, numField: 133, seed: 1 },
  { name: 'ccc dense, strictUpper, threshold 0.6', metric: 'ccc', sparse: false, threshold: { kind: 'single', value: 0.6 }, strictUpper: true, numRows: 81, numCols: 81, numField: 65, seed: 2 },
  { name: 'ccc sparse, multi2', metric: 'ccc', sparse: true, threshold: { kind: 'multi2', tLL: 0.5, tLH: 0.6, tHH: 0.7, tLLHH: 1.1 }, strictUpper: false, numRows: 33, numCols: 67, numField: 290, seed: 3 },
  { name: 'ccc sparse, strictUpper, threshold 0', metric: 'ccc', sparse: true, threshold: { kind: 'single', value: 0 }, strictUpper: true, numRows: 66, numCols: 66, numField: 31, seed: 4 },
  { name: 'duo dense, threshold 0.3', metric: 'duo', sparse: false, threshold: { kind: 'single', value: 0.3 }, strictUpper: false, numRows: 40, numCols: 29, numField: 100, seed: 5 },
  { name: 'duo sparse, no threshold, few fields (many zeros)', metric: 'duo', sparse: true, threshold: { kind: 'none' }, strictUpper: true, numRows: 50, numCols: 50, numField: 7, seed: 6 },
];

/** Expects a device result to be exactly the oracle's checksum sum, counts and records. */
function expectOracleResult(got: PairFinalizeResult, want: Awaited<ReturnType<typeof oracle>>): void {
  if (got.kind !== 'done') throw new Error(`device declined: ${got.reason}`);
  expect({ sum: got.checksumSum, entries: got.entries, zeros: got.zeros }).toEqual({ sum: want.sum, entries: want.entries, zeros: want.zeros });
  expect(Array.from(got.records.words)).toEqual(want.records);
  got.records.release();
}

const OPTION_SETS: readonly { readonly name: string; readonly options: WebgpuPopcountGemmOptions }[] = [
  { name: 'bitwise', options: { kernel: 'bitwise' } },
  { name: 'bitwise, 4 KiB bindings (several sub-blocks)', options: { kernel: 'bitwise', maxBindingBytes: 4096 } },
  { name: 'u8 dot4 (padded tally layout)', options: { kernel: 'dot4' } },
  // 64 KiB expansions: K slabs of 128 bytes, so the finalize reads tallies added over two and three slabs.
  { name: 'u8 dot4, 64 KiB expansions (K slabs)', options: { kernel: 'dot4', u8ExpansionBytes: 64 << 10 } },
  ...(gate.hasSubgroupMatrix ? [{ name: 'u8 subgroup-matrix', options: { kernel: 'subgroup-matrix' as const } }] : []),
];

describe.skipIf(!gate.available)(`webgpu device finalize on ${gate.description}`, () => {
  describe.each(OPTION_SETS)('$name', ({ options }) => {
    let gemm: PopcountGemmWebgpu;
    beforeAll(async () => {
      gemm = await createPopcountGemmWebgpu(options);
    });
    afterAll(async () => {
      await gemm.close();
    });

    it.each(CASES)('equals the CPU: $name', async (c) => {
      const k: FormulaConstants = { countedBits: countedBitsPerField(c.metric), multiplier: defaultMultiplier(c.metric), param: DEFAULT_PARAM };
      const ops = operandsOf(c);
      const request = requestOf(c, ops, k);
      const want = await oracle(c, ops, k, request);
      expect(want.entries).toBeGreaterThan(0);
      expectOracleResult(await gemm.finalizePairs(request), want);
    });
  });

  describe.each(OPTION_SETS.slice(0, 3))('a top-N run\'s records-only bar ($name)', ({ options }) => {
    let gemm: PopcountGemmWebgpu;
    beforeAll(async () => {
      gemm = await createPopcountGemmWebgpu(options);
    });
    afterAll(async () => {
      await gemm.close();
    });

    it.each(CASES)('only records at least as strong as the bar come back, ties included; checksum and counts unchanged: $name', async (c) => {
      const k: FormulaConstants = { countedBits: countedBitsPerField(c.metric), multiplier: defaultMultiplier(c.metric), param: DEFAULT_PARAM };
      const ops = operandsOf(c);
      const request = requestOf(c, ops, k);
      const want = await oracle(c, ops, k, request);
      const wantValues = new Float32Array(Uint32Array.from(want.records).buffer);
      // The bar: a value some records hold (ties at the bar must come back), a third of the way from the weak end and
      // above the smallest value (a few fields give many zeros).
      const sorted = Array.from({ length: want.records.length / 3 }, (_, r) => wantValues[3 * r + 2]).filter((v) => !Number.isNaN(v)).sort((x, y) => x - y);
      for (const keep of ['atLeast', 'atMost'] as const) {
        const third = keep === 'atLeast' ? sorted[Math.floor((2 * sorted.length) / 3)] : sorted[Math.floor(sorted.length / 3)];
        const barValue = keep === 'atLeast' && third === sorted[0] ? sorted.find((v) => v > sorted[0]) ?? third : third;
        const recordBar: RecordBar = { keep, valueBits: float32Bits(barValue) };
        const kept: number[] = [];
        for (let r = 0; r < want.records.length / 3; r++) {
          const v = wantValues[3 * r + 2];
          if (keep === 'atLeast' ? v >= barValue : v <= barValue) kept.push(...want.records.slice(3 * r, 3 * r + 3));
        }
        expect(kept.length).toBeGreaterThan(0);
        expect(kept.length).toBeLessThan(want.records.length);
        expectOracleResult(await gemm.finalizePairs({ ...request, recordBar }), { ...want, records: kept });
      }
    });
  });

  // Every metric's default mult (9/2, 4) has a short significand; another mult takes the general product.
  it.each([CASES[0], CASES[2]])('equals the CPU with a mult of a long significand (4.1): $name', async (c) => {
    const gemm = await createPopcountGemmWebgpu({ kernel: 'bitwise' });
    try {
      const k: FormulaConstants = { countedBits: countedBitsPerField(c.metric), multiplier: 4.1, param: DEFAULT_PARAM };
      const ops = operandsOf(c);
      const request = requestOf(c, ops, k);
      const want = await oracle(c, ops, k, request);
      expect(want.entries).toBeGreaterThan(0);
      expectOracleResult(await gemm.finalizePairs(request), want);
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
      const k: FormulaConstants = { countedBits: 2, multiplier: 4.5, param: -40 };
      expect((await gemm.finalizePairs(requestOf(c, ops, k))).kind).toBe('needsHost');
      // 70 × 300 pairs, 4 entries each, all passing: more records than the first buffer holds.
      const big: Case = { ...c, numRows: 70, numCols: 300, seed: 9 };
      const bigOps = operandsOf(big);
      const kDefault: FormulaConstants = { countedBits: 2, multiplier: 4.5, param: DEFAULT_PARAM };
      const request = requestOf(big, bigOps, kDefault);
      const got = await gemm.finalizePairs(request);
      if (got.kind !== 'done') throw new Error(`device declined: ${got.reason}`);
      expect(got.records.count).toBe(4 * 70 * 300);
      const want = await oracle(big, bigOps, kDefault, request);
      expect(got.checksumSum).toBe(want.sum);
      expect(Array.from(got.records.words)).toEqual(want.records);
      got.records.release();
      // Released records read as empty: their read-back buffer is unmapped and back in the pool.
      expect(got.records.words).toHaveLength(0);
    } finally {
      await gemm.close();
    }
  });

  it('gives each request its own results when several are in flight, records overflowing among them', async () => {
    // Three requests at once on a fresh kernel set: two scratch sets, so the third waits for the first to complete;
    // the two large ones (84 000 and 72 000 records) overflow the first record room while another is in flight.
    const gemm = await createPopcountGemmWebgpu({ kernel: 'bitwise' });
    try {
      const k: FormulaConstants = { countedBits: 2, multiplier: 4.5, param: DEFAULT_PARAM };
      const cases: Case[] = [
        { ...CASES[0], numRows: 70, numCols: 300, seed: 11 },
        { ...CASES[1], seed: 12 },
        { ...CASES[0], numRows: 60, numCols: 300, seed: 13 },
      ];
      const requests = cases.map((c) => {
        const ops = operandsOf(c);
        return { c, ops, request: requestOf(c, ops, k) };
      });
      const results = await Promise.all(requests.map(({ request }) => gemm.finalizePairs(request)));
      expect(gemm.transfers.peakPendingReadBacks).toBe(2);
      for (const [idx, { c, ops, request }] of requests.entries()) {
        expectOracleResult(results[idx], await oracle(c, ops, k, request));
      }
      expect(results[0].kind === 'done' && results[0].records.count).toBe(4 * 70 * 300);
    } finally {
      await gemm.close();
    }
  });
});
