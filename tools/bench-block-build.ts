// Time to build one rank's vector block in shared memory, as `run` builds its own block before (and while) uploading
// it: a synthetic problem of SPEC §4, generated and turned into bit planes by block workers.
//
//   node dist/tools/bench-block-build.js [--vectors 65536] [--fields 65536] [--threads 16,8] [--problem random]
//                                        [--metric ccc] [--sparse] [--reps 3] [--json]
//
// Per thread count and repetition: seconds until the first chunk of rows is final (what an upload waits for first),
// seconds until the whole block is, and fields per second. Each build writes into a fresh block, so first-write page
// faults count, as in a run.
import type { MetricKind } from '../src/core/types.js';
import { builtInPlaneLayout } from '../src/analyses/index.js';
import { startBlockBuild } from '../src/engine/index.js';
import {
  choiceOf, createToolProgram, listOf, parsePositiveInteger, parseToolOptions, valueOption,
} from './lib/cliOptions.js';

/** The command line, named as its long options. */
interface BenchBlockBuildOptions {
  readonly vectors: number;
  readonly fields: number;
  readonly threads: number[];
  readonly problem: 'random' | 'analytic';
  readonly metric: MetricKind;
  readonly sparse: boolean;
  readonly reps: number;
  readonly json: boolean;
}

/** One timed build. */
interface BlockBuildTiming {
  readonly threads: number;
  readonly firstRowsSeconds: number;
  readonly seconds: number;
  readonly fieldsPerSecond: number;
}

const options = parseToolOptions<BenchBlockBuildOptions>(createToolProgram('bench-block-build',
  'time building a vector block of a synthetic problem in shared memory on block workers')
  .addOption(valueOption('--vectors <n>', 'vectors (rows) of the block', parsePositiveInteger, '65536'))
  .addOption(valueOption('--fields <n>', 'fields per vector', parsePositiveInteger, '65536'))
  .addOption(valueOption('--threads <list>', 'thread counts, comma-separated', listOf(parsePositiveInteger), '16,8'))
  .addOption(valueOption('--problem <name>', 'random or analytic', choiceOf(['random', 'analytic'] as const), 'random'))
  .addOption(valueOption('--metric <name>', 'ccc, duo or r2 (sets the planes)', choiceOf(['ccc', 'duo', 'r2'] as const), 'ccc'))
  .option('--sparse', 'code 10 is missing (a mask plane)', false)
  .addOption(valueOption('--reps <n>', 'repetitions per thread count', parsePositiveInteger, '3'))
  .option('--json', 'print one JSON object', false));

const layout = await builtInPlaneLayout(options.metric, options.sparse);
const shape = { numVectorLocal: options.vectors, vectorFirst: 0, numVectorReal: options.vectors, fieldFirst: 0, numFieldLocal: options.fields };
const numFields = options.vectors * options.fields;
const timings: BlockBuildTiming[] = [];
let blockBytes = 0;
for (const threads of options.threads) {
  for (let rep = 0; rep < options.reps; rep++) {
    const start = performance.now();
    const filling = startBlockBuild({ kind: options.problem }, options.vectors, options.fields, layout, shape, { numThreads: threads });
    blockBytes = filling.planes.words.byteLength;
    let firstRowsSeconds = 0;
    const firstRows = filling.rowsReady(1).then(() => { firstRowsSeconds = (performance.now() - start) / 1000; });
    await filling.done;
    await firstRows;
    const seconds = (performance.now() - start) / 1000;
    const timing = { threads, firstRowsSeconds, seconds, fieldsPerSecond: numFields / seconds };
    timings.push(timing);
    if (!options.json) {
      process.stdout.write(`threads ${threads}: first rows ${firstRowsSeconds.toFixed(3)} s, block ${seconds.toFixed(3)} s, `
        + `${(timing.fieldsPerSecond / 1e9).toFixed(2)} G fields/s\n`);
    }
  }
}
if (options.json) {
  const { vectors, fields, problem, metric, sparse } = options;
  process.stdout.write(`${JSON.stringify({ vectors, fields, problem, metric, sparse, numPlanes: layout.numPlanes, blockBytes, timings })}\n`);
}
