// Case-control epistasis throughput: `snptally epistasis` 2-, 3- and 4-way K2 (or --score mi, ig; tuples·samples/s of the whole process,
// of the engine run and of its compute from loaded input) on --backend cpu or webgpu (2-way scores on the GPU), and
// 2-way against `plink1.9 --fast-epistasis` on the same .bed with the same threads, in one run (wall times of whole
// processes, best of --reps, the two programs taking turns; and their CPU seconds, which a loaded machine disturbs
// less), printing the ratios; --no-peer leaves plink1.9 out (timing the GPU). --orders picks the tuple sizes. Data:
// tools/lib's simulated case-control filesets (MAF 0.4, a planted pure pair), in a scratch directory that is removed.
//
//   node dist/tools/bench-epistasis.js [--snps 5000] [--snps3 300] [--snps4 60] [--samples 2000] [--threads 2] [--reps 1]
//     [--backend cpu] [--orders 2,3,4] [--score k2] [--no-peer]
//   node dist/tools/bench-epistasis.js --orders 4 --snps4 100 --threads 1 --no-peer   (4-way host scoring on the CPU)
//   node dist/tools/bench-epistasis.js --backend webgpu --snps 8192 --samples 262144 --orders 2 --no-peer   (H200, peer size)
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { choiceOf, createToolProgram, listOf, parsePositiveInteger, parseToolOptions, valueOption } from './lib/cliOptions.js';
import { UserError } from '../src/core/errors.js';
import { simulateEpistasis } from './lib/epistasisSimulation.js';
import { timedProcess } from './lib/timedProcess.js';
import { bundledCliMain } from './lib/bundledCli.js';

interface BenchOptions {
  readonly snps: number;
  readonly snps3: number;
  readonly snps4: number;
  readonly samples: number;
  readonly threads: number;
  readonly reps: number;
  readonly backend: Backend;
  readonly orders: number[];
  readonly score: Score;
  /** false with --no-peer. */
  readonly peer: boolean;
}

const BACKENDS = ['cpu', 'webgpu', 'ref', 'auto'] as const;
type Backend = (typeof BACKENDS)[number];
const SCORES = ['k2', 'mi', 'ig'] as const;
type Score = (typeof SCORES)[number];

/** A tuple size of `snptally epistasis --order`. */
function parseOrder(option: string, text: string): number {
  const order = Number(text);
  if (!(order === 2 || order === 3 || order === 4)) throw new UserError(`${option}: "${text}" is not 2, 3 or 4`);
  return order;
}

/** A whole process's best wall seconds and CPU seconds (user + system, of its run with the best wall time). */
interface ProcessTiming {
  readonly seconds: number;
  readonly cpuSeconds: number | null;
  readonly stdout: string;
}

/** CPU seconds of this process's waited-for children so far (Linux /proc/self/stat cutime + cstime), or null elsewhere. */
function childCpuSeconds(): number | null {
  if (!existsSync('/proc/self/stat')) return null;
  const stat = readFileSync('/proc/self/stat', 'utf8');
  // Fields after the command name (which may hold spaces) start at field 3; cutime and cstime are fields 16 and 17.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticksPerSecond = 100; // USER_HZ, 100 on every Linux ABI
  return (Number(fields[13]) + Number(fields[14])) / ticksPerSecond;
}

function timedWithCpu(command: string, args: readonly string[]): ProcessTiming {
  const before = childCpuSeconds();
  const { seconds, stdout } = timedProcess(command, args);
  const after = childCpuSeconds();
  return { seconds, stdout, cpuSeconds: before === null || after === null ? null : after - before };
}

/** Runs the commands in turns, `reps` rounds (so that a change of load hits both alike); the best run of each. */
function bestInTurns(reps: number, commands: readonly (() => ProcessTiming)[]): ProcessTiming[] {
  const best: (ProcessTiming | null)[] = commands.map(() => null);
  for (let rep = 0; rep < reps; rep++) {
    commands.forEach((runOnce, c) => {
      const timing = runOnce();
      if (best[c] === null || timing.seconds < best[c]!.seconds) best[c] = timing;
    });
  }
  return best.map((timing) => timing!);
}

/** What the bench reads of `snptally epistasis --json`. */
interface EpistasisJson {
  readonly numTuples: number;
  readonly seconds: number;
  readonly tupleSamplesPerSecond: number;
  readonly computeSeconds: number;
  readonly computeTupleSamplesPerSecond: number;
  readonly deviceFinalizedPairs: number;
  readonly deviceFinalizedTriples: number;
  readonly deviceRecordsReadBack: number;
  readonly kernelSets: string[];
}

const cpuText = (timing: ProcessTiming): string => (timing.cpuSeconds === null ? '' : `, ${timing.cpuSeconds.toFixed(2)} CPU s`);

// The package's bin (the bundle), as a user runs it.
const CLI_MAIN = bundledCliMain();

const program = createToolProgram('bench-epistasis', 'snptally epistasis (2-/3-/4-way, K2 by default) and plink1.9 --fast-epistasis on the same .bed')
  .addOption(valueOption('--snps <n>', 'SNPs of the 2-way set', parsePositiveInteger, '5000'))
  .addOption(valueOption('--snps3 <n>', 'SNPs of the 3-way set', parsePositiveInteger, '300'))
  .addOption(valueOption('--snps4 <n>', 'SNPs of the 4-way set', parsePositiveInteger, '60'))
  .addOption(valueOption('--samples <n>', 'samples (half cases)', parsePositiveInteger, '2000'))
  .addOption(valueOption('--threads <n>', 'threads of both programs', parsePositiveInteger, '2'))
  .addOption(valueOption('--reps <n>', 'runs of each command; the fastest counts', parsePositiveInteger, '1'))
  .addOption(valueOption('--backend <backend>', 'kernel set of snptally (webgpu: 2-way and 3-way scores on the GPU too)', choiceOf(BACKENDS), 'cpu'))
  .addOption(valueOption('--orders <list>', 'tuple sizes to run', listOf(parseOrder), '2,3,4'))
  .addOption(valueOption('--score <score>', 'score of snptally (plink1.9 computes its own statistic)', choiceOf(SCORES), 'k2'))
  .option('--no-peer', 'leave out plink1.9 --fast-epistasis');
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
  const sizes = [[2, options.snps], [3, options.snps3], [4, options.snps4]] as const;
  for (const [order, numSnp] of sizes.filter(([order]) => options.orders.includes(order))) {
    const prefix = simulate(`set${order}`, numSnp);
    const runOurs = (): ProcessTiming => timedWithCpu(process.execPath, [
      CLI_MAIN, 'epistasis', '--bfile', prefix, '--order', String(order), '--score', options.score, '--top', '10', '--threads', threads,
      '--backend', options.backend, '--json',
    ]);
    const runPlink = (): ProcessTiming => timedWithCpu('plink1.9', ['--bfile', prefix, '--fast-epistasis', '--threads', threads, '--out', join(dir, 'plink')]);
    const [ours, plink] = bestInTurns(options.reps, order === 2 && options.peer ? [runOurs, runPlink] : [runOurs]);
    const report = JSON.parse(ours.stdout) as EpistasisJson;
    const work = report.numTuples * options.samples;
    const onDevice = report.deviceFinalizedPairs + report.deviceFinalizedTriples > 0 ? `, scored on the device, ${report.deviceRecordsReadBack} records back` : '';
    process.stdout.write(`snptally epistasis ${order}-way ${options.score.toUpperCase()}, ${numSnp} SNPs × ${options.samples} samples, ${threads} threads ` +
      `(${report.kernelSets[0]}${onDevice}): ${ours.seconds.toFixed(2)} s whole process${cpuText(ours)}, ${(work / ours.seconds).toExponential(3)} tuples·samples/s; ` +
      `engine run ${report.seconds.toFixed(2)} s, ${report.tupleSamplesPerSecond.toExponential(3)}; ` +
      `compute ${report.computeSeconds.toFixed(3)} s, ${report.computeTupleSamplesPerSecond.toExponential(3)}\n`);
    if (plink !== undefined) {
      const cpuRatio = ours.cpuSeconds === null || plink.cpuSeconds === null ? '' : `, CPU-time ratio ${(plink.cpuSeconds / ours.cpuSeconds).toFixed(2)}`;
      process.stdout.write(`plink1.9 --fast-epistasis, same .bed and threads: ${plink.seconds.toFixed(2)} s${cpuText(plink)}, ` +
        `${(work / plink.seconds).toExponential(3)} pairs·samples/s; snptally/plink speed ratio ${(plink.seconds / ours.seconds).toFixed(2)}${cpuRatio}\n`);
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
