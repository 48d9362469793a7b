// The optimized CPU kernel set (wasm and native AVX-512 microkernels) against the reference kernel: random
// shapes, block edges, threads, strictUpper.

import { existsSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PopcountGemm, PopcountGemmRequest, TermGroup } from '../../src/mgemm/index.js';
import { PopcountGemmRef } from '../../src/mgemm/kernels/ref/popcountGemmRef.js';
import { KC_WORDS, MC_ROWS, NC_COLS_MAX } from '../../src/mgemm/kernels/wasm/blockSizes.js';
import { loadNativePopcountKernel, nativeKernelSetName } from '../../src/mgemm/kernels/native/nativePopcount.js';
import { createPopcountGemmWasm, WASM_KERNEL_SET_NAME } from '../../src/mgemm/kernels/wasm/popcountGemmWasm.js';
import type { CpuMicrokernel } from '../../src/mgemm/kernels/wasm/workerProtocol.js';
import { CCC_DENSE_TERMS, neededMismatches, planesFromFieldBits, randomFieldBits, seededRandom } from './planeFixtures.js';

const NUM_PLANES = 3;
/** Term-group sets as the metrics use them: CCC dense, DUO, CCC sparse-like (several groups, a mask plane). */
const TERM_GROUP_SETS: readonly (readonly TermGroup[])[] = [
  [CCC_DENSE_TERMS],
  [[[0, 0]]],
  [CCC_DENSE_TERMS, [[2, 2]], [[0, 2], [1, 2]], [[2, 0], [2, 1]]],
];

interface RandomCase {
  readonly numField: number;
  readonly seed: number;
  readonly strictUpper: boolean;
}

/** A request of random size (1..70 rows), odd offsets when possible, on random planes. */
function randomRequest({ numField, seed, strictUpper }: RandomCase): PopcountGemmRequest {
  const random = seededRandom(seed);
  const pick = (max: number): number => 1 + Math.floor(random() * max);
  const aCount = pick(70);
  const bCount = strictUpper ? aCount : pick(70);
  const aFirst = 2 * Math.floor(random() * 4) + 1;
  const bFirst = strictUpper ? aFirst : 2 * Math.floor(random() * 4) + 1;
  const a = planesFromFieldBits(randomFieldBits(random, aFirst + aCount + 2, NUM_PLANES, numField), NUM_PLANES, numField, true);
  const b = strictUpper ? a : planesFromFieldBits(randomFieldBits(random, bFirst + bCount, NUM_PLANES, numField, 0.7), NUM_PLANES, numField, true);
  const termGroups = TERM_GROUP_SETS[seed % TERM_GROUP_SETS.length];
  return { a, aFirst, aCount, b, bFirst, bCount, termGroups, strictUpper };
}

interface RequestShape {
  readonly aCount: number;
  readonly bCount: number;
  readonly numField: number;
  readonly termGroups: readonly TermGroup[];
  readonly strictUpper: boolean;
  /** Operand words in a SharedArrayBuffer (default) or a plain ArrayBuffer. */
  readonly shared?: boolean;
}

/** A request of fixed shape on fresh random planes. */
function shapedRequest(shape: RequestShape): PopcountGemmRequest {
  const random = seededRandom(shape.aCount * 31 + shape.bCount * 7 + shape.numField);
  const shared = shape.shared ?? true;
  const a = planesFromFieldBits(randomFieldBits(random, shape.aCount + 1, NUM_PLANES, shape.numField), NUM_PLANES, shape.numField, shared);
  const b = shape.strictUpper ? a : planesFromFieldBits(randomFieldBits(random, shape.bCount + 3, NUM_PLANES, shape.numField), NUM_PLANES, shape.numField, shared);
  return { a, aFirst: 1, aCount: shape.aCount, b, bFirst: shape.strictUpper ? 1 : 3, bCount: shape.bCount, termGroups: shape.termGroups, strictUpper: shape.strictUpper };
}

const RANDOM_CASES: RandomCase[] = [1, 31, 33, 100, 1000, 4099].flatMap((numField) =>
  [0, 1, 2].flatMap((k) => [false, true].map((strictUpper) => ({ numField, seed: numField * 10 + k, strictUpper }))),
);

/** Shapes that cross every blocking boundary: several K blocks, several A blocks, several B blocks. */
const EDGE_SHAPES: (RequestShape & { readonly name: string })[] = [
  { name: 'K over several KC blocks', aCount: 9, bCount: 7, numField: ((KC_WORDS * 5) / 2) * 32 + 5, termGroups: [[[0, 1], [2, 2]]], strictUpper: false },
  { name: 'rows over several MC blocks', aCount: 2 * MC_ROWS + 45, bCount: 6, numField: 100, termGroups: [CCC_DENSE_TERMS], strictUpper: false },
  { name: 'columns over several NC blocks', aCount: 3, bCount: NC_COLS_MAX + 37, numField: 33, termGroups: [[[1, 0]]], strictUpper: false },
  { name: 'strictUpper over several MC blocks', aCount: 2 * MC_ROWS + 21, bCount: 2 * MC_ROWS + 21, numField: 65, termGroups: [CCC_DENSE_TERMS, [[2, 2]]], strictUpper: true },
  { name: 'strictUpper over several NC blocks', aCount: NC_COLS_MAX + 50, bCount: NC_COLS_MAX + 50, numField: 1, termGroups: [[[0, 0]]], strictUpper: true },
  { name: 'inputs not in shared memory', aCount: 37, bCount: 41, numField: 500, termGroups: [CCC_DENSE_TERMS], strictUpper: false, shared: false },
];

/**
 * The native AVX-512 microkernel is tested wherever the CPU has AVX512_VPOPCNTDQ: there it must have been
 * built (a missing build is a failure, not a skip). Elsewhere only the wasm microkernel exists.
 */
const cpuHasVpopcntdq = process.arch === 'x64' && existsSync('/proc/cpuinfo') && /\bavx512_vpopcntdq\b/.test(readFileSync('/proc/cpuinfo', 'utf8'));
const nativeStatus = loadNativePopcountKernel();
if (cpuHasVpopcntdq && !nativeStatus.available) throw new Error(`the CPU has AVX512_VPOPCNTDQ but ${nativeStatus.reason}`);
const MICROKERNELS: { microkernel: CpuMicrokernel; name: (numThreads: number) => string }[] = [
  { microkernel: 'wasm', name: () => WASM_KERNEL_SET_NAME },
  ...(nativeStatus.available ? [{ microkernel: 'native' as const, name: nativeKernelSetName }] : []),
];

const THREAD_SETTINGS = MICROKERNELS.flatMap(({ microkernel, name }) => [
  { microkernel, name: name(1), numThreads: 1, minWordOpsPerThread: undefined },
  { microkernel, name: name(2), numThreads: 2, minWordOpsPerThread: undefined },
  { microkernel, name: name(2), numThreads: 2, minWordOpsPerThread: 0 },
]);

describe.each(THREAD_SETTINGS)('$name kernels, $numThreads thread(s), minWordOpsPerThread $minWordOpsPerThread', (settings) => {
  const ref = new PopcountGemmRef();
  let gemm: PopcountGemm;
  beforeAll(async () => {
    gemm = await createPopcountGemmWasm(settings);
  });
  afterAll(async () => {
    await gemm.close();
  });

  async function expectSameAsRef(request: PopcountGemmRequest): Promise<void> {
    const [expected, actual] = [await ref.run(request), await gemm.run(request)];
    expect(neededMismatches(request, expected, actual)).toEqual([]);
  }

  it('reports its name and threads', () => {
    expect(gemm.name).toBe(settings.name);
    expect(gemm.numThreads).toBe(settings.numThreads);
  });

  it.each(RANDOM_CASES)('equals ref: $numField fields, seed $seed, strictUpper $strictUpper', async (randomCase) => {
    await expectSameAsRef(randomRequest(randomCase));
  });

  it.each(EDGE_SHAPES)('equals ref: $name', async (shape) => {
    await expectSameAsRef(shapedRequest(shape));
  });

  it('has each plane popcount on the diagonal of a self product', async () => {
    const request = shapedRequest({ aCount: 23, bCount: 23, numField: 1000, termGroups: [[[1, 1]]], strictUpper: false });
    const [out] = await gemm.run({ ...request, b: request.a, bFirst: request.aFirst });
    const { words, numPlanes, wordsPerPlane } = request.a;
    for (let v = 0; v < 23; v++) {
      const planeStart = ((request.aFirst + v) * numPlanes + 1) * wordsPerPlane;
      let bits = 0;
      for (let w = 0; w < wordsPerPlane; w++) bits += words[planeStart + w].toString(2).split('1').length - 1;
      expect(out[v * 23 + v]).toBe(bits);
    }
  });

  it('computes into recycled tallies, not zeroed (garbage left in them): reused, every needed entry written, of the right length', async () => {
    const termGroups = TERM_GROUP_SETS[2];
    const first = await gemm.run(shapedRequest({ aCount: 60, bCount: 60, numField: 100, termGroups, strictUpper: false }));
    const buffers = new Set(first.map((out) => out.buffer));
    for (const out of first) out.fill(0xffffffff);
    gemm.recycle?.(first);
    for (const strictUpper of [false, true]) {
      const smaller = shapedRequest({ aCount: 40, bCount: strictUpper ? 40 : 37, numField: 100, termGroups, strictUpper });
      const [expected, actual] = [await ref.run(smaller), await gemm.run(smaller)];
      expect(neededMismatches(smaller, expected, actual)).toEqual([]);
      expect(actual.map((out) => out.length)).toEqual(expected.map((out) => out.length));
      if (!strictUpper) expect(actual.every((out) => buffers.has(out.buffer))).toBe(true);
      for (const out of actual) out.fill(0xffffffff);
      gemm.recycle?.(actual);
    }
  });

  it('returns empty or zero outputs when there is nothing to add', async () => {
    const request = shapedRequest({ aCount: 5, bCount: 4, numField: 40, termGroups: [[]], strictUpper: false });
    expect(await gemm.run({ ...request, termGroups: [] })).toEqual([]);
    expect(Array.from((await gemm.run(request))[0])).toEqual(new Array(20).fill(0));
    expect((await gemm.run({ ...request, aCount: 0 }))[0].length).toBe(0);
  });
});

describe.each(MICROKERNELS.map(({ microkernel, name }) => ({ microkernel, name: name(1) })))('$name kernels after close()', ({ microkernel }) => {
  it.each([1, 2])('reject run() with %i thread(s)', async (numThreads) => {
    const gemm = await createPopcountGemmWasm({ numThreads, microkernel });
    await gemm.close();
    await expect(gemm.run(shapedRequest({ aCount: 2, bCount: 2, numField: 8, termGroups: [[[0, 0]]], strictUpper: false }))).rejects.toThrow();
  });
});
