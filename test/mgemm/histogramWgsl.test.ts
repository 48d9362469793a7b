// The device histogram's WGSL against JavaScript: the bucket (int)(x·1000) of doubles at and around every kind of
// bucket boundary (where the double product rounds onto an integer from below, or not), random values, zeros,
// negatives and huge values; counting into columns and the undefined slot; and the carry of a 64-bit count whose
// low word wraps.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HistogramLayout } from '../../src/core/histogramLayout.js';
import { HISTOGRAM_STORAGE, histogramCountsOf, histogramWgsl, histogramWords } from '../../src/mgemm/kernels/webgpu/programs/wgsl/histogramWgsl.js';
import { SOFT_DOUBLE_WGSL } from '../../src/mgemm/kernels/webgpu/programs/wgsl/softDouble.js';
import type { WgslProgram } from '../../src/mgemm/kernels/webgpu/programs/wgslProgram.js';
import type { WebgpuRunner } from '../../src/mgemm/kernels/webgpu/runtime/webgpuRunner.js';
import { webgpuGate } from '../helpers/webgpuGate.js';
import { openTestRunner } from '../helpers/webgpuRunner.js';
import { seededRandom } from './planeFixtures.js';

const gate = await webgpuGate();

const WORKGROUP = 64;
const NUM_BUCKETS = 4500;
/** Two columns: entry 0 in column 0, entry 1 in column 1, and their sum in column 2 (as CoMet's LL, HH, LL+HH). */
const LAYOUT: HistogramLayout = {
  numBuckets: NUM_BUCKETS, columnNames: ['A', 'B', 'A+B'], entryColumns: [0, 1], sumColumns: [{ column: 2, entryBits: [0, 1] }],
};

/** mode 0: out[t] = bucket of value t; mode 1: count pairs (value 2t, value 2t + 1); mode 2: histogramAdd(slot 0 / 1) per thread. */
const PROGRAM: WgslProgram = {
  cacheKey: 'test/histogram',
  workgroupSize: [WORKGROUP, 1],
  storage: [
    { name: 'cases', access: 'read', elementType: 'u32' },
    { name: 'out', access: 'read_write', elementType: 'u32' },
    HISTOGRAM_STORAGE,
  ],
  uniforms: [{ name: 'numCases', type: 'u32' }, { name: 'mode', type: 'u32' }],
  extensions: [],
  declarations: `${SOFT_DOUBLE_WGSL}\n${histogramWgsl(LAYOUT, [0, 1])}`,
  mainBody: `
  let t = wg.x * ${WORKGROUP}u + li;
  if (t >= u.numCases) { return; }
  if (u.mode == 0u) {
    out[t] = histogramBucket(vec2<u32>(cases[2u * t], cases[2u * t + 1u]));
  } else if (u.mode == 1u) {
    histogramCount(array<vec2<u32>, 2>(vec2<u32>(cases[4u * t], cases[4u * t + 1u]), vec2<u32>(cases[4u * t + 2u], cases[4u * t + 3u])));
  } else {
    histogramAdd(t & 1u);
  }`,
};

const scratch = new DataView(new ArrayBuffer(8));
function bitsOf(x: number): [number, number] {
  scratch.setFloat64(0, x, true);
  return [scratch.getUint32(0, true), scratch.getUint32(4, true)];
}
/** The double `steps` ulps away from a positive x. */
function ulpsAway(x: number, steps: number): number {
  scratch.setFloat64(0, x, true);
  scratch.setBigUint64(0, scratch.getBigUint64(0, true) + BigInt(steps), true);
  return scratch.getFloat64(0, true);
}

/** SPEC §9's bucket, written out: the double product, truncated, clamped. */
function bucketOf(x: number): number {
  return Math.min(NUM_BUCKETS - 1, Math.max(0, Math.trunc(x * 1000)));
}

/** Values at and next to bucket boundaries (b/1000 and the doubles around it), random ones and the edges. */
function bucketCases(): number[] {
  const random = seededRandom(9);
  const values = [0, -0, -1, -1e-300, 1e-300, 1e300, 2 ** 31 / 1000, 2 ** 40, 4.5, 4.499, 4.4999999999999, 15.999999999999998, 0.001, 0.0009999999999999998];
  for (let k = 0; k < 4000; k++) {
    const b = k < 2000 ? k : Math.floor(random() * 16000);
    const x = b / 1000;
    for (const steps of [-3, -2, -1, 0, 1, 2, 3]) if (b > 0 || steps >= 0) values.push(ulpsAway(x, steps));
  }
  for (let k = 0; k < 4000; k++) values.push(random() * 16);
  return values;
}

describe.skipIf(!gate.available)(`WGSL histogram on ${gate.description}`, () => {
  let runner: WebgpuRunner;
  beforeAll(async () => {
    runner = await openTestRunner();
  });
  afterAll(() => runner.destroy());

  /** Runs PROGRAM in `mode` over `numCases` with `caseWords`; returns `out` and the histogram's words. */
  async function run(mode: number, numCases: number, caseWords: Uint32Array, histogramStart?: Uint32Array): Promise<{ out: Uint32Array; histogram: Uint32Array }> {
    const input = runner.createStorageBuffer(Math.max(16, caseWords.byteLength), { readBack: false });
    const out = runner.createStorageBuffer(Math.max(16, numCases * 4), { readBack: true });
    const histogram = runner.createStorageBuffer(histogramWords(LAYOUT) * 4, { readBack: true });
    runner.upload(input, caseWords);
    runner.upload(histogram, histogramStart ?? new Uint32Array(histogramWords(LAYOUT)));
    const dispatch = { program: PROGRAM, storage: [input, out, histogram], uniforms: { numCases, mode }, workgroups: [Math.ceil(numCases / WORKGROUP), 1] as [number, number] };
    const [outWords, histogramWordsBack] = await runner.runAndReadBackMany([dispatch], [
      { buffer: out, numBytes: numCases * 4 }, { buffer: histogram, numBytes: histogramWords(LAYOUT) * 4 },
    ]);
    for (const b of [input, out, histogram]) b.destroy();
    return { out: outWords, histogram: histogramWordsBack };
  }

  it('buckets every double as (int)(x·1000) of the double product, clamped', async () => {
    const values = bucketCases();
    const { out } = await run(0, values.length, Uint32Array.from(values.flatMap(bitsOf)));
    const mismatches = values.flatMap((x, t) => (out[t] === bucketOf(x) ? [] : [`${x}: got ${out[t]}, want ${bucketOf(x)}`]));
    expect(mismatches.slice(0, 10)).toEqual([]);
    // The cases include doubles just below a boundary whose product rounds onto it, and ones that stay below.
    expect(values.some((x) => x < Math.round(x * 1000) / 1000 && bucketOf(x) === Math.round(x * 1000))).toBe(true);
    expect(values.some((x) => x < Math.round(x * 1000) / 1000 && bucketOf(x) === Math.round(x * 1000) - 1)).toBe(true);
  });

  it('counts entries in their columns, sums in theirs, undefined values apart', async () => {
    const random = seededRandom(4);
    const pairs: [number, number][] = [[NaN, 0.5], [0.25, NaN], [4.4, 0.2], [0, 0]];
    for (let k = 0; k < 3000; k++) pairs.push([Math.floor(random() * 5000) / 1000, random() * 4.5]);
    const { histogram } = await run(1, pairs.length, Uint32Array.from(pairs.flatMap(([a, b]) => [...bitsOf(a), ...bitsOf(b)])));
    const want = new Float64Array(3 * NUM_BUCKETS);
    let undefinedValues = 0;
    for (const [a, b] of pairs) {
      for (const [column, x] of [[0, a], [1, b]] as const) {
        if (Number.isNaN(x)) undefinedValues++;
        else want[column * NUM_BUCKETS + bucketOf(x)]++;
      }
      if (!Number.isNaN(a + b)) want[2 * NUM_BUCKETS + bucketOf(a + b)]++;
    }
    const counts = histogramCountsOf(LAYOUT, histogram);
    expect(Array.from(counts.counts)).toEqual(Array.from(want));
    expect(counts.numUndefined).toBe(2);
    expect(undefinedValues).toBe(2);
  });

  it('carries a count whose low word wraps into its high word', async () => {
    const start = new Uint32Array(histogramWords(LAYOUT));
    // Slot 0 is 16 below 2^32, slot 1 is 2^32 − 1 + 5·2^32.
    start[0] = 0xfffffff0;
    start[2] = 0xffffffff;
    start[3] = 5;
    const numThreads = 2 * 1000;
    const { histogram } = await run(2, numThreads, new Uint32Array(4), start);
    expect([histogram[0], histogram[1]]).toEqual([1000 - 16, 1]);
    expect([histogram[2], histogram[3]]).toEqual([999, 6]);
    expect(histogramCountsOf(LAYOUT, histogram).counts[0]).toBe(0xfffffff0 + 1000);
  });
});
