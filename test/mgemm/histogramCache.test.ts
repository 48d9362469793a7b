// The workgroup cache of the device histogram (histogramCacheWgsl) against counts computed in JavaScript: every
// thread of every workgroup counting the same values (the contention case: one bucket per column), values spread over
// all buckets (slots that share a cache line count globally), flushes after every round or only at the end (a
// flushed line starts again from nothing), and the carry of a flushed count that wraps a global low word.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HistogramLayout } from '../../src/core/histogramLayout.js';
import {
  HISTOGRAM_CACHE_LINES, HISTOGRAM_STORAGE, histogramCacheWgsl, histogramCountsOf, histogramWgsl, histogramWords,
} from '../../src/mgemm/kernels/webgpu/programs/wgsl/histogramWgsl.js';
import { SOFT_DOUBLE_WGSL } from '../../src/mgemm/kernels/webgpu/programs/wgsl/softDouble.js';
import type { WgslProgram } from '../../src/mgemm/kernels/webgpu/programs/wgslProgram.js';
import type { WebgpuRunner } from '../../src/mgemm/kernels/webgpu/runtime/webgpuRunner.js';
import { webgpuGate } from '../helpers/webgpuGate.js';
import { openTestRunner } from '../helpers/webgpuRunner.js';
import { seededRandom } from './planeFixtures.js';

const gate = await webgpuGate();

const WORKGROUP = 64;
const NUM_WORKGROUPS = 3;
const NUM_BUCKETS = 4500;
/** Entry 0 in column 0, entry 1 in column 1, their sum in column 2 (as CoMet's LL, HH, LL+HH). */
const LAYOUT: HistogramLayout = {
  numBuckets: NUM_BUCKETS, columnNames: ['A', 'B', 'A+B'], entryColumns: [0, 1], sumColumns: [{ column: 2, entryBits: [0, 1] }],
};
const MAX_ROUNDS = 1 << 12;

/**
 * Round r: thread t of the grid counts pair (r · threads + t) mod numCases of `cases`; the workgroup flushes after
 * every `flushEvery` rounds and at the end.
 */
const PROGRAM: WgslProgram = {
  cacheKey: 'test/histogramCache',
  workgroupSize: [WORKGROUP, 1],
  storage: [{ name: 'cases', access: 'read', elementType: 'u32' }, HISTOGRAM_STORAGE],
  uniforms: [{ name: 'numCases', type: 'u32' }, { name: 'numRounds', type: 'u32' }, { name: 'flushEvery', type: 'u32' }],
  extensions: [],
  declarations: `${SOFT_DOUBLE_WGSL}
${histogramWgsl(LAYOUT, [0, 1])}
${histogramCacheWgsl(LAYOUT, [0, 1], { numThreads: WORKGROUP, tuplesPerFlush: WORKGROUP * MAX_ROUNDS })}`,
  mainBody: `
  histogramCacheClear(li);
  for (var round = 0u; round < u.numRounds; round++) {
    let t = (round * ${WORKGROUP * NUM_WORKGROUPS}u + wg.x * ${WORKGROUP}u + li) % u.numCases;
    histogramCacheCount(array<vec2<u32>, 2>(vec2<u32>(cases[4u * t], cases[4u * t + 1u]), vec2<u32>(cases[4u * t + 2u], cases[4u * t + 3u])));
    if ((round + 1u) % u.flushEvery == 0u) { histogramCacheFlush(li); }
  }
  histogramCacheFlush(li);`,
};

const scratch = new DataView(new ArrayBuffer(8));
function bitsOf(x: number): [number, number] {
  scratch.setFloat64(0, x, true);
  return [scratch.getUint32(0, true), scratch.getUint32(4, true)];
}

function bucketOf(x: number): number {
  return Math.min(NUM_BUCKETS - 1, Math.max(0, Math.trunc(x * 1000)));
}

/** What PROGRAM counts, computed here: each round's pairs bucketed as SPEC §9 says. */
function expectedCounts(pairs: readonly (readonly [number, number])[], numRounds: number): { counts: number[]; numUndefined: number } {
  const counts = new Array<number>(3 * NUM_BUCKETS).fill(0);
  let numUndefined = 0;
  for (let round = 0; round < numRounds; round++) {
    for (let thread = 0; thread < WORKGROUP * NUM_WORKGROUPS; thread++) {
      const [a, b] = pairs[(round * WORKGROUP * NUM_WORKGROUPS + thread) % pairs.length];
      for (const [column, x] of [[0, a], [1, b]] as const) {
        if (Number.isNaN(x)) numUndefined++;
        else counts[column * NUM_BUCKETS + bucketOf(x)]++;
      }
      if (!Number.isNaN(a) && !Number.isNaN(b)) counts[2 * NUM_BUCKETS + bucketOf(a + b)]++;
    }
  }
  return { counts, numUndefined };
}

describe.skipIf(!gate.available)(`WGSL histogram cache on ${gate.description}`, () => {
  let runner: WebgpuRunner;
  beforeAll(async () => {
    runner = await openTestRunner();
  });
  afterAll(() => runner.destroy());

  async function run(pairs: readonly (readonly [number, number])[], numRounds: number, flushEvery: number, start?: Uint32Array): Promise<Uint32Array> {
    const caseWords = Uint32Array.from(pairs.flatMap(([a, b]) => [...bitsOf(a), ...bitsOf(b)]));
    const input = runner.createStorageBuffer(caseWords.byteLength, { readBack: false });
    const histogram = runner.createStorageBuffer(histogramWords(LAYOUT) * 4, { readBack: true });
    runner.upload(input, caseWords);
    runner.upload(histogram, start ?? new Uint32Array(histogramWords(LAYOUT)));
    const dispatch = {
      program: PROGRAM, storage: [input, histogram], uniforms: { numCases: pairs.length, numRounds, flushEvery }, workgroups: [NUM_WORKGROUPS, 1] as [number, number],
    };
    const [words] = await runner.runAndReadBackMany([dispatch], [{ buffer: histogram, numBytes: histogramWords(LAYOUT) * 4 }]);
    input.destroy();
    histogram.destroy();
    return words;
  }

  for (const flushEvery of [1, 7, MAX_ROUNDS]) {
    it(`every thread counting one value in one bucket per column, flushed every ${flushEvery} rounds`, async () => {
      const numRounds = 300;
      const words = await run([[0.2505, 0.7]], numRounds, flushEvery);
      const got = histogramCountsOf(LAYOUT, words);
      const perColumn = numRounds * WORKGROUP * NUM_WORKGROUPS;
      expect(got.counts[250]).toBe(perColumn);
      expect(got.counts[NUM_BUCKETS + 700]).toBe(perColumn);
      expect(got.counts[2 * NUM_BUCKETS + 950]).toBe(perColumn);
      expect(Array.from(got.counts)).toEqual(expectedCounts([[0.2505, 0.7]], numRounds).counts);
    });

    it(`values over every bucket, sharing cache lines, and undefined ones, flushed every ${flushEvery} rounds`, async () => {
      const random = seededRandom(17 + flushEvery);
      const pairs: [number, number][] = [[NaN, 0.3], [1.2, NaN]];
      // Buckets b and b + HISTOGRAM_CACHE_LINES of one column share a line: both are held by turns or counted globally.
      for (let b = 0; b + HISTOGRAM_CACHE_LINES < NUM_BUCKETS; b += 97) pairs.push([b / 1000 + 1e-4, (b + HISTOGRAM_CACHE_LINES) / 1000 + 1e-4]);
      while (pairs.length < 1000) pairs.push([random() * 4.6, random() * 2.5]);
      const numRounds = 40;
      const got = histogramCountsOf(LAYOUT, await run(pairs, numRounds, flushEvery));
      const want = expectedCounts(pairs, numRounds);
      expect(Array.from(got.counts)).toEqual(want.counts);
      expect(got.numUndefined).toBe(want.numUndefined);
    });
  }

  it('carries a flushed count that wraps a low word into its high word', async () => {
    const start = new Uint32Array(histogramWords(LAYOUT));
    // Bucket 250 of column 0 is 100 below 2^32; bucket 700 of column 1 is 2^32 − 1 + 3·2^32.
    start[2 * 250] = 0xffffff9c;
    start[2 * (NUM_BUCKETS + 700)] = 0xffffffff;
    start[2 * (NUM_BUCKETS + 700) + 1] = 3;
    const numRounds = 50;
    const words = await run([[0.2505, 0.7]], numRounds, MAX_ROUNDS, start);
    const added = numRounds * WORKGROUP * NUM_WORKGROUPS;
    expect([words[2 * 250], words[2 * 250 + 1]]).toEqual([added - 100, 1]);
    expect([words[2 * (NUM_BUCKETS + 700)], words[2 * (NUM_BUCKETS + 700) + 1]]).toEqual([added - 1, 4]);
    expect(histogramCountsOf(LAYOUT, words).counts[250]).toBe(0xffffff9c + added);
  });
});

describe('histogram cache WGSL', () => {
  it('refuses a flush interval whose counts could wrap a u32', () => {
    // Three values per tuple (two entries and their sum): 2^31 tuples could add 3·2^31 to one line.
    expect(() => histogramCacheWgsl(LAYOUT, [0, 1], { numThreads: WORKGROUP, tuplesPerFlush: 2 ** 31 })).toThrow(/wrap a u32/);
    expect(() => histogramCacheWgsl(LAYOUT, [0, 1], { numThreads: WORKGROUP, tuplesPerFlush: 2 ** 30 })).not.toThrow();
  });
});
