// Per-vector sums (contract.ts vectorSums) on every kernel set against the definition field by field: Σ c1 of the
// vector's codes (SPEC §1, core/bitCodes.ts) and its present fields, for every metric's layout, dense and sparse,
// ragged field counts, pad rows, planes still being written (rowsReady), and on the GPU operands in several chunks
// (small bindings).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPopcountGemmWebgpu, type PlaneMatrix, type PopcountGemm, type VectorSumsRequest } from '../../src/mgemm/index.js';
import { PopcountGemmRef } from '../../src/mgemm/kernels/ref/popcountGemmRef.js';
import { createPopcountGemmWasm } from '../../src/mgemm/kernels/wasm/popcountGemmWasm.js';
import { countOnes, isMissing } from '../../src/core/bitCodes.js';
import type { MetricKind } from '../../src/core/types.js';
import { planeLayout } from '../helpers/layouts.js';
import { planesFromCodes } from '../../src/engine/blocks/vectorBlock.js';
import { webgpuGate } from '../helpers/webgpuGate.js';
import { seededRandom } from './planeFixtures.js';

const gate = await webgpuGate();

const LAYOUTS = (['ccc', 'duo', 'r2'] as const).flatMap((metric) => [false, true].map((sparse) => ({ metric, sparse })));

/** A request over random codes (with missing ones) and the sums the definition gives for them. */
interface Case {
  readonly request: VectorSumsRequest;
  readonly sums: number[];
  readonly counts: number[];
}

function randomCase(metric: MetricKind, sparse: boolean, seed: number, maxRows: number, maxFields: number): Case {
  const random = seededRandom(seed);
  const numVectorReal = 1 + Math.floor(random() * maxRows);
  const numVectorLocal = numVectorReal + Math.floor(random() * 4);
  const numFieldLocal = 1 + Math.floor(random() * maxFields);
  const missingRate = random() * 0.4;
  const codes = Array.from({ length: numVectorReal }, () => Uint8Array.from({ length: numFieldLocal }, () => (random() < missingRate ? 2 : [0, 1, 3][Math.floor(random() * 3)])));
  const layout = planeLayout(metric, sparse);
  const planes = planesFromCodes(layout, { numVectorLocal, vectorFirst: 0, numVectorReal, fieldFirst: 0, numFieldLocal }, (v, _first, out) => out.set(codes[v]));
  const sums = new Array<number>(numVectorLocal).fill(0);
  const counts = new Array<number>(numVectorLocal).fill(0);
  codes.forEach((row, v) => {
    for (const code of row) {
      sums[v] += countOnes(code, metric, sparse);
      // Layouts without a mask plane (CCC, DUO dense) report no counts; r² keeps its mask plane in dense mode too.
      if (layout.maskPlane !== null && !isMissing(code, sparse)) counts[v]++;
    }
  });
  return { request: { planes, countPlanes: layout.countPlanes, maskPlane: layout.maskPlane }, sums, counts };
}

/** randomCase with exactly `numVectors` rows (no pad rows) of `numField` fields. */
function randomCaseOfSize(metric: MetricKind, sparse: boolean, seed: number, numVectors: number, numField: number): Case {
  const random = seededRandom(seed);
  const codes = Array.from({ length: numVectors }, () => Uint8Array.from({ length: numField }, () => (random() < 0.1 ? 2 : [0, 1, 3][Math.floor(random() * 3)])));
  const layout = planeLayout(metric, sparse);
  const planes = planesFromCodes(layout, { numVectorLocal: numVectors, vectorFirst: 0, numVectorReal: numVectors, fieldFirst: 0, numFieldLocal: numField }, (v, _first, out) => out.set(codes[v]));
  const sums = codes.map((row) => row.reduce((sum, code) => sum + countOnes(code, metric, sparse), 0));
  const counts = codes.map((row) => (layout.maskPlane === null ? 0 : row.reduce((n, code) => n + (isMissing(code, sparse) ? 0 : 1), 0)));
  return { request: { planes, countPlanes: layout.countPlanes, maskPlane: layout.maskPlane }, sums, counts };
}

/**
 * `final`'s planes still arriving: zero until a rowsReady call asks for rows, which are then written after a pause of
 * `pauseMs` (a kernel set that read a row before asking would see zeros); `asked` lists the calls' row ends.
 */
function arrivingPlanes(final: PlaneMatrix, pauseMs: number): {
  readonly planes: PlaneMatrix; readonly rowsReady: (rowEnd: number) => Promise<void>; readonly asked: number[];
} {
  const planes = { ...final, words: new Uint32Array(new SharedArrayBuffer(final.words.byteLength)) };
  const rowWords = final.numPlanes * final.wordsPerPlane;
  let written = 0;
  const asked: number[] = [];
  const rowsReady = async (rowEnd: number): Promise<void> => {
    asked.push(rowEnd);
    await new Promise((resolve) => setTimeout(resolve, pauseMs));
    const end = Math.min(rowEnd, final.numVectors);
    if (end > written) planes.words.set(final.words.subarray(written * rowWords, end * rowWords), written * rowWords);
    written = Math.max(written, end);
  };
  return { planes, rowsReady, asked };
}

const KERNEL_SETS: readonly { readonly name: string; readonly gpu: boolean; readonly create: () => Promise<PopcountGemm> }[] = [
  { name: 'ref', gpu: false, create: async () => new PopcountGemmRef() },
  { name: 'cpu, inline', gpu: false, create: () => createPopcountGemmWasm({ numThreads: 1 }) },
  { name: 'cpu, 2 threads', gpu: false, create: () => createPopcountGemmWasm({ numThreads: 2 }) },
  { name: 'webgpu', gpu: true, create: () => createPopcountGemmWebgpu() },
  // 4 KiB bindings: a matrix of a few hundred fields is uploaded and summed in chunks of a few rows.
  { name: 'webgpu, 4 KiB bindings', gpu: true, create: () => createPopcountGemmWebgpu({ maxBindingBytes: 4096 }) },
];

describe.each(KERNEL_SETS)('$name vectorSums equals the definition', ({ gpu, create }) => {
  let gemm: PopcountGemm;
  const skip = gpu && !gate.available;
  beforeAll(async () => {
    if (!skip) gemm = await create();
  });
  afterAll(async () => {
    await gemm?.close();
  });

  it.skipIf(skip).each(LAYOUTS)('random codes, ragged fields and pad rows: $metric sparse=$sparse', async ({ metric, sparse }) => {
    for (let trial = 0; trial < 4; trial++) {
      const c = randomCase(metric, sparse, 100 * trial + (sparse ? 7 : 3) + metric.length, 40, trial === 0 ? 40 : 700);
      const got = await gemm.vectorSums(c.request);
      expect(Array.from(got.sums)).toEqual(c.sums);
      expect(Array.from(got.counts)).toEqual(c.counts);
    }
  });

  it.skipIf(skip)('many rows of many fields (rows past one workgroup grid line, several chunks)', async () => {
    const c = randomCase('ccc', true, 4242, 600, 3000);
    const got = await gemm.vectorSums(c.request);
    expect(Array.from(got.sums)).toEqual(c.sums);
    expect(Array.from(got.counts)).toEqual(c.counts);
  });

  // Planes still being written (VectorSumsRequest.rowsReady): the test writes each row only when a rowsReady call
  // asks for it, after a pause, so a kernel set that read a row before asking would see zeros and give other sums.
  it.skipIf(skip)('reads rows only once rowsReady has said they are final', async () => {
    const c = randomCase('ccc', true, 777, 300, 2000);
    const final = c.request.planes;
    const { planes, rowsReady, asked } = arrivingPlanes(final, 2);
    const got = await gemm.vectorSums({ ...c.request, planes, rowsReady });
    expect(Array.from(got.sums)).toEqual(c.sums);
    expect(Array.from(got.counts)).toEqual(c.counts);
    expect(Math.max(...asked)).toBeGreaterThanOrEqual(final.numVectors);
  });

  it.skipIf(skip)('fails with the reason of a rejected rowsReady', async () => {
    const c = randomCase('duo', true, 778, 50, 300);
    const rowsReady = (): Promise<void> => Promise.reject(new Error('block worker failed: disk on fire'));
    await expect(gemm.vectorSums({ ...c.request, rowsReady })).rejects.toThrow('disk on fire');
  });

  it.skipIf(skip)('rejects a plane outside the matrix', async () => {
    const c = randomCase('duo', false, 5, 3, 10);
    await expect(gemm.vectorSums({ ...c.request, maskPlane: 1 })).rejects.toThrow(RangeError);
    await expect(gemm.vectorSums({ ...c.request, countPlanes: [0, 2] })).rejects.toThrow(RangeError);
  });
});

/** One block of 200 × 60,000 for the three host sets (making its codes takes seconds). */
let bigCase: Case | null = null;

describe.each(KERNEL_SETS.filter(({ gpu }) => !gpu))('$name vectorSums of a block still being built', ({ create }) => {
  let gemm: PopcountGemm;
  beforeAll(async () => {
    gemm = await create();
  });
  afterAll(async () => {
    await gemm.close();
  });

  // Rows of 22.5 KB: a host kernel set sums 4 MiB of rows at a time as they become final, so 200 rows take two pieces.
  it('sums rows still being written piece by piece, each once rowsReady has said it is final', async () => {
    bigCase ??= randomCaseOfSize('ccc', true, 780, 200, 60000);
    const big = bigCase;
    const final = big.request.planes;
    const { planes, rowsReady, asked } = arrivingPlanes(final, 1);
    const got = await gemm.vectorSums({ ...big.request, planes, rowsReady });
    expect(Array.from(got.sums)).toEqual(big.sums);
    expect(Array.from(got.counts)).toEqual(big.counts);
    expect(Math.max(...asked)).toBeGreaterThanOrEqual(final.numVectors);
    // The first piece was asked for before the last.
    expect(Math.min(...asked)).toBeLessThan(final.numVectors);
  });

});
