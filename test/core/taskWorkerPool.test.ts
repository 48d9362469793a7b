// The task pool's urgent queue (finalize tasks ahead of queued GEMM panels), its second task per worker, and guest
// modules (finalize on the CPU kernel set's threads): urgent tasks run before every queued task that is not urgent
// and not yet posted to a worker, in the order posted; a kernel
// set created with a guest runs the guest's tasks on its worker threads, and one without a guest has no guestTasks.
import { threadId } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { CALLER_RUNS_MAX_THREADS, TaskWorkerPool } from '../../src/core/taskWorkerPool.js';
import { createPopcountGemm } from '../../src/mgemm/index.js';
import type { GuestAnswer } from '../helpers/guestFixture.js';
import type { OrderTask } from '../helpers/poolOrderWorker.js';

const ORDER_WORKER_URL = new URL('../helpers/poolOrderWorker.js', import.meta.url);
const GUEST_URL = new URL('../helpers/guestFixture.js', import.meta.url);

describe('TaskWorkerPool', () => {
  it('runs urgent tasks ahead of queued ones not yet posted to a worker, each kind in the order posted', async () => {
    const pool = await TaskWorkerPool.create<OrderTask, string>({ workerUrl: ORDER_WORKER_URL, numThreads: 1, workerData: null, name: 'order worker' });
    try {
      const finished: string[] = [];
      const post = (label: string, urgent: boolean): Promise<void> =>
        pool.run({ label, holdMs: label === 'running' ? 200 : 1 }, { urgent }).then((answer) => { finished.push(answer); });
      // 'running' holds the one thread; 'queued 1' is posted to the worker behind it (two tasks per worker), the rest wait here.
      const all = ['running', 'queued 1', 'queued 2', 'queued 3'].map((label) => post(label, false));
      all.push(post('urgent 1', true), post('urgent 2', true));
      await Promise.all(all);
      expect(finished).toEqual(['running', 'queued 1', 'urgent 1', 'urgent 2', 'queued 2', 'queued 3']);
    } finally {
      await pool.close();
    }
  });

  it('posts a second task to a busy worker only while every worker has one queued for it', async () => {
    const pool = await TaskWorkerPool.create<OrderTask, string>({ workerUrl: ORDER_WORKER_URL, numThreads: 2, workerData: null, name: 'order worker' });
    try {
      // Two long tasks hold both threads; the two short ones after them must not both wait behind one long task.
      const started = performance.now();
      const seconds: Record<string, number> = {};
      const post = (label: string, holdMs: number): Promise<void> =>
        pool.run({ label, holdMs }).then((answer) => { seconds[answer] = (performance.now() - started) / 1000; });
      await Promise.all([post('long 1', 300), post('long 2', 600), post('short 1', 1), post('short 2', 1)]);
      // Each short task runs after 'long 1' on the first thread free (by ~0.3 s), none after 'long 2' (0.6 s).
      expect(Math.max(seconds['short 1'], seconds['short 2'])).toBeLessThan(seconds['long 2']);
    } finally {
      await pool.close();
    }
  });
});

describe('kernel set guests', () => {
  it('the CPU kernel set runs its guest module\'s tasks on its threads: workers, and the calling thread in a pool of 2', async () => {
    for (const numThreads of [2, 3]) {
      const gemm = await createPopcountGemm({ backend: 'cpu', numThreads, workerGuest: { moduleUrl: GUEST_URL.href, data: { factor: 7 } } });
      try {
        const guest = gemm.guestTasks;
        if (guest === undefined) throw new Error('no guestTasks on a pooled CPU kernel set created with a guest');
        expect(guest.numThreads).toBe(numThreads);
        const tasks = Array.from({ length: 40 }, (_, n) => n);
        const answers = await Promise.all(tasks.map((n) => guest.run(n, { urgent: n % 3 === 0 }) as Promise<GuestAnswer>));
        expect(answers.map((a) => a.product)).toEqual(tasks.map((n) => 7 * n));
        const threads = new Set(answers.map((a) => a.threadId));
        // 2 threads: one worker and this thread (CALLER_RUNS_MAX_THREADS); 3: three workers, never this thread.
        if (numThreads <= CALLER_RUNS_MAX_THREADS) expect(threads.has(threadId)).toBe(true);
        else expect(threads.has(threadId)).toBe(false);
        expect(threads.size).toBeGreaterThan(1);
      } finally {
        await gemm.close();
      }
    }
  });

  it('kernel sets without worker threads ignore the guest', async () => {
    const workerGuest = { moduleUrl: GUEST_URL.href, data: { factor: 7 } };
    for (const gemm of [await createPopcountGemm({ backend: 'cpu', numThreads: 1, workerGuest }), await createPopcountGemm({ backend: 'ref', workerGuest })]) {
      expect(gemm.guestTasks).toBeUndefined();
      await gemm.close();
    }
  });

  it('a pooled kernel set created without a guest has no guestTasks', async () => {
    const gemm = await createPopcountGemm({ backend: 'cpu', numThreads: 2 });
    expect(gemm.guestTasks).toBeUndefined();
    await gemm.close();
  });
});
