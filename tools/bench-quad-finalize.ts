// 4-way epistasis host finalize alone: CPU nanoseconds per quadruple of the analysis's `quads.finalize` on one full
// tile (128 row pairs × 256 column pairs, every quadruple valid) of random genotypes (MAF 0.4, --missing calls), on
// this thread, best of --reps; the tile's tallies come from the cpu kernel set first (not timed). It goes through the
// analysis interface only, so the same file measures another tree's finalize.
//
//   node dist/tools/bench-quad-finalize.js [--snps 60] [--samples 2000] [--missing 0] [--score k2] [--reps 10]
import { loadavg } from 'node:os';
import { createPopcountGemm, pairPlaneMatrix } from '../src/mgemm/index.js';
import { colPairsOf, firstColPairOf, rowPairJ, rowPairsOf } from '../src/parallel/index.js';
import { loadBuiltInAnalysis, type QuadTileView, type ResultSink, type TupleRow } from '../src/analyses/index.js';
import { ChecksumAccumulator } from '../src/core/checksum.js';
import { DEFAULT_PARAM, EPISTASIS_SCORES, type EpistasisScore } from '../src/core/types.js';
import { UserError } from '../src/core/errors.js';
import { randomPlanes } from './lib/randomPlanes.js';
import { choiceOf, createToolProgram, parseNonNegativeNumber, parsePositiveInteger, parseToolOptions, valueOption } from './lib/cliOptions.js';

interface BenchOptions {
  readonly snps: number;
  readonly samples: number;
  readonly missing: number;
  readonly score: EpistasisScore;
  readonly reps: number;
}

const ROWS = 128;
const COLS = 256;

const program = createToolProgram('bench-quad-finalize', '4-way epistasis host finalize of one tile: CPU ns per quadruple')
  .addOption(valueOption('--snps <n>', 'SNPs (the tile takes row pairs with j ≤ 16 against column pairs with k ≥ 17)', parsePositiveInteger, '60'))
  .addOption(valueOption('--samples <n>', 'samples (half controls)', parsePositiveInteger, '2000'))
  .addOption(valueOption('--missing <rate>', 'fraction of missing calls (> 0: the sparse tally plan)', parseNonNegativeNumber, '0'))
  .addOption(valueOption('--score <score>', 'k2, mi or ig', choiceOf(EPISTASIS_SCORES), 'k2'))
  .addOption(valueOption('--reps <n>', 'timed runs; the fastest counts', parsePositiveInteger, '10'));
const options = parseToolOptions<BenchOptions>(program);
const firstK = rowPairJ(ROWS - 1) + 1;
const colFirst = firstColPairOf(options.snps, firstK);
if (colFirst + COLS > firstColPairOf(options.snps, options.snps - 1)) throw new UserError(`--snps: ${options.snps} SNPs give no full tile; take at least 45`);

const numControls = Math.floor(options.samples / 2);
const sparse = options.missing > 0;
const run = (await loadBuiltInAnalysis('epistasis')).forRun({
  spec: { metric: 'epistasis', numWay: 4, sparse, param: DEFAULT_PARAM, multiplier: 1, caseControl: { numControls, score: options.score } },
  numVector: options.snps, numField: options.samples,
});
const quads = run.quads!;

const planes = randomPlanes(run.planes, { numVector: options.snps, numSamples: options.samples, missingRate: options.missing });
const rows = rowPairsOf(0, ROWS);
const cols = colPairsOf(options.snps, colFirst, colFirst + COLS);
const a = pairPlaneMatrix(planes, rows.i, rows.j, quads.plan.rowPlanePairs);
const b = pairPlaneMatrix(planes, cols.k, cols.l, quads.plan.colPlanePairs);
const vectorFirst = cols.k[0];
const vectorEnd = Math.max(...cols.l) + 1;
const gemm = await createPopcountGemm({ backend: 'cpu', numThreads: 1 });
const tallies = await gemm.run({ a, aFirst: 0, aCount: ROWS, b, bFirst: 0, bCount: COLS, termGroups: quads.plan.termGroups, strictUpper: false });
const vectorGroups = quads.plan.vectorTermGroups;
const vectorTallies = vectorGroups === null ? null : await gemm.run({
  a, aFirst: 0, aCount: ROWS, b: planes, bFirst: vectorFirst, bCount: vectorEnd - vectorFirst, termGroups: vectorGroups, strictUpper: false,
});
await gemm.close();

const tile: QuadTileView = {
  vectors: { blockIdx: 0, vectorFirst: 0, numVectorReal: options.snps, planes, sums: new Float64Array(options.snps), counts: new Float64Array(options.snps) },
  rowI: rows.i, rowJ: rows.j, colK: cols.k, colL: cols.l, vectorFirst, numVectorCols: vectorEnd - vectorFirst,
};
let sum = 0;
const refuse = (): never => { throw new Error('4-way finalize gives one value per quadruple'); };
const sink: ResultSink = {
  threshold: { kind: 'none' }, checksum: new ChecksumAccumulator(), writesRecords: false,
  addPairRow: refuse, addPairEntryRow: refuse, addTripleRow: refuse, addPairCountRow: refuse, addRecordWords: refuse, addHistogramCounts: refuse,
  addTupleValueRow(tuple: TupleRow, values: Float64Array): void {
    for (let t = 0; t < tuple.count; t++) sum += values[t];
  },
};
let best = Infinity;
let numQuads = 0;
for (let rep = 0; rep < options.reps; rep++) {
  const before = process.cpuUsage();
  numQuads = quads.finalize({ sink, verifier: null }, tile, tallies, vectorTallies);
  const used = process.cpuUsage(before);
  best = Math.min(best, (used.user + used.system) * 1000);
}
process.stdout.write(`load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}; 4-way ${options.score.toUpperCase()} finalize, ` +
  `${sparse ? `${options.missing} missing calls` : 'dense'}, ${options.samples} samples: ${numQuads} quadruples, ` +
  `${(best / numQuads).toFixed(0)} CPU ns per quadruple (best of ${options.reps}; value sum ${sum.toPrecision(6)})\n`);
