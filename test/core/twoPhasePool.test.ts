// The two-phase pool start (core/taskWorkerPool.ts TaskWorkerPool.start → complete) and the CPU kernel set started
// ahead of its guest's data (mgemm startPopcountGemm): tasks see the setup given after the threads started, on
// workers and the calling thread; a thread that fails in either phase, a guest module that cannot load, fail the
// completion with a message naming what failed (no hang); a cancelled start stops its threads.
import { threadId } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { CALLER_RUNS_MAX_THREADS, TaskWorkerPool } from '../../src/core/taskWorkerPool.js';
import { startPopcountGemm } from '../../src/mgemm/index.js';
import type { GuestAnswer } from '../helpers/guestFixture.js';
import { startTwoPhase, type TwoPhaseLateSetup, type TwoPhaseWorkerData } from '../helpers/twoPhaseWorker.js';

const WORKER_URL = new URL('../helpers/twoPhaseWorker.js', import.meta.url);
const GUEST_URL = new URL('../helpers/guestFixture.js', import.meta.url);
const MISSING_MODULE_URL = new URL('../helpers/noSuchGuestModule.js', import.meta.url);

function startPool(numThreads: number, data: TwoPhaseWorkerData): ReturnType<typeof TaskWorkerPool.start<number, number>> {
  return TaskWorkerPool.start<number, number>({ workerUrl: WORKER_URL, numThreads, workerData: data, name: 'two-phase worker', callerRuns: startTwoPhase });
}

const late = (factor: number, failLate = false): TwoPhaseLateSetup => ({ factor, failLate });
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('TaskWorkerPool.start', () => {
  for (const numThreads of [1, 2, 3]) {
    it(`${numThreads} thread(s): tasks use the late setup given after the threads started`, async () => {
      const starting = startPool(numThreads, { offset: 5, failAtStart: false });
      // The threads are up (or nearly) before their setup's late part exists.
      await sleep(50);
      const pool = await starting.complete(late(3));
      try {
        const tasks = Array.from({ length: 30 }, (_, n) => n);
        expect(await Promise.all(tasks.map((n) => pool.run(n)))).toEqual(tasks.map((n) => 3 * n + 5));
        expect(pool.numThreads).toBe(numThreads);
      } finally {
        await pool.close();
      }
    });
  }

  it('the calling thread takes the late setup too (a pool of 2 runs tasks here)', async () => {
    expect(CALLER_RUNS_MAX_THREADS).toBeGreaterThanOrEqual(2);
    const pool = await startPool(2, { offset: 0, failAtStart: false }).complete(late(2));
    try {
      // Many tasks: some run on this thread, all with the factor given late.
      const answers = await Promise.all(Array.from({ length: 200 }, (_, n) => pool.run(n)));
      expect(answers).toEqual(Array.from({ length: 200 }, (_, n) => 2 * n));
    } finally {
      await pool.close();
    }
  });

  it('a worker that fails before its late setup fails the completion, however late it comes', async () => {
    const starting = startPool(3, { offset: 0, failAtStart: true });
    await sleep(200);
    await expect(starting.complete(late(1))).rejects.toThrow(/two-phase worker failed to start: .*asked to fail at start/);
  });

  it('a setup that fails once the late part came fails the completion', async () => {
    await expect(startPool(3, { offset: 0, failAtStart: false }).complete(late(1, true))).rejects.toThrow(/asked to fail with the late setup/);
    // The calling thread's start fails alike (a pool of 2 runs it here).
    await expect(startPool(2, { offset: 0, failAtStart: false }).complete(late(1, true))).rejects.toThrow(/asked to fail with the late setup/);
  });

  it('a cancelled start stops its threads and cannot be completed', async () => {
    const starting = startPool(3, { offset: 0, failAtStart: false });
    await starting.cancel();
    await expect(starting.complete(late(1))).rejects.toThrow(/after cancel/);
  });

  it('create still starts and completes in one call, with its late setup', async () => {
    const pool = await TaskWorkerPool.create<number, number>({
      workerUrl: WORKER_URL, numThreads: 3, workerData: { offset: 1, failAtStart: false }, name: 'two-phase worker', lateSetup: late(10),
    });
    try {
      expect(await pool.run(4)).toBe(41);
    } finally {
      await pool.close();
    }
  });
});

describe('the CPU kernel set started ahead of its guest', () => {
  it('runs the guest given at completion on its threads (workers and, in a pool of 2, this one)', async () => {
    for (const numThreads of [2, 3]) {
      const started = startPopcountGemm({ backend: 'cpu', numThreads, workerGuestPreload: { moduleUrl: GUEST_URL.href, hint: null } });
      await sleep(30);
      const gemm = await started.complete({ moduleUrl: GUEST_URL.href, data: { factor: 9 } });
      try {
        const guest = gemm.guestTasks;
        if (guest === undefined) throw new Error('no guestTasks on a kernel set completed with a guest');
        const tasks = Array.from({ length: 40 }, (_, n) => n);
        const answers = await Promise.all(tasks.map((n) => guest.run(n) as Promise<GuestAnswer>));
        expect(answers.map((a) => a.product)).toEqual(tasks.map((n) => 9 * n));
        expect(new Set(answers.map((a) => a.threadId)).has(threadId)).toBe(numThreads <= CALLER_RUNS_MAX_THREADS);
      } finally {
        await gemm.close();
      }
    }
  });

  it('completed without a guest, it has none', async () => {
    const gemm = await startPopcountGemm({ backend: 'cpu', numThreads: 2 }).complete(null);
    expect(gemm.guestTasks).toBeUndefined();
    await gemm.close();
  });

  it('a guest module that cannot be loaded, given late or preloaded, fails the completion naming it', async () => {
    const lateGuest = startPopcountGemm({ backend: 'cpu', numThreads: 3 });
    await expect(lateGuest.complete({ moduleUrl: MISSING_MODULE_URL.href, data: null })).rejects.toThrow(/kernel worker failed to start: .*noSuchGuestModule/);
    const preloaded = startPopcountGemm({ backend: 'cpu', numThreads: 2, workerGuestPreload: { moduleUrl: MISSING_MODULE_URL.href, hint: null } });
    await expect(preloaded.complete({ moduleUrl: GUEST_URL.href, data: { factor: 1 } })).rejects.toThrow(/noSuchGuestModule/);
  });

  it('other kernel sets open when completed; a cancelled start cannot be completed', async () => {
    const ref = await startPopcountGemm({ backend: 'ref' }).complete(null);
    expect(ref.name).toMatch(/ref/);
    await ref.close();
    const cancelled = startPopcountGemm({ backend: 'cpu', numThreads: 3 });
    await cancelled.cancel();
    await expect(cancelled.complete(null)).rejects.toThrow(/after cancel/);
  });
});
