// Device finalize of 3-way requests with a value program that belongs to no analysis (mgemm/tripleFinalize.ts
// TripleValueProgram): two term groups, per-vector words of i, j and k at a stride of their own, run words, a run
// constant, the triple's global vectors; several slices of ragged rectangles. Against an oracle from the
// definitions: the reference kernels' tallies, JavaScript doubles, one value per triple named by the triple (uid of
// its sorted coordinates, plain coordinates in the records), a single threshold and a records-only bar.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createPopcountGemmWebgpu, type PopcountGemm3Request, type PopcountGemmWebgpu, type ProgramTripleFinalizeRequest, type TripleThresholdBits,
  type TripleValueProgram,
} from '../../src/mgemm/index.js';
import { PopcountGemmRef } from '../../src/mgemm/kernels/ref/popcountGemmRef.js';
import { ChecksumAccumulator } from '../../src/core/checksum.js';
import { float32BitsAtMost } from '../../src/analyses/devicePairs.js';
import { float32Bits } from '../helpers/float32Bits.js';
import { webgpuGate } from '../helpers/webgpuGate.js';
import { planesFromFieldBits, randomFieldBits, seededRandom } from './planeFixtures.js';

const gate = await webgpuGate();

/**
 * value = (t0 + 2·t1 + w_i + 3·w_j + 5·w_k + run[(gi + gj + gk) % 5]) / scale: a small integer over a power of two,
 * so the double is exact.
 */
const PROGRAM: TripleValueProgram = {
  cacheKey: 'test/weighted-sum',
  wgsl: `
fn tripleValue(t: u32, rq: u32, cq: u32, gi: u32, gj: u32, gk: u32) -> vec2<u32> {
  let t0 = tallies[t];
  let t1 = tallies[u.groupWords + t];
  let sum = t0 + 2u * t1 + rowWord(rq, 1u) + 3u * jWord(1u) + 5u * colWord(cq, 1u) + runWords[(gi + gj + gk) % 5u];
  return sdDiv(sdFromU32(sum), sdFromU32(u.scale));
}`,
  vectorWords: 2,
  constantNames: ['scale'],
};

const RUN_WORDS = Uint32Array.from([0, 7, 1, 30, 2]);
const SCALE = 256;
const NUM_VECTOR = 700;
const NUM_FIELD = 203;

/** x at global vectors 500…, y at 0…, z at 300…: every triple has j < k < i. */
const FIRSTS = { x: 500, y: 0, z: 300 } as const;
const ROWS = { x: 40, y: 6, z: 70 } as const;

/** Per-vector words: [unused, w] with w = (7·v + 3) mod 11 of the row v (word 0 left for the stride). */
function vectorWords(numRows: number): Uint32Array {
  const words = new Uint32Array(2 * numRows);
  for (let v = 0; v < numRows; v++) words[2 * v + 1] = (7 * v + 3) % 11;
  return words;
}

function gemmOf(): PopcountGemm3Request {
  const random = seededRandom(31);
  const planes = (numRows: number): ReturnType<typeof planesFromFieldBits> =>
    planesFromFieldBits(randomFieldBits(random, numRows, 2, NUM_FIELD, 0.3), 2, NUM_FIELD, false);
  return {
    x: planes(ROWS.x), y: planes(ROWS.y), z: planes(ROWS.z),
    planePairs: [[0, 0], [0, 1]],
    termGroups: [[[0, 1]], [[1, 0], [0, 0]]],
    slices: [
      { yRow: 0, xFirst: 0, xCount: 40, zFirst: 0, zCount: 70 },
      { yRow: 3, xFirst: 5, xCount: 33, zFirst: 9, zCount: 37 },
      { yRow: 5, xFirst: 39, xCount: 1, zFirst: 69, zCount: 1 },
    ],
  };
}

function requestOf(gemm: PopcountGemm3Request, threshold: TripleThresholdBits, recordBar: ProgramTripleFinalizeRequest['recordBar']): ProgramTripleFinalizeRequest {
  return {
    gemm, values: PROGRAM, constants: [SCALE], runWords: RUN_WORDS,
    xVectors: vectorWords(ROWS.x), yVectors: vectorWords(ROWS.y), zVectors: vectorWords(ROWS.z),
    xVectorFirst: FIRSTS.x, yVectorFirst: FIRSTS.y, zVectorFirst: FIRSTS.z, numVector: NUM_VECTOR, threshold, records: true, recordBar,
  };
}

/** The oracle: checksum of every triple's value, records past the threshold and bar, slice by slice, row-major. */
async function oracle(gemm: PopcountGemm3Request, threshold: number, bar: number): Promise<{ sum: bigint; entries: number; zeros: number; records: number[] }> {
  const tallies = await new PopcountGemmRef().run3(gemm);
  const accumulator = new ChecksumAccumulator();
  const records: number[] = [];
  const w = (v: number): number => (7 * v + 3) % 11;
  gemm.slices.forEach((s, idx) => {
    for (let r = 0; r < s.xCount; r++) for (let c = 0; c < s.zCount; c++) {
      const t = r * s.zCount + c;
      const [i, j, k] = [FIRSTS.x + s.xFirst + r, FIRSTS.y + s.yRow, FIRSTS.z + s.zFirst + c];
      const sum = tallies[idx][0][t] + 2 * tallies[idx][1][t] + w(s.xFirst + r) + 3 * w(s.yRow) + 5 * w(s.zFirst + c) + RUN_WORDS[(i + j + k) % 5];
      const value = sum / SCALE;
      const [hi, mid, lo] = [i, j, k].sort((a, b) => b - a);
      accumulator.add((hi * NUM_VECTOR + mid) * NUM_VECTOR + lo, value);
      if (Math.fround(value) > threshold && Math.fround(value) >= bar) records.push(i, j, k, float32Bits(value));
    }
  });
  return { sum: accumulator.sum(), entries: accumulator.entries, zeros: accumulator.zeros, records };
}

describe.skipIf(!gate.available)(`webgpu 3-way device finalize with a value program on ${gate.description}`, () => {
  let gemm: PopcountGemmWebgpu;
  beforeAll(async () => {
    gemm = await createPopcountGemmWebgpu({ kernel: 'bitwise' });
  });
  afterAll(async () => {
    await gemm.close();
  });

  it.each([
    { name: 'no threshold, no bar', threshold: -1, bar: -1 },
    { name: 'threshold 0.3, bar 0.34', threshold: 0.3, bar: 0.34 },
  ])('every triple in the checksum, records (i, j, k, value) in order: $name', async ({ threshold, bar }) => {
    const request = gemmOf();
    const bits: TripleThresholdBits = threshold < 0 ? { kind: 'none' } : { kind: 'single', above: float32BitsAtMost(threshold) };
    const recordBar = bar < 0 ? null : { keep: 'atLeast' as const, valueBits: float32Bits(bar) };
    const result = await gemm.finalizeTriples(requestOf(request, bits, recordBar));
    if (result.kind !== 'done') throw new Error(`device declined: ${result.reason}`);
    const want = await oracle(request, threshold, bar);
    expect(want.entries).toBe(40 * 70 + 33 * 37 + 1);
    expect(want.records.length / 4).toBeGreaterThan(threshold < 0 ? want.entries - 1 : 50);
    // The threshold and bar leave some triples out (they choose records, not entries).
    if (threshold >= 0) expect(want.records.length / 4).toBeLessThan(want.entries * 0.9);
    expect({ sum: result.checksumSum, entries: result.entries, zeros: result.zeros }).toEqual({ sum: want.sum, entries: want.entries, zeros: want.zeros });
    expect(Array.from(result.records.words.subarray(0, 4 * result.records.count))).toEqual(want.records);
  }, 300_000);

  it('declines a request whose value leaves the checksum\'s [0, 16)', async () => {
    const result = await gemm.finalizeTriples({ ...requestOf(gemmOf(), { kind: 'none' }, null), constants: [1] });
    expect(result.kind).toBe('needsHost');
  }, 300_000);
});
