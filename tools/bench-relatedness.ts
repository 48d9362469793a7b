// Relatedness benchmark: `snptally plink --make-king triangle bin` against `plink2 --make-king triangle bin` on the
// same .bed with the same thread count, in one run; prints wall times and the ratio, the load average, and checks that
// both .king.bin files are the same bytes.
//
//   node dist/tools/bench-relatedness.js [--samples 4000] [--snps 50000] [--missing 0.01] [--threads 2]
//                                        [--plink2 plink2] [--reps 1] [--json]
//
// Data: `plink1.9 --dummy <samples> <snps> <missing>` (SNPs on chromosome 1, so every SNP counts for KING). Both are
// timed end to end as processes: snptally's prepare (.bed → sample-major packed file), run --metric king and the
// matrix file; plink2's own .bed reading, counts and file.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createToolProgram, parseFraction, parsePositiveInteger, parseToolOptions, valueOption } from './lib/cliOptions.js';
import { fastestOf, timedProcess } from './lib/timedProcess.js';

interface BenchRelatednessOptions {
  readonly samples: number;
  readonly snps: number;
  readonly missing: number;
  readonly threads: number;
  readonly plink2: string;
  readonly reps: number;
  readonly json: boolean;
}

function parseOptions(argv: readonly string[]): BenchRelatednessOptions {
  const program = createToolProgram('bench-relatedness', 'wall times of snptally plink and plink2 --make-king triangle bin on one .bed')
    .addOption(valueOption('--samples <n>', 'samples of the plink1.9 --dummy data', parsePositiveInteger, '4000'))
    .addOption(valueOption('--snps <n>', 'SNPs of the --dummy data', parsePositiveInteger, '50000'))
    .addOption(valueOption('--missing <rate>', 'fraction of missing calls in the --dummy data, 0 to 1', parseFraction, '0.01'))
    .addOption(valueOption('--threads <n>', 'threads of both programs', parsePositiveInteger, '2'))
    .addOption(valueOption('--plink2 <path>', 'the plink2 program', (_o, text) => text, 'plink2'))
    .addOption(valueOption('--reps <n>', 'runs of each timing; the best counts', parsePositiveInteger, '1'))
    .option('--json', 'print one JSON object instead of text', false);
  return parseToolOptions<BenchRelatednessOptions>(program, argv);
}

const CLI_MAIN = resolve(dirname(fileURLToPath(import.meta.url)), '../src/cli/main.js');

function main(): void {
  const o = parseOptions(process.argv);
  const dir = mkdtempSync(join(tmpdir(), 'snptally-bench-king-'));
  const loadBefore = loadavg()[0];
  try {
    const prefix = join(dir, 'data');
    execFileSync('plink1.9', ['--dummy', String(o.samples), String(o.snps), String(o.missing), '--seed', '1', '--make-bed', '--out', prefix],
      { stdio: 'ignore' });
    const flags = ['--bfile', prefix, '--make-king', 'triangle', 'bin', '--threads', String(o.threads)];
    let rep = 0;
    const snptally = fastestOf(o.reps, () => timedProcess(process.execPath, [CLI_MAIN, 'plink', ...flags, '--out', join(dir, `st${rep++}`), '--force']));
    const plink2 = fastestOf(o.reps, () => timedProcess(o.plink2, [...flags, '--out', join(dir, 'p2')]));
    const sameBytes = readFileSync(join(dir, 'st0.king.bin')).equals(readFileSync(join(dir, 'p2.king.bin')));
    const result = {
      samples: o.samples, snps: o.snps, missing: o.missing, threads: o.threads,
      snptallySeconds: snptally.seconds, plink2Seconds: plink2.seconds, speedup: plink2.seconds / snptally.seconds,
      sameBytes, loadBefore, loadAfter: loadavg()[0],
    };
    if (o.json) {
      process.stdout.write(`${JSON.stringify(result)}\n`);
      return;
    }
    process.stdout.write(
      `KING ${o.samples} samples × ${o.snps} SNPs (${o.missing} missing), ${o.threads} threads, triangle bin\n` +
      `  snptally plink --make-king   ${snptally.seconds.toFixed(2)} s\n` +
      `  plink2 --make-king           ${plink2.seconds.toFixed(2)} s\n` +
      `  speedup ${result.speedup.toFixed(2)}x; .king.bin ${sameBytes ? 'identical' : 'DIFFERENT'}; ` +
      `load average ${loadBefore.toFixed(2)} before, ${result.loadAfter.toFixed(2)} after\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main();
