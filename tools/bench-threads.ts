// Thread scaling of the CPU path: comparisons per second of five jobs (2-way CCC dense and sparse, LD r², 2-way DUO,
// 3-way CCC) at each thread count of one rank, and the speed-up over the smallest count (normally one thread).
//
//   node dist/tools/bench-threads.js [--vectors 6144] [--vectors3 384] [--fields 16384] [--threads-list 1,2,4,…]
//     [--jobs ccc,ccc-sparse,r2,duo,ccc3] [--backend cpu] [--reps 3] [--json] [--out FILE]
//
// Each measurement is a fresh process, `node dist/src/cli/main.js run … --threads N --json`, so no run inherits
// another's warm workers or heap. The rate is the run's own compute phase (`computeComparisonsPerSecond`: after the
// input block is built, through kernels, finalize and checksum), the best of --reps; every run of one job must print
// the same checksum, so a thread count that changed a result stops the benchmark. Each point also gives the process's
// CPU seconds in that compute phase (`computeCpuSeconds`), and how many threads were busy on average (CPU / wall):
// less loaded by other work than wall time, it shows whether serial work or idle threads are left.
import { writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Option } from 'commander';
import {
  choiceOf, createToolProgram, listOf, parsePositiveInteger, parseToolOptions, valueOption,
} from './lib/cliOptions.js';
import { timedProcess } from './lib/timedProcess.js';

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const CLI_MAIN = resolve(REPO_ROOT, 'dist/src/cli/main.js');

const JOB_NAMES = ['ccc', 'ccc-sparse', 'r2', 'duo', 'ccc3'] as const;
type JobName = typeof JOB_NAMES[number];

/** What each job adds to `run`, and which vector count it takes. */
const JOBS: Readonly<Record<JobName, { readonly title: string; readonly runArgs: readonly string[]; readonly numWay: 2 | 3 }>> = {
  'ccc': { title: '2-way CCC dense', runArgs: [], numWay: 2 },
  'ccc-sparse': { title: '2-way CCC sparse', runArgs: ['--sparse'], numWay: 2 },
  'r2': { title: 'LD r² (sparse)', runArgs: ['--metric', 'r2', '--sparse'], numWay: 2 },
  'duo': { title: '2-way DUO dense', runArgs: ['--metric', 'duo'], numWay: 2 },
  'ccc3': { title: '3-way CCC dense', runArgs: ['--way', '3'], numWay: 3 },
};

/** The command line, named as its long options. */
interface BenchThreadsOptions {
  readonly vectors: number;
  readonly vectors3: number;
  readonly fields: number;
  /** Absent: powers of two up to the machine's cores, and the core count. */
  readonly threadsList?: readonly number[];
  readonly jobs: readonly JobName[];
  readonly backend: string;
  readonly reps: number;
  readonly json: boolean;
  readonly out?: string;
}

/** The part of `snptally run --json` read here. */
interface RunReport {
  readonly computeSeconds: number;
  readonly computeCpuSeconds: number;
  readonly computeComparisonsPerSecond: number;
  readonly checksum: string;
}

/** One job at one thread count: its best run. */
interface ThreadRow {
  readonly job: JobName;
  readonly title: string;
  readonly vectors: number;
  readonly fields: number;
  readonly threads: number;
  readonly computeSeconds: number;
  /** CPU seconds of the process (all threads) in that compute phase. */
  readonly computeCpuSeconds: number;
  readonly comparisonsPerSecond: number;
  /** Wall seconds of the fastest run's process (start-up and input included). */
  readonly wallSeconds: number;
  /** Rate over the job's rate at `baseThreads`. */
  readonly speedup: number;
  /** speedup · baseThreads / threads: 1 is perfect scaling. */
  readonly efficiency: number;
  readonly checksum: string;
  /** The command as run from the repository root. */
  readonly command: string;
}

interface BenchThreadsReport {
  readonly machine: {
    readonly cores: number;
    readonly cpuModel: string;
    readonly node: string;
    readonly loadAverageBefore: number;
    readonly loadAverageAfter: number;
  };
  readonly backend: string;
  readonly reps: number;
  /** The thread count every speed-up is relative to: the smallest of the list. */
  readonly baseThreads: number;
  readonly rows: readonly ThreadRow[];
}

function parseOptions(argv: readonly string[]): BenchThreadsOptions {
  const program = createToolProgram('bench-threads',
    'comparisons per second of five CPU jobs at each thread count of one rank, and the speed-up over one thread')
    .addOption(valueOption('--vectors <n>', 'vectors of the 2-way jobs', parsePositiveInteger, '6144'))
    .addOption(valueOption('--vectors3 <n>', 'vectors of the 3-way job', parsePositiveInteger, '384'))
    .addOption(valueOption('--fields <n>', 'fields per vector of every job', parsePositiveInteger, '16384'))
    .addOption(valueOption('--threads-list <list>',
      'thread counts, comma-separated (default: powers of two up to the cores, and the core count)', listOf(parsePositiveInteger)))
    .addOption(valueOption('--jobs <list>', `jobs to run, comma-separated: ${JOB_NAMES.join(', ')}`,
      listOf(choiceOf(JOB_NAMES)), JOB_NAMES.join(',')))
    .addOption(new Option('--backend <name>', 'kernel set of snptally run (the same choices)').choices(['cpu', 'ref', 'webgpu', 'auto']).default('cpu'))
    .addOption(valueOption('--reps <n>', 'runs of each point, the fastest kept', parsePositiveInteger, '3'))
    .option('--json', 'print one JSON object instead of the table', false)
    .option('--out <file>', 'also write the JSON object to this file (default: none)');
  return parseToolOptions<BenchThreadsOptions>(program, argv);
}

/** 1, 2, 4, … below `cores`, then `cores` itself. */
function defaultThreadCounts(cores: number): number[] {
  const counts: number[] = [];
  for (let t = 1; t < cores; t *= 2) counts.push(t);
  counts.push(cores);
  return counts;
}

function runArgs(options: BenchThreadsOptions, job: JobName, threads: number): string[] {
  const { runArgs: extra, numWay } = JOBS[job];
  return ['run', ...extra, '--vectors', String(numWay === 3 ? options.vectors3 : options.vectors), '--fields', String(options.fields),
    '--backend', options.backend, '--threads', String(threads), '--json'];
}

/** The fastest of `reps` runs of one job at one thread count; all must agree on the checksum. */
function measure(options: BenchThreadsOptions, job: JobName, threads: number): Omit<ThreadRow, 'speedup' | 'efficiency'> {
  const args = runArgs(options, job, threads);
  let best: { report: RunReport; wallSeconds: number } | null = null;
  for (let rep = 0; rep < options.reps; rep++) {
    const { seconds, stdout } = timedProcess(process.execPath, [CLI_MAIN, ...args]);
    const report = JSON.parse(stdout) as RunReport;
    if (best !== null && report.checksum !== best.report.checksum) {
      throw new Error(`${job} at ${threads} threads: checksum changed between repetitions`);
    }
    if (best === null || report.computeSeconds < best.report.computeSeconds) best = { report, wallSeconds: seconds };
  }
  if (best === null) throw new Error('no run');
  return {
    job, title: JOBS[job].title, vectors: JOBS[job].numWay === 3 ? options.vectors3 : options.vectors, fields: options.fields, threads,
    computeSeconds: best.report.computeSeconds, computeCpuSeconds: best.report.computeCpuSeconds, comparisonsPerSecond: best.report.computeComparisonsPerSecond,
    wallSeconds: best.wallSeconds, checksum: best.report.checksum,
    command: ['node', relative(REPO_ROOT, CLI_MAIN), ...args].join(' '),
  };
}

function formatTable(report: BenchThreadsReport): string {
  const header = ['job', 'vectors', 'fields', 'threads', 'compute s', 'cpu s', 'busy threads', 'comparisons/s', `speed-up (×${report.baseThreads} thr)`, 'efficiency'];
  const cells = report.rows.map((row) => [
    row.job, String(row.vectors), String(row.fields), String(row.threads), row.computeSeconds.toFixed(3),
    row.computeCpuSeconds.toFixed(3), (row.computeCpuSeconds / row.computeSeconds).toFixed(2),
    row.comparisonsPerSecond.toExponential(3), row.speedup.toFixed(2), `${(100 * row.efficiency).toFixed(1)}%`,
  ]);
  const widths = header.map((h, col) => Math.max(h.length, ...cells.map((row) => row[col].length)));
  const line = (row: string[]): string => row.map((cell, col) => (col === 0 ? cell.padEnd(widths[col]) : cell.padStart(widths[col]))).join('  ');
  const m = report.machine;
  return [
    `machine: ${m.cores} cores, ${m.cpuModel}, node ${m.node}; 1-min load ${m.loadAverageBefore.toFixed(2)} before, ${m.loadAverageAfter.toFixed(2)} after`,
    `backend ${report.backend}, one rank, best of ${report.reps} (compute phase of each run)`,
    '',
    line(header), ...cells.map(line),
    '',
    'commands (from the repository root):',
    ...report.rows.map((row) => `  ${row.command}`),
  ].join('\n');
}

function main(): void {
  const options = parseOptions(process.argv);
  const cores = availableParallelism();
  const threadCounts = [...new Set(options.threadsList ?? defaultThreadCounts(cores))].sort((a, b) => a - b);
  const baseThreads = threadCounts[0];
  const loadAverageBefore = loadavg()[0];
  const rows: ThreadRow[] = [];
  for (const job of options.jobs) {
    const points = threadCounts.map((threads) => measure(options, job, threads));
    if (new Set(points.map((p) => p.checksum)).size !== 1) throw new Error(`${job}: checksums differ between thread counts`);
    const baseRate = points[0].comparisonsPerSecond;
    for (const p of points) {
      const speedup = p.comparisonsPerSecond / baseRate;
      rows.push({ ...p, speedup, efficiency: speedup * baseThreads / p.threads });
    }
  }
  const report: BenchThreadsReport = {
    machine: { cores, cpuModel: cpus()[0]?.model ?? 'unknown', node: process.version, loadAverageBefore, loadAverageAfter: loadavg()[0] },
    backend: options.backend, reps: options.reps, baseThreads, rows,
  };
  if (options.out !== undefined) writeFileSync(options.out, `${JSON.stringify(report, null, 2)}\n`);
  process.stdout.write(options.json ? `${JSON.stringify(report)}\n` : `${formatTable(report)}\n`);
}

try {
  main();
} catch (error) {
  // A run that failed: its command and its own message, without this tool's stack.
  process.stderr.write(`bench-threads: ${error instanceof Error ? error.message.trim() : String(error)}\n`);
  process.exit(1);
}
