// Windowed r² bands alone: CPU nanoseconds per window pair of r²'s band finalize (`pairs.finalizeWindowBand`: the
// native path where build/r2/ is built) on this thread, best of --reps, over every band of one chromosome of random
// genotypes (MAF 0.4, --missing calls) spaced as bench-r2's window mode spaces them (gaps uniform in [1, 2·spacing) bp),
// panels and bands as a windowed run makes them (windowPanelGeometry, MAX_BAND_PAIRS-sized bands); records written to
// an EntrySink whose writer drops them. It goes through the analysis interface only.
//
//   node dist/tools/bench-r2-band.js [--snps 20000] [--samples 1000] [--window-kb 1000] [--spacing-bp 5000] [--missing 0.05] [--reps 5]
import { loadavg } from 'node:os';
import { loadBuiltInAnalysis, type PairWindowBand } from '../src/analyses/index.js';
import { pairWindowLimits, windowKbToBp } from '../src/core/pairWindow.js';
import { singleThreshold } from '../src/core/thresholds.js';
import { DEFAULT_PARAM } from '../src/core/types.js';
import { EntrySink, pairsInPanel, windowPanelGeometry, windowPanelRows } from '../src/engine/index.js';
import { randomPlanes } from './lib/randomPlanes.js';
import { createToolProgram, parseFraction, parsePositiveInteger, parseToolOptions, valueOption } from './lib/cliOptions.js';

interface BenchOptions {
  readonly snps: number;
  readonly samples: number;
  readonly windowKb: number;
  readonly spacingBp: number;
  readonly missing: number;
  readonly reps: number;
}

const program = createToolProgram('bench-r2-band', "windowed r² bands on one thread: CPU ns per window pair of r²'s band finalize")
  .addOption(valueOption('--snps <n>', 'SNPs of the one chromosome', parsePositiveInteger, '20000'))
  .addOption(valueOption('--samples <n>', 'samples', parsePositiveInteger, '1000'))
  .addOption(valueOption('--window-kb <kb>', '--ld-window-kb', parsePositiveInteger, '1000'))
  .addOption(valueOption('--spacing-bp <n>', 'mean bp between neighbouring SNPs', parsePositiveInteger, '5000'))
  .addOption(valueOption('--missing <rate>', 'fraction of missing calls', parseFraction, '0.05'))
  .addOption(valueOption('--reps <n>', 'timed runs; the fastest counts', parsePositiveInteger, '5'));
const o = parseToolOptions<BenchOptions>(program);

const run = (await loadBuiltInAnalysis('r2')).forRun({
  spec: { metric: 'r2', numWay: 2, sparse: true, param: DEFAULT_PARAM, multiplier: 1 }, numVector: o.snps, numField: o.samples,
});
const pairs = run.pairs ?? program.error('r² has pairs');
const finalizeWindowBand = pairs.finalizeWindowBand ?? program.error('r² has no band finalize');
const planes = randomPlanes(run.planes, { numVector: o.snps, numSamples: o.samples, missingRate: o.missing });
let state = 1;
let bp = 10_000;
const position = Array.from({ length: o.snps }, (_, v) => {
  state = (state * 48271) % 2147483647;
  if (v > 0) bp += 1 + (state % (2 * o.spacingBp - 1));
  return bp;
});
const window = pairWindowLimits({ maxVectorSpan: 99_999, maxDistanceBp: windowKbToBp(o.windowKb), interChr: false },
  { chromosome: new Array<string>(o.snps).fill('1'), position, record: (v) => `snp${v}` }, 'bench loci');
const block = { blockIdx: 0, vectorFirst: 0, numVectorReal: o.snps, planes, sums: new Float64Array(o.snps), counts: new Float64Array(o.snps) };
const region = { rowRange: { begin: 0, end: o.snps }, colRange: { begin: 0, end: o.snps }, strictUpper: true };
const shape = { rowsPerPanel: windowPanelRows(window, 1 << 20), pairsPerPanel: 1 << 16 };
// Bands of consecutive panels up to windowBands.ts's 2^17 pairs.
const bands: PairWindowBand[] = [];
let panels: PairWindowBand['panels'][number][] = [];
let bandPairs = 0;
for (const panel of windowPanelGeometry(0, 0, region, window, shape)) {
  panels.push(panel);
  bandPairs += pairsInPanel(panel);
  if (bandPairs >= 1 << 17) {
    bands.push({ rows: block, cols: block, panels, window });
    panels = [];
    bandPairs = 0;
  }
}
if (panels.length > 0) bands.push({ rows: block, cols: block, panels, window });

let best = Infinity;
let windowPairs = 0;
let checksum = 0n;
for (let rep = 0; rep < o.reps; rep++) {
  const sink = new EntrySink(o.snps, 2, singleThreshold(null), { appendRecordWords: () => undefined }, { window });
  const start = process.cpuUsage();
  windowPairs = 0;
  for (const band of bands) windowPairs += finalizeWindowBand({ sink, verifier: null }, band) ?? program.error("r²'s native window bands are not built (npm run build:native)");
  const used = process.cpuUsage(start);
  best = Math.min(best, (used.user + used.system) * 1000);
  checksum = sink.checksum.sum();
}
console.log(`r² window bands, ${o.snps} SNPs × ${o.samples} samples, ${o.windowKb} kb (~${o.spacingBp} bp apart), ${o.missing} missing: ${bands.length} bands, ${windowPairs} window pairs`);
console.log(`CPU ${(best / 1e6).toFixed(1)} ms, ${(best / windowPairs).toFixed(2)} ns per window pair (best of ${o.reps}); checksum sum ${checksum}; 1-min load ${loadavg()[0].toFixed(2)}`);
