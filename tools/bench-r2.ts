// LD r² benchmark: `snptally run --metric r2` against `plink1.9 --r2` on the same .bed, same thread count,
// in one run; prints wall times and the ratios; and r²'s compute time against sparse CCC's on the same prepared
// file (the same tallies' cost: r² must finalize as fast as CCC does).
//
//   node dist/tools/bench-r2.js [--snps 5000] [--samples 10000] [--threads 2] [--missing 0.05] [--backend cpu]
//                               [--plink plink1.9] [--reps 1] [--json]
//                               [--window-kb KB [--chromosomes 4] [--spacing-bp 5000]]
// With --window-kb, windowed LD instead (benchWindowed in lib/windowedR2Bench.ts): the .bim gets --chromosomes chromosomes
// and positions --spacing-bp apart on average, and snptally's `run --metric r2 --ld-window-kb KB --ld-window 99999
// --ld-window-r2 0` is timed against `plink1.9 --r2 --ld-window-kb KB --ld-window 99999 --ld-window-r2 0`.
// Each timing is the best of --reps runs (the first run of a process on a GPU also compiles its programs); the window mode
// runs the two programs in turns and also prints their CPU seconds (user + system, from /proc).
//
// Data: `plink1.9 --dummy <samples> <snps> <missing>` (.bed/.bim/.fam); both programs read the same .bed
// (snptally converts it to its packed layout on the fly, and that time is counted).
// What is timed, end to end as processes (start, read, compute, write every pair's value in binary):
//   snptally  run --metric r2 --sparse --output …  (one record per unique pair: 2 uint32 + float32)
//   snptally  … --matrix triangle --matrix-format bin4 --output …  (PLINK's own triangle file, float32 per pair)
//   PLINK     --r2 square bin4     the command the issue names; PLINK computes the full n×n matrix, so
//                                  every pair twice (ld_report_matrix gives each row the interval [0, n))
//   PLINK     --r2 triangle bin4   each unique pair once (rows get [0, i]): the like-for-like all-pairs run
// Binary float output (bin4) on both sides so that neither is timed formatting text: square's text matrix
// is 25 M decimal numbers at 5000 SNPs, and `inter-chr --ld-window-r2 0` prints 12.5 M text lines.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createToolProgram, parseFraction, parsePositiveInteger, parseToolOptions, valueOption,
} from './lib/cliOptions.js';
import { fastestOf, timedProcess } from './lib/timedProcess.js';
import { benchWindowed, type WindowBenchSetup } from './lib/windowedR2Bench.js';
import { bundledCliMain } from './lib/bundledCli.js';

/** The command line, named as its long options (the window mode's set-up shares them). */
type BenchR2Options = Omit<WindowBenchSetup, 'windowKb' | 'cliMain' | 'dir' | 'prefix' | 'loadBefore'> & {
  readonly windowKb?: number;
};

function parseOptions(argv: readonly string[]): BenchR2Options {
  const program = createToolProgram('bench-r2', 'wall times of snptally run --metric r2 and plink1.9 --r2 (square, triangle) on one .bed')
    .addOption(valueOption('--snps <n>', 'SNPs of the plink1.9 --dummy data', parsePositiveInteger, '5000'))
    .addOption(valueOption('--samples <n>', 'samples of the --dummy data', parsePositiveInteger, '10000'))
    .addOption(valueOption('--threads <n>', 'threads of both programs', parsePositiveInteger, '2'))
    .addOption(valueOption('--missing <rate>', 'fraction of missing calls in the --dummy data, 0 to 1', parseFraction, '0.05'))
    .addOption(valueOption('--backend <name>', 'snptally kernel set (cpu, webgpu, ...)', (_o, text) => text, 'cpu'))
    .addOption(valueOption('--plink <path>', 'the plink1.9 program', (_o, text) => text, 'plink1.9'))
    .addOption(valueOption('--reps <n>', 'runs of each timing; the best counts', parsePositiveInteger, '1'))
    .option('--json', 'print one JSON object instead of text', false)
    .addOption(valueOption('--window-kb <kb>', 'windowed LD of this many kb instead of all pairs (see lib/windowedR2Bench.ts)', parsePositiveInteger))
    .addOption(valueOption('--chromosomes <n>', 'with --window-kb: chromosomes the SNPs are spread over', parsePositiveInteger, '4'))
    .addOption(valueOption('--spacing-bp <n>', 'with --window-kb: mean bp between neighbouring SNPs', parsePositiveInteger, '5000'));
  return parseToolOptions<BenchR2Options>(program, argv);
}

/** What bench-r2 reads of `run --json`. */
interface RunReport {
  readonly computeSeconds: number;
  readonly entries: number;
  readonly backend: string;
  readonly deviceFinalizedPairs: number;
}

// The package's bin (the bundle), as a user runs it.
const CLI_MAIN = bundledCliMain();

function main(): void {
  const o = parseOptions(process.argv);
  const dir = mkdtempSync(join(tmpdir(), 'snptally-bench-r2-'));
  const loadBefore = loadavg()[0];
  try {
    const prefix = join(dir, 'data');
    execFileSync(o.plink, ['--dummy', String(o.samples), String(o.snps), String(o.missing), '--seed', '1',
      '--make-bed', '--out', prefix], { stdio: 'ignore' });
    if (o.windowKb !== undefined) {
      benchWindowed({ ...o, windowKb: o.windowKb, cliMain: CLI_MAIN, dir, prefix, loadBefore });
      return;
    }

    const threads = String(o.threads);
    const engine = ['--threads', threads, '--backend', o.backend, '--json'];
    const best = (runOnce: () => { seconds: number; stdout: string }) => fastestOf(o.reps, runOnce);
    const snptally = best(() => timedProcess(process.execPath, [CLI_MAIN, 'run', '--metric', 'r2', '--sparse', '--input', prefix,
      ...engine, '--output', join(dir, 'snptally'), '--force']));
    const report = JSON.parse(snptally.stdout) as RunReport;
    // PLINK's own file: the triangle of every pair's float32 r² (diagonal included), 4 bytes a pair against 12.
    const snptallyMatrix = best(() => timedProcess(process.execPath, [CLI_MAIN, 'run', '--metric', 'r2', '--sparse', '--input', prefix,
      ...engine, '--matrix', 'triangle', '--matrix-format', 'bin4', '--output', join(dir, 'snptally-matrix'), '--force']));
    // Compute alone, r² against sparse CCC, on one prepared file (no conversion, no output).
    const packed = join(dir, 'data.packed');
    execFileSync(process.execPath, [CLI_MAIN, 'prepare', prefix, '--out', packed], { stdio: 'ignore' });
    const computeOf = (metric: string): RunReport => {
      const reports = Array.from({ length: o.reps }, () =>
        JSON.parse(timedProcess(process.execPath, [CLI_MAIN, 'run', '--metric', metric, '--sparse', '--input', packed, ...engine]).stdout) as RunReport);
      return reports.reduce((a, b) => (b.computeSeconds < a.computeSeconds ? b : a));
    };
    const r2Compute = computeOf('r2');
    const cccCompute = computeOf('ccc');
    const plinkArgs = (shape: string): string[] =>
      ['--bfile', prefix, '--r2', shape, 'bin4', '--threads', threads, '--allow-no-sex', '--out', join(dir, `plink-${shape}`)];
    const square = best(() => timedProcess(o.plink, plinkArgs('square')));
    const triangle = best(() => timedProcess(o.plink, plinkArgs('triangle')));
    const result = {
      snps: o.snps, samples: o.samples, threads: o.threads, missingRate: o.missing, reps: o.reps, pairs: report.entries,
      backend: report.backend, deviceFinalizedPairs: report.deviceFinalizedPairs,
      snptallySeconds: +snptally.seconds.toFixed(3), snptallyComputeSeconds: +report.computeSeconds.toFixed(3),
      snptallyMatrixSeconds: +snptallyMatrix.seconds.toFixed(3),
      matrixSpeedupOverPlinkTriangle: +(triangle.seconds / snptallyMatrix.seconds).toFixed(2),
      r2ComputeSeconds: +r2Compute.computeSeconds.toFixed(3), sparseCccComputeSeconds: +cccCompute.computeSeconds.toFixed(3),
      r2OverCccCompute: +(r2Compute.computeSeconds / cccCompute.computeSeconds).toFixed(2),
      plinkSquareSeconds: +square.seconds.toFixed(3), plinkTriangleSeconds: +triangle.seconds.toFixed(3),
      speedupOverPlinkSquare: +(square.seconds / snptally.seconds).toFixed(2),
      speedupOverPlinkTriangle: +(triangle.seconds / snptally.seconds).toFixed(2),
      loadAverageBefore: +loadBefore.toFixed(2), loadAverageAfter: +loadavg()[0].toFixed(2),
    };
    if (o.json) {
      console.log(JSON.stringify(result));
      return;
    }
    console.log(`r² of ${result.pairs} pairs: ${result.snps} SNPs × ${result.samples} samples, ${o.missing} missing, ${o.threads} threads`);
    console.log(`snptally run --metric r2 --sparse --backend ${result.backend} --output   ${result.snptallySeconds} s (compute ${result.snptallyComputeSeconds} s, ${result.deviceFinalizedPairs} pairs finalized on the device)`);
    console.log(`snptally … --matrix triangle --matrix-format bin4   ${result.snptallyMatrixSeconds} s   ${result.matrixSpeedupOverPlinkTriangle}× faster than plink1.9 --r2 triangle bin4`);
    console.log(`compute on the prepared file: r² ${result.r2ComputeSeconds} s, sparse CCC ${result.sparseCccComputeSeconds} s: r²/CCC ${result.r2OverCccCompute}`);
    console.log(`plink1.9 --r2 square bin4           ${result.plinkSquareSeconds} s   snptally ${result.speedupOverPlinkSquare}× faster`);
    console.log(`plink1.9 --r2 triangle bin4         ${result.plinkTriangleSeconds} s   snptally ${result.speedupOverPlinkTriangle}× faster`);
    console.log(`(1-min load average ${result.loadAverageBefore} before, ${result.loadAverageAfter} after)`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main();
