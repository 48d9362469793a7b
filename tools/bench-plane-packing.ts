// Plane packing throughput (engine/blocks/planePacking.ts packRowPlanes: 2-bit rows → bit planes, the block workers'
// work) in ns per 32-field word per thread, with --threads worker threads packing their own rows at once — what a host
// spends per block when it builds planes for KING (4 planes) at 50,000 SNPs.
//
//   node dist/tools/bench-plane-packing.js [--rows 1250] [--fields 50000] [--threads 1,16] [--reps 4]
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { kingPlaneLayout } from '../src/analyses/king/index.js';
import { packRowPlanes, planePackingTable } from '../src/engine/index.js';
import { createToolProgram, listOf, parsePositiveInteger, parseToolOptions, valueOption } from './lib/cliOptions.js';

interface PackingOptions {
  readonly rows: number;
  readonly fields: number;
  readonly threads: readonly number[];
  readonly reps: number;
}

/** One thread's best time over `reps` packings of its own random rows, in ns per word written (all planes of a word). */
function packingNsPerWord({ rows, fields, reps }: PackingOptions): number {
  const layout = kingPlaneLayout();
  const bytesPerRow = Math.ceil(fields / 4);
  const wordsPerPlane = Math.ceil(fields / 32);
  const packed = new Uint8Array(rows * bytesPerRow);
  for (let i = 0; i < packed.length; i++) packed[i] = Math.floor(Math.random() * 256);
  const table = planePackingTable(layout);
  const { numPlanes } = layout;
  const words = new Uint32Array(rows * numPlanes * wordsPerPlane);
  let best = Infinity;
  for (let rep = 0; rep < reps; rep++) {
    const start = performance.now();
    for (let r = 0; r < rows; r++) {
      packRowPlanes(table, packed, r * bytesPerRow, fields, { words, rowBase: r * numPlanes * wordsPerPlane, numPlanes, wordsPerPlane });
    }
    best = Math.min(best, performance.now() - start);
  }
  return (best * 1e6) / (rows * wordsPerPlane);
}

if (isMainThread) {
  const program = createToolProgram('bench-plane-packing', 'ns per 32-field word of packRowPlanes (KING\'s 4 planes), on several threads at once')
    .addOption(valueOption('--rows <n>', 'rows each thread packs', parsePositiveInteger, '1250'))
    .addOption(valueOption('--fields <n>', 'fields (SNPs) per row', parsePositiveInteger, '50000'))
    .addOption(valueOption('--threads <list>', 'thread counts, comma-separated', listOf(parsePositiveInteger), '1,16'))
    .addOption(valueOption('--reps <n>', 'timed packings per thread, the best kept', parsePositiveInteger, '4'));
  const options = parseToolOptions<PackingOptions>(program);
  for (const numThreads of options.threads) {
    const perThread = await Promise.all(Array.from({ length: numThreads }, () => new Promise<number>((resolve, reject) => {
      const worker = new Worker(new URL(import.meta.url), { workerData: options });
      worker.once('message', (ns: number) => resolve(ns));
      worker.once('error', reject);
    })));
    const mean = perThread.reduce((sum, ns) => sum + ns, 0) / numThreads;
    process.stdout.write(`${numThreads} thread(s) at once: ${mean.toFixed(2)} ns per word per thread (${options.rows} rows × ${options.fields} fields each)\n`);
  }
} else {
  parentPort?.postMessage(packingNsPerWord(workerData as PackingOptions));
}
