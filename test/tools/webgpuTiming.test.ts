// tools/lib/webgpuTiming.ts through the kernel set's benchmarking surface (kernelBenchmarking.ts): uploads by each
// way in move the words, a request with nothing to compute gives no timings, and a benchmark holds the kernel set's
// turn (a request made meanwhile completes after it, with the reference kernel's tallies). Not a timing.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPopcountGemmWebgpu, type PopcountGemmRequest, type PopcountGemmWebgpu } from '../../src/mgemm/index.js';
import { PopcountGemmRef } from '../../src/mgemm/kernels/ref/popcountGemmRef.js';
import { timeKernels, timeUpload } from '../../tools/lib/webgpuTiming.js';
import { webgpuGate } from '../helpers/webgpuGate.js';
import { planesFromFieldBits, randomFieldBits, seededRandom } from '../mgemm/planeFixtures.js';

const gate = await webgpuGate();

function randomRequest(seed: number): PopcountGemmRequest {
  const random = seededRandom(seed);
  const a = planesFromFieldBits(randomFieldBits(random, 40, 2, 150, 0.5), 2, 150, false);
  const b = planesFromFieldBits(randomFieldBits(random, 30, 2, 150, 0.5), 2, 150, false);
  return { a, aFirst: 3, aCount: 35, b, bFirst: 1, bCount: 27, termGroups: [[[0, 0], [1, 1]], [[0, 1]]], strictUpper: false };
}

describe.skipIf(!gate.available)('webgpu timing for benchmarks', () => {
  let gemm: PopcountGemmWebgpu;
  beforeAll(async () => {
    gemm = await createPopcountGemmWebgpu({ kernel: 'bitwise' });
  });
  afterAll(async () => {
    await gemm.close();
  });

  it('uploads the words by each way in and times it', async () => {
    const words = new Uint32Array(new SharedArrayBuffer(3 << 20));
    for (let i = 0; i < words.length; i++) words[i] = Math.imul(i, 2654435761) >>> 0;
    for (const how of ['mapped', 'staged', 'writes'] as const) {
      const before = gemm.transfers.uploadedBytes;
      const seconds = await timeUpload(gemm, words, how);
      expect(seconds, how).toBeGreaterThan(0);
      expect(gemm.transfers.uploadedBytes - before, how).toBe(words.byteLength);
    }
  });

  it('gives no timings for a request with nothing to compute', async () => {
    const timing = await timeKernels(gemm, { ...randomRequest(1), aCount: 0 }, 3);
    expect(timing).toEqual({ seconds: [], family: 'bitwise' });
  });

  it('holds the kernel set while a benchmark runs: a request made meanwhile completes after it, unchanged', async () => {
    const request = randomRequest(2);
    const events: string[] = [];
    const meanwhile: { run?: Promise<Uint32Array[]> } = {};
    await gemm.benchmarking.withKernels(request, async (kernels) => {
      expect(kernels?.family).toBe('bitwise');
      meanwhile.run = gemm.run(request).then((outputs) => {
        events.push('run');
        return outputs;
      });
      await kernels?.run();
      await kernels?.run();
      events.push('benchmark');
    });
    if (meanwhile.run === undefined) throw new Error('the benchmark did not start');
    const got = await meanwhile.run;
    expect(events).toEqual(['benchmark', 'run']);
    const want = await new PopcountGemmRef().run(request);
    expect(got.map((g) => Array.from(g))).toEqual(want.map((w) => Array.from(w)));
  });
});
