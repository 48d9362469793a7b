// Helper thread of pagePrefault.ts: writes zeros over words [first, end) of a fresh shared buffer, which maps its pages.
import { workerData } from 'node:worker_threads';

const { buffer, first, end } = workerData as { buffer: SharedArrayBuffer; first: number; end: number };
new Int32Array(buffer, 4 * first, end - first).fill(0);
