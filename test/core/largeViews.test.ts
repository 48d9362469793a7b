// Views past 4 GiB through a real worker thread (structured clone truncates them unless encoded), and the
// encoding's walk: only such views change, nothing is copied when none is there.
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { decodeLargeViews, encodeLargeViews } from '../../src/core/largeViews.js';

const FOUR_GIB = 2 ** 32;

/** Posts `message` to a worker that answers with what it received of `view`: offset, length, first and last element. */
function echoThroughWorker(message: unknown, encode: boolean): Promise<number[]> {
  const source = `
    const { parentPort, workerData } = require('node:worker_threads');
    const decode = ${encode ? `(m) => import(${JSON.stringify(new URL('../../src/core/largeViews.js', import.meta.url).href)}).then((l) => l.decodeLargeViews(m))` : '(m) => Promise.resolve(m)'};
    decode(workerData).then((m) => {
      const v = m.nested[1].view;
      parentPort.postMessage([v.byteOffset, v.length, v[0] ?? -1, v[v.length - 1] ?? -1]);
    });`;
  return new Promise((resolve, reject) => {
    const worker = new Worker(source, { eval: true, workerData: encode ? encodeLargeViews(message) : message });
    worker.once('message', (reply: number[]) => {
      resolve(reply);
      void worker.terminate();
    });
    worker.once('error', reject);
  });
}

describe('largeViews', () => {
  // The buffer is reserved, not touched: only the pages written here are backed by memory.
  const buffer = new SharedArrayBuffer(FOUR_GIB + 8192);
  const whole = new Uint32Array(buffer);
  const pastFourGib = new Uint32Array(buffer, FOUR_GIB + 4096, 16);
  whole[0] = 11;
  whole[whole.length - 1] = 12;
  pastFourGib[0] = 21;
  pastFourGib[15] = 22;

  it('carries views that end past 4 GiB to a worker whole, over the same memory', async () => {
    expect(await echoThroughWorker({ nested: [0, { view: whole }] }, true)).toEqual([0, whole.length, 11, 12]);
    expect(await echoThroughWorker({ nested: [0, { view: pastFourGib }] }, true)).toEqual([FOUR_GIB + 4096, 16, 21, 22]);
  });

  it('is needed: without it the worker gets the views truncated', async () => {
    expect(await echoThroughWorker({ nested: [0, { view: pastFourGib }] }, false)).not.toEqual([FOUR_GIB + 4096, 16, 21, 22]);
  });

  it('leaves messages without such views as they are, and restores those with them', () => {
    const small = { kind: 'gemm', task: { words: new Uint32Array(4), list: [1, new Float64Array(2)] } };
    expect(encodeLargeViews(small)).toBe(small);
    expect(decodeLargeViews(small)).toBe(small);
    const message = { taskId: 3, request: { a: { words: pastFourGib, numVectors: 2 }, outputs: [new Uint32Array(3), whole] } };
    const encoded = encodeLargeViews(message) as typeof message;
    expect(encoded).not.toBe(message);
    expect(ArrayBuffer.isView(encoded.request.a.words)).toBe(false);
    expect(encoded.request.outputs[0]).toBe(message.request.outputs[0]);
    const decoded = decodeLargeViews<typeof message>(encoded);
    expect(decoded.taskId).toBe(3);
    expect(decoded.request.a.numVectors).toBe(2);
    expect(decoded.request.a.words).toBeInstanceOf(Uint32Array);
    expect([decoded.request.a.words.byteOffset, decoded.request.a.words.length, decoded.request.a.words[15]]).toEqual([FOUR_GIB + 4096, 16, 22]);
    expect(decoded.request.outputs[1].buffer).toBe(buffer);
    expect(decoded.request.outputs[1].length).toBe(whole.length);
  });
});
