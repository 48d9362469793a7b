// Device finalize of 2-way requests with a value program that belongs to no analysis (mgemm/pairFinalize.ts
// PairValueProgram): two of the four table entries, per-vector words at a stride of their own, a run constant, two
// term groups, zeros and undefined values (NaN). Against an oracle from the definitions: naive tallies, JavaScript
// doubles, core/thresholds.ts and core/checksum.ts's accumulator.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createPopcountGemmWebgpu, PAIR_VALUE_UNDEFINED_WGSL, type PairFinalizeRequest, type PairThresholdBits, type PairValueProgram,
  type PopcountGemmWebgpu, type TermGroup,
} from '../../src/mgemm/index.js';
import { ChecksumAccumulator, entryUid2 } from '../../src/core/checksum.js';
import { markPassingEntries, type Threshold } from '../../src/core/thresholds.js';
import { float32BitsAtMost } from '../../src/analyses/devicePairs.js';
import { float32Bits } from '../helpers/float32Bits.js';
import { webgpuGate } from '../helpers/webgpuGate.js';
import { naiveTallies, planesFromFieldBits, randomFieldBits, seededRandom, type FieldBits } from './planeFixtures.js';

const gate = await webgpuGate();

/** Entry 01: t0 / (t0 + t1 + offset); entry 10: w_i·w_j / 64, undefined where w_i + w_j is a multiple of 3. */
const PROGRAM: PairValueProgram = {
  cacheKey: 'test/ratio',
  wgsl: `
fn pairValues(vi: u32, vj: u32, t: u32, gi: u32, gj: u32) -> array<vec2<u32>, 2> {
  let t0 = tallies[t];
  let t1 = tallies[u.groupWords + t];
  let wi = rowVec[vi + 2u];
  let wj = colVec[vj + 2u];
  let ratio = sdDiv(sdFromU32(t0), sdFromU32(t0 + t1 + u.offset));
  let product = select(sdDiv(sdFromU32(wi * wj), sdFromU32(64u)), ${PAIR_VALUE_UNDEFINED_WGSL}, (wi + wj) % 3u == 0u);
  return array<vec2<u32>, 2>(ratio, product);
}`,
  setup: '',
  entryBits: [1, 2],
  vectorWords: 3,
  constantNames: ['offset'],
};

const TERM_GROUPS: TermGroup[] = [[[0, 0]], [[0, 1], [1, 0]]];
const OFFSET = 3;
const NUM_VECTOR = 900;
const FLOAT32_NAN = 0x7fc00000;

interface Case {
  readonly name: string;
  readonly threshold: Threshold;
  readonly strictUpper: boolean;
  readonly numRows: number;
  readonly numCols: number;
  readonly numField: number;
  readonly seed: number;
}

interface Operands {
  readonly aBits: FieldBits;
  readonly bBits: FieldBits;
  readonly request: PairFinalizeRequest;
  /** w of each row of A and of B (word 2 of its vector words). */
  readonly aWeights: number[];
  readonly bWeights: number[];
}

/** Vector words [filler, filler, w] with w in [0, 30]: values stay below 16 (30 · 30 / 64). */
function vectorWords(random: () => number, numVectors: number): { words: Uint32Array; weights: number[] } {
  const words = new Uint32Array(3 * numVectors);
  const weights: number[] = [];
  for (let v = 0; v < numVectors; v++) {
    weights.push(Math.floor(random() * 31));
    words.set([0xdeadbeef, Math.floor(random() * 2 ** 32), weights[v]], 3 * v);
  }
  return { words, weights };
}

function thresholdBits(t: Threshold): PairThresholdBits {
  return t.kind === 'single' ? { kind: 'single', above: float32BitsAtMost(t.value) } : { kind: 'none' };
}

function operandsOf(c: Case): Operands {
  const random = seededRandom(c.seed);
  const aBits = randomFieldBits(random, c.numRows + 2, 2, c.numField);
  const bBits = c.strictUpper ? aBits : randomFieldBits(random, c.numCols + 1, 2, c.numField);
  const a = planesFromFieldBits(aBits, 2, c.numField, false);
  const b = c.strictUpper ? a : planesFromFieldBits(bBits, 2, c.numField, false);
  const aWords = vectorWords(random, aBits.length);
  const bWords = c.strictUpper ? aWords : vectorWords(random, bBits.length);
  const request: PairFinalizeRequest = {
    gemm: { a, aFirst: 1, aCount: c.numRows, b, bFirst: c.strictUpper ? 1 : 0, bCount: c.strictUpper ? c.numRows : c.numCols, termGroups: TERM_GROUPS, strictUpper: c.strictUpper },
    values: PROGRAM,
    constants: [OFFSET],
    rowVectors: aWords.words,
    colVectors: bWords.words,
    rowVectorFirst: 100,
    colVectorFirst: c.strictUpper ? 100 : 7,
    numVector: NUM_VECTOR,
    threshold: thresholdBits(c.threshold),
    records: true,
  };
  return { aBits, bBits, request, aWeights: aWords.weights, bWeights: bWords.weights };
}

/** The request's checksum sum, counts and records, row by row, entries 01 then 10. */
function oracle(c: Case, ops: Operands): { sum: bigint; entries: number; zeros: number; nan: number; records: number[] } {
  const { request } = ops;
  const { gemm } = request;
  const [t0, t1] = naiveTallies(ops.aBits, ops.bBits, gemm);
  const accumulator = new ChecksumAccumulator();
  const records: number[] = [];
  const values = new Float64Array(2);
  const keep = new Uint8Array(2);
  let nan = 0;
  for (let r = 0; r < gemm.aCount; r++) {
    for (let col = 0; col < gemm.bCount; col++) {
      const row = gemm.aFirst + r;
      const bRow = gemm.bFirst + col;
      if (c.strictUpper && row >= bRow) continue;
      const t = r * gemm.bCount + col;
      const wi = ops.aWeights[row];
      const wj = ops.bWeights[bRow];
      values[0] = t0[t] / (t0[t] + t1[t] + OFFSET);
      values[1] = (wi + wj) % 3 === 0 ? NaN : (wi * wj) / 64;
      markPassingEntries(c.threshold, values, 2, keep);
      const i = request.rowVectorFirst + row;
      const j = request.colVectorFirst + bRow;
      for (const [k, [a, b]] of [[0, 1], [1, 0]].entries()) {
        if (keep[k] === 0) continue;
        if (Number.isNaN(values[k])) nan++;
        accumulator.add(entryUid2(NUM_VECTOR, i, a, j, b), values[k]);
        records.push(2 * i + a, 2 * j + b, Number.isNaN(values[k]) ? FLOAT32_NAN : float32Bits(values[k]));
      }
    }
  }
  return { sum: accumulator.sum(), entries: accumulator.entries, zeros: accumulator.zeros, nan, records };
}

const CASES: readonly Case[] = [
  { name: 'no threshold (undefined values are records)', threshold: { kind: 'none' }, strictUpper: false, numRows: 70, numCols: 45, numField: 90, seed: 21 },
  { name: 'strictUpper, threshold 0.3', threshold: { kind: 'single', value: 0.3 }, strictUpper: true, numRows: 77, numCols: 77, numField: 40, seed: 22 },
  { name: 'threshold 0 (zeros and undefined values drop out)', threshold: { kind: 'single', value: 0 }, strictUpper: false, numRows: 33, numCols: 130, numField: 65, seed: 23 },
];

describe.skipIf(!gate.available)(`webgpu device finalize of a caller's value program on ${gate.description}`, () => {
  let gemm: PopcountGemmWebgpu;
  beforeAll(async () => {
    // Small bindings: several sub-blocks per request, each its own finalize dispatch.
    gemm = await createPopcountGemmWebgpu({ kernel: 'bitwise', maxBindingBytes: 8192 });
  });
  afterAll(async () => {
    await gemm.close();
  });

  it.each(CASES)('equals the oracle: $name', async (c) => {
    const ops = operandsOf(c);
    const want = oracle(c, ops);
    expect(want.entries).toBeGreaterThan(0);
    if (c.threshold.kind === 'none') {
      expect(want.nan).toBeGreaterThan(0);
      expect(want.zeros).toBeGreaterThan(0);
    }
    const got = await gemm.finalizePairs(ops.request);
    if (got.kind !== 'done') throw new Error(`device declined: ${got.reason}`);
    expect({ sum: got.checksumSum, entries: got.entries, zeros: got.zeros }).toEqual({ sum: want.sum, entries: want.entries, zeros: want.zeros });
    expect(Array.from(got.records.words)).toEqual(want.records);
    got.records.release();
  });

  it('refuses per-entry thresholds for values that do not fill the table, and constants that do not match', async () => {
    const ops = operandsOf(CASES[0]);
    const multi2: PairThresholdBits = { kind: 'multi2', ll: 0, lh: 0, hh: 0, llhh: 0 };
    await expect(gemm.finalizePairs({ ...ops.request, threshold: multi2 })).rejects.toThrow('per-entry thresholds need a whole 2 × 2 table');
    await expect(gemm.finalizePairs({ ...ops.request, constants: [] })).rejects.toThrow('0 constants for 1 names');
  });
});
