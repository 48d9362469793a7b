// Benchmark of the CPU popcount-GEMM on the dense CCC 2-way case: prints comparisons per second.
// Usage: node dist/tools/bench-mgemm.js [--vectors 2048] [--fields 8192] [--threads 1,2] [--reps 5] [--backend cpu]
//   [--panel 2048]
// With --panel the vectors are cut into square panels of that many rows and columns, one GEMM call each, their
// outputs recycled, as the 2-way pipeline runs them (engine/pipeline/pipeline2.ts); without, one call for all.

import { performance } from 'node:perf_hooks';
import { Option } from 'commander';
import {
  allocatePlaneMatrix, CPU_BACKEND_NAMES, createPopcountGemm, type CpuBackendName, type PopcountGemmRequest,
} from '../src/mgemm/index.js';
import { createToolProgram, listOf, parsePositiveInteger, parseToolOptions, valueOption } from './lib/cliOptions.js';

/** Dense CCC 2-way: planes H and L per vector, all four products summed into one table entry. */
const CCC_DENSE_TERMS = [
  [0, 0],
  [0, 1],
  [1, 0],
  [1, 1],
] as const;

/** The command line, named as its long options. */
interface BenchMgemmOptions {
  readonly vectors: number;
  readonly fields: number;
  readonly threads: readonly number[];
  readonly reps: number;
  readonly backend: CpuBackendName;
  readonly panel?: number;
}

function parseOptions(): BenchMgemmOptions {
  const program = createToolProgram('bench-mgemm', 'comparisons per second of the CPU popcount-GEMM on the dense CCC 2-way case')
    .addOption(valueOption('--vectors <n>', 'vectors (rows of both operands)', parsePositiveInteger, '2048'))
    .addOption(valueOption('--fields <n>', 'fields per vector', parsePositiveInteger, '8192'))
    .addOption(valueOption('--threads <list>', 'thread counts to time, comma-separated', listOf(parsePositiveInteger), '1,2'))
    .addOption(valueOption('--reps <n>', 'timed runs of each case, the best kept', parsePositiveInteger, '5'))
    .addOption(new Option('--backend <name>', 'CPU kernel set').choices(CPU_BACKEND_NAMES).default('cpu'))
    .addOption(valueOption('--panel <n>', 'vectors per square panel, one GEMM call each, outputs recycled', parsePositiveInteger));
  return parseToolOptions<BenchMgemmOptions>(program);
}

/** Random 2-bit codes as H/L planes; bits past numField stay zero as the contract requires. */
function randomCccPlanes(numVectors: number, numField: number) {
  const matrix = allocatePlaneMatrix(numVectors, 2, numField);
  const { words, wordsPerPlane } = matrix;
  const fullWords = Math.floor(numField / 32);
  const tailMask = numField % 32 === 0 ? 0 : (2 ** (numField % 32) - 1) >>> 0;
  for (let plane = 0; plane < numVectors * 2; plane++) {
    for (let w = 0; w < fullWords; w++) words[plane * wordsPerPlane + w] = (Math.random() * 2 ** 32) >>> 0;
    if (tailMask !== 0) words[plane * wordsPerPlane + fullWords] = ((Math.random() * 2 ** 32) >>> 0) & tailMask;
  }
  return matrix;
}

/**
 * The requests of all pairs (strictUpper) or the full square, as panels of `panel` rows × `panel` columns: with
 * strictUpper, diagonal panels take their upper triangle and panels below the diagonal are left out.
 */
function panelRequests(matrix: PopcountGemmRequest['a'], numVectors: number, panel: number, strictUpper: boolean): PopcountGemmRequest[] {
  const requests: PopcountGemmRequest[] = [];
  for (let rowFirst = 0; rowFirst < numVectors; rowFirst += panel) {
    for (let colFirst = strictUpper ? rowFirst : 0; colFirst < numVectors; colFirst += panel) {
      requests.push({
        a: matrix, aFirst: rowFirst, aCount: Math.min(panel, numVectors - rowFirst),
        b: matrix, bFirst: colFirst, bCount: Math.min(panel, numVectors - colFirst),
        termGroups: [CCC_DENSE_TERMS], strictUpper: strictUpper && rowFirst === colFirst,
      });
    }
  }
  return requests;
}

async function main(): Promise<void> {
  const options = parseOptions();
  const { vectors: numVectors, fields: numField, threads: threadCounts, reps, backend } = options;
  const matrix = randomCccPlanes(numVectors, numField);
  console.log(`popcount-GEMM, CCC dense 2-way (4 terms), ${numVectors} vectors × ${numField} fields, best of ${reps}`);
  for (const numThreads of threadCounts) {
    const gemm = await createPopcountGemm({ backend, numThreads });
    for (const strictUpper of [true, false]) {
      const requests = panelRequests(matrix, numVectors, options.panel ?? numVectors, strictUpper);
      const numPairs = strictUpper ? (numVectors * (numVectors - 1)) / 2 : numVectors * numVectors;
      const runAll = async (): Promise<void> => {
        for (const request of requests) gemm.recycle?.(await gemm.run(request));
      };
      await runAll(); // warm-up: wasm tier-up, worker start, memory growth
      let bestSeconds = Infinity;
      for (let rep = 0; rep < reps; rep++) {
        const start = performance.now();
        await runAll();
        bestSeconds = Math.min(bestSeconds, (performance.now() - start) / 1000);
      }
      const comparisonsPerSecond = (numPairs * numField) / bestSeconds;
      console.log(
        `${gemm.name.padEnd(14)} threads=${numThreads} ${strictUpper ? 'strictUpper' : 'full       '} ` +
          `${(bestSeconds * 1000).toFixed(1).padStart(8)} ms  ${(comparisonsPerSecond / 1e9).toFixed(1).padStart(6)} G comparisons/s`,
      );
    }
    await gemm.close();
  }
}

await main();
