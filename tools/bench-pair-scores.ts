// Dense 2-way epistasis host finalize alone: CPU nanoseconds per pair of the analysis's `pairs.finalize` on one panel
// (--rows SNPs against --cols others) of random genotypes (MAF 0.4, no missing call), on this thread, best of --reps;
// the panel's tallies come from the cpu kernel set first, on this thread (timed apart). Its sink hands out a record selection, so the
// native scorer runs where it is built (build/epistasis/; move it away to time the JS path). With --band, the
// analysis's fused bands instead (`pairs.finalizeDenseBand`: tallies and scores in one call, as a run's finalize
// threads compute them), the panel's rows in bands of --band-rows; the same checksum. It goes through the analysis
// interface only, so the same file measures another tree's finalize.
//
//   node dist/tools/bench-pair-scores.js [--rows 200] [--cols 5000] [--samples 2000] [--score k2] [--reps 5]
//   node dist/tools/bench-pair-scores.js --band --rows 1024 --cols 1024 [--band-rows 128]   (a run's panel and bands)
import { loadavg } from 'node:os';
import { createPopcountGemm } from '../src/mgemm/index.js';
import { loadBuiltInAnalysis, type PairBlock, type RecordSelectingSink, type TupleRecordSelection, type TupleRow } from '../src/analyses/index.js';
import { ChecksumAccumulator, tupleValuePairWeights } from '../src/core/checksum.js';
import { DEFAULT_PARAM, EPISTASIS_SCORES, type EpistasisScore } from '../src/core/types.js';
import { randomPlanes } from './lib/randomPlanes.js';
import { choiceOf, createToolProgram, parsePositiveInteger, parseToolOptions, valueOption } from './lib/cliOptions.js';

interface BenchOptions {
  readonly rows: number;
  readonly cols: number;
  readonly samples: number;
  readonly score: EpistasisScore;
  readonly reps: number;
  readonly band: boolean;
  readonly bandRows: number;
}

const program = createToolProgram('bench-pair-scores', 'dense 2-way epistasis host finalize of one panel: CPU ns per pair')
  .addOption(valueOption('--rows <n>', 'row SNPs of the panel', parsePositiveInteger, '200'))
  .addOption(valueOption('--cols <n>', 'column SNPs of the panel (after the rows)', parsePositiveInteger, '5000'))
  .addOption(valueOption('--samples <n>', 'samples (half controls)', parsePositiveInteger, '2000'))
  .addOption(valueOption('--score <score>', 'k2, mi or ig', choiceOf(EPISTASIS_SCORES), 'k2'))
  .addOption(valueOption('--reps <n>', 'timed runs; the fastest counts', parsePositiveInteger, '5'))
  .option('--band', "time the fused bands (pairs.finalizeDenseBand: the GEMM's tallies too) instead of finalize")
  .addOption(valueOption('--band-rows <n>', 'rows of a band (--band)', parsePositiveInteger, '128'));
const options = parseToolOptions<BenchOptions>(program);

const numVector = options.rows + options.cols;
const numControls = Math.floor(options.samples / 2);
const run = (await loadBuiltInAnalysis('epistasis')).forRun({
  spec: { metric: 'epistasis', numWay: 2, sparse: false, param: DEFAULT_PARAM, multiplier: 1, caseControl: { numControls, score: options.score } },
  numVector, numField: options.samples,
});
const pairs = run.pairs!;

const planes = randomPlanes(run.planes, { numVector, numSamples: options.samples });
const gemm = await createPopcountGemm({ backend: 'cpu', numThreads: 1 });
// The GEMM on this thread (one thread: no workers), timed too: the separate path's other half.
let gemmBest = Infinity;
let tallies: Uint32Array[] = [];
for (let rep = 0; rep < options.reps; rep++) {
  if (tallies.length > 0) gemm.recycle?.(tallies);
  const before = process.cpuUsage();
  tallies = await gemm.run({
    a: planes, aFirst: 0, aCount: options.rows, b: planes, bFirst: options.rows, bCount: options.cols, termGroups: pairs.termGroups, strictUpper: false,
  });
  const used = process.cpuUsage(before);
  gemmBest = Math.min(gemmBest, (used.user + used.system) * 1000);
}
await gemm.close();

const block = { blockIdx: 0, vectorFirst: 0, numVectorReal: numVector, planes, sums: new Float64Array(numVector), counts: new Float64Array(numVector) };
const panel: PairBlock = { rows: block, rowFirst: 0, numRows: options.rows, cols: block, colFirst: options.rows, numCols: options.cols, strictUpper: false };
let viaRows = 0;
const refuse = (): never => { throw new Error('2-way epistasis finalize gives one value per pair'); };
const checksum = new ChecksumAccumulator();
const weights = new Float64Array(options.cols);
const keep = new Uint8Array(options.cols).fill(1);
// Every value in the checksum, no records: the native scorer's selection, or addTupleValueRow's values (JS path) with
// EntrySink's checksum steps.
const sink: RecordSelectingSink = {
  threshold: { kind: 'none' }, checksum, writesRecords: false,
  addPairRow: refuse, addPairEntryRow: refuse, addTripleRow: refuse, addPairCountRow: refuse, addHistogramCounts: refuse,
  addRecordWords: () => undefined,
  addTupleValueRow(tuple: TupleRow, values: Float64Array): void {
    tupleValuePairWeights(numVector, tuple.i, tuple.first, tuple.count, weights);
    checksum.addEntries(values, weights, tuple.count, keep);
    viaRows += tuple.count;
  },
  tupleRecordSelection: (): TupleRecordSelection => ({ numVector, threshold: { kind: 'none' }, writesRecords: false, bar: null, top: null }),
};
const finalizeBand = pairs.finalizeDenseBand;
if (options.band && finalizeBand === undefined) program.error('this tree has no fused dense bands (or its native scorer is not built)');
/** The panel's pairs: finalized from the GEMM's tallies, or (--band) computed and scored in bands of --band-rows rows. */
const finalizePanel = (): number => {
  if (!options.band || finalizeBand === undefined) return pairs.finalize({ sink, verifier: null }, panel, tallies);
  let done = 0;
  for (let rowFirst = 0; rowFirst < options.rows; rowFirst += options.bandRows) {
    const geometry = { rowFirst, numRows: Math.min(options.bandRows, options.rows - rowFirst), colFirst: options.rows, numCols: options.cols, strictUpper: false };
    done += finalizeBand({ sink, verifier: null }, { rows: block, cols: block, panels: [geometry] }) ?? program.error('the band was refused');
  }
  return done;
};
let best = Infinity;
let numPairs = 0;
for (let rep = 0; rep < options.reps; rep++) {
  const before = process.cpuUsage();
  numPairs = finalizePanel();
  const used = process.cpuUsage(before);
  best = Math.min(best, (used.user + used.system) * 1000);
}
const what = options.band ? `fused bands of ${options.bandRows} rows (tallies and scores)` : viaRows === 0 ? 'native scorer' : 'JS path';
process.stdout.write(`load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}; 2-way ${options.score.toUpperCase()} finalize, ` +
  `${options.samples} samples, ${what}: ${numPairs} pairs, ` +
  `${(best / numPairs).toFixed(1)} CPU ns per pair (best of ${options.reps}; checksum ${checksum.sum() % 1000000n} mod 10^6); ` +
  `the kernel set's GEMM of the panel alone ${(gemmBest / numPairs).toFixed(1)} CPU ns per pair\n`);
