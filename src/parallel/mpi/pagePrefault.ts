// Mapping the pages of a large shared receive buffer from helper threads, before a receive copies into it.
//
// A fresh SharedArrayBuffer's pages are mapped on first write. Open MPI copies each received piece into the buffer
// on the main thread (inside the MPI call that matches it), so there every first touch of a page is a page fault,
// which makes a first write several times slower than a second, while the rank's GPU waits for work.
// Helpers write zeros over the buffer before the receive is posted (never while data may arrive: a zero written
// after a piece would destroy it).
import { Worker } from 'node:worker_threads';

/** Shared receive buffers at least this large are worth the helper threads. */
export const PREFAULT_MIN_BYTES = 64 << 20;
/**
 * Helper threads per buffer: enough to map a block's pages before its pieces arrive, few enough to leave the other
 * cores to the rank's own block, built meanwhile.
 */
export const PREFAULT_THREADS = 4;
const PREFAULT_WORKER_URL = new URL('./pagePrefaultWorker.js', import.meta.url);

/** Writes zeros over `buffer` (a fresh, unread buffer: nothing in it may be lost) from `numThreads` helper threads. */
export function mapPages(buffer: SharedArrayBuffer, numThreads: number): Promise<void> {
  const words = Math.floor(buffer.byteLength / 4);
  const perThread = Math.ceil(words / numThreads);
  return Promise.all(Array.from({ length: numThreads }, (_, k) => new Promise<void>((resolve, reject) => {
    const worker = new Worker(PREFAULT_WORKER_URL, { workerData: { buffer, first: k * perThread, end: Math.min(words, (k + 1) * perThread) } });
    worker.on('error', reject);
    worker.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`page helper exited with code ${code}`))));
  }))).then(() => undefined);
}
