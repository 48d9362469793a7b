// Probe of what a GPU run spends before its first GEMM: opening Dawn's adapter and device on this thread (the main
// thread is blocked meanwhile: a 1 ms timer counts how often it ran), optionally after a worker thread opened them
// first, and uploading a block held as 2-bit code rows (PlaneMatrix.codeRows: the staging ring, the code-planes program
// and the vector sums) against the same bytes staged as plain words.
//
//   node dist/tools/probe-gpu-input.js [--samples 20000] [--snps 50000] [--reps 3] [--worker-first]
//
// Nothing is checked here: the code-row path is checked exactly by test/mgemm/codeRowUpload.test.ts.
/// <reference types="@webgpu/types" />

import { Worker } from 'node:worker_threads';
import { createPopcountGemmWebgpu, planeWordsFor, type PlaneMatrix } from '../src/mgemm/index.js';
import { createToolProgram, parsePositiveInteger, parseToolOptions, valueOption } from './lib/cliOptions.js';

/** The command line, named as its long options. */
interface ProbeOptions {
  readonly samples: number;
  readonly snps: number;
  readonly reps: number;
  readonly workerFirst: boolean;
}

const options = parseToolOptions<ProbeOptions>(createToolProgram('probe-gpu-input',
  'milliseconds to open the WebGPU adapter and device, and to upload a block held as 2-bit code rows')
  .addOption(valueOption('--samples <n>', 'rows (vectors) of the block', parsePositiveInteger, '20000'))
  .addOption(valueOption('--snps <n>', 'fields of each row', parsePositiveInteger, '50000'))
  .addOption(valueOption('--reps <n>', 'uploads of each kind', parsePositiveInteger, '3'))
  .option('--worker-first', 'open an adapter and device in a worker thread first', false));

/** KING's code table (het, hom1, hom2, present). */
const KING_BITS = [12, 9, 0, 10];

/** Opens an adapter and a device in a worker thread and resolves once it has (and closed them). */
function openInWorker(): Promise<void> {
  const source = `const { parentPort } = require('node:worker_threads');
    import('webgpu').then(async ({ create }) => {
      const adapter = await create([]).requestAdapter({ powerPreference: 'high-performance' });
      (await adapter.requestDevice()).destroy();
      parentPort.postMessage('open');
    });`;
  return new Promise((resolve, reject) => {
    const worker = new Worker(source, { eval: true });
    worker.once('message', () => void worker.terminate().then(() => resolve()));
    worker.once('error', reject);
  });
}

async function main(): Promise<void> {
  if (options.workerFirst) {
    const start = performance.now();
    await openInWorker();
    console.log(`worker opened an adapter and a device: ${(performance.now() - start).toFixed(1)} ms`);
  }
  let ticks = 0;
  const timer = setInterval(() => { ticks++; }, 1);
  const { create } = await import('webgpu');
  let start = performance.now();
  const adapter = await create([]).requestAdapter({ powerPreference: 'high-performance' });
  if (adapter === null) throw new Error('no WebGPU adapter');
  console.log(`requestAdapter ${(performance.now() - start).toFixed(1)} ms (timer ran ${ticks} times)`);
  start = performance.now();
  (await adapter.requestDevice()).destroy();
  console.log(`requestDevice ${(performance.now() - start).toFixed(1)} ms (timer ran ${ticks} times)`);
  clearInterval(timer);

  const gemm = await createPopcountGemmWebgpu({});
  try {
    const bytesPerRow = Math.ceil(options.snps / 4);
    const bytes = new Uint8Array(new SharedArrayBuffer(options.samples * bytesPerRow));
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 2654435761) >>> 24;
    const words = new Uint32Array(bytes.buffer, 0, bytes.length >> 2);
    for (let rep = 0; rep < options.reps; rep++) {
      start = performance.now();
      (await gemm.benchmarking.upload(words, 'staged')).release();
      console.log(`${(bytes.length / 2 ** 20).toFixed(0)} MiB staged as words: ${(performance.now() - start).toFixed(1)} ms`);
    }
    for (let rep = 0; rep < options.reps; rep++) {
      // A new matrix each time: resident operands are kept by object.
      const planes: PlaneMatrix = {
        numVectors: options.samples, numPlanes: 4, wordsPerPlane: planeWordsFor(options.snps), words: new Uint32Array(0),
        codeRows: { bytes, bytesPerRow, numRowsReal: options.samples, numField: options.snps, bitsOfCode: KING_BITS },
      };
      start = performance.now();
      await gemm.vectorSums({ planes, countPlanes: [0], maskPlane: 3 });
      console.log(`${(bytes.length / 2 ** 20).toFixed(0)} MiB of code rows uploaded as planes, with their sums: ${(performance.now() - start).toFixed(1)} ms`);
    }
  } finally {
    await gemm.close();
  }
}

await main();
