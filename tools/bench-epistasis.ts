// Case-control epistasis throughput on the CPU: `snptally epistasis` 2-way and 3-way K2 (tuples·samples/s of the
// whole process and of the engine run), and 2-way against `plink1.9 --fast-epistasis` on the same .bed with the same
// threads, in one run (wall times of whole processes, best of --reps), printing the ratio. Data: tools/lib's
// simulated case-control filesets (MAF 0.4, a planted pure pair), written to a scratch directory that is removed.
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createToolProgram, parsePositiveInteger, parseToolOptions, valueOption } from './lib/cliOptions.js';
import { simulateEpistasis } from './lib/epistasisSimulation.js';
import { fastestOf, timedProcess } from './lib/timedProcess.js';

interface BenchOptions {
  readonly snps: number;
  readonly snps3: number;
  readonly samples: number;
  readonly threads: number;
  readonly reps: number;
}

const CLI_MAIN = resolve(dirname(fileURLToPath(import.meta.url)), '../src/cli/main.js');

const program = createToolProgram('bench-epistasis', 'snptally epistasis (2-/3-way K2) and plink1.9 --fast-epistasis on the same .bed')
  .addOption(valueOption('--snps <n>', 'SNPs of the 2-way set', parsePositiveInteger, '5000'))
  .addOption(valueOption('--snps3 <n>', 'SNPs of the 3-way set', parsePositiveInteger, '300'))
  .addOption(valueOption('--samples <n>', 'samples (half cases)', parsePositiveInteger, '2000'))
  .addOption(valueOption('--threads <n>', 'threads of both programs', parsePositiveInteger, '2'))
  .addOption(valueOption('--reps <n>', 'runs of each command; the fastest counts', parsePositiveInteger, '1'));
const options = parseToolOptions<BenchOptions>(program);

const dir = mkdtempSync(join(tmpdir(), 'bench-epistasis-'));
try {
  const numCases = Math.floor(options.samples / 2);
  const simulate = (name: string, numSnp: number): string => {
    const prefix = join(dir, name);
    simulateEpistasis(prefix, {
      numSnp, numCases, numControls: options.samples - numCases, maf: 0.4, prevalence: 0.3, heritability: 0.02, model: 'pure',
      planted: [1, numSnp - 2], missingRate: 0, seed: 1,
    });
    return prefix;
  };
  const threads = String(options.threads);
  process.stdout.write(`load average ${loadavg().map((l) => l.toFixed(2)).join(' ')} (the machine may be shared)\n`);
  for (const [order, numSnp] of [[2, options.snps], [3, options.snps3]] as const) {
    const prefix = simulate(`set${order}`, numSnp);
    const ours = fastestOf(options.reps, () => timedProcess(process.execPath,
      [CLI_MAIN, 'epistasis', '--bfile', prefix, '--order', String(order), '--score', 'k2', '--top', '10', '--threads', threads, '--json']));
    const report = JSON.parse(ours.stdout) as { numTuples: number; seconds: number; tupleSamplesPerSecond: number; kernelSets: string[] };
    const work = report.numTuples * options.samples;
    process.stdout.write(`snptally epistasis ${order}-way K2, ${numSnp} SNPs × ${options.samples} samples, ${threads} threads ` +
      `(${report.kernelSets[0]}): ${ours.seconds.toFixed(2)} s whole process, ${(work / ours.seconds).toExponential(3)} tuples·samples/s; ` +
      `engine run ${report.seconds.toFixed(2)} s, ${report.tupleSamplesPerSecond.toExponential(3)}\n`);
    if (order === 2) {
      const plink = fastestOf(options.reps, () => timedProcess('plink1.9',
        ['--bfile', prefix, '--fast-epistasis', '--threads', threads, '--out', join(dir, 'plink')]));
      process.stdout.write(`plink1.9 --fast-epistasis, same .bed and threads: ${plink.seconds.toFixed(2)} s, ` +
        `${(work / plink.seconds).toExponential(3)} pairs·samples/s; snptally/plink speed ratio ${(plink.seconds / ours.seconds).toFixed(2)}\n`);
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
