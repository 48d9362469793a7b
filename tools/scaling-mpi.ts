// Weak- and strong-scaling series of 2-way CCC under mpirun (one rank per process, npv = processes),
// printed as a table with parallel efficiency.
//
//   node dist/tools/scaling-mpi.js [--procs 1,2] [--backend cpu] [--weak-vectors 2048] [--strong-vectors 4096]
//     [--fields 16384] [--threads N] [--repeats 1] [--series weak,strong] [--half-diagonal lower-rows|split]
//     [--mpirun-args "..."] [--json]
//
// --half-diagonal is passed to every run (`snptally run --half-diagonal`): `split` shares the d = npv/2 block
// diagonal of an even npv between its two rows, which balances the ranks (SPEC §6's `lower-rows`, the default,
// gives rank 0 of 2 three quarters of the pairs). The plan is named in the tables' titles and in --json.
//
// With --backend webgpu each rank takes the GPU of its node-local rank (one rank per GPU when procs ≤
// GPUs); the table's `gpus` column lists the GPU index of each rank as the run reported it, and a
// series fails when ranks that could each have their own GPU share one.
//
// Weak scaling keeps the work per rank fixed: p ranks get nv = weak-vectors · √p (pairs grow as nv²), and
// efficiency = (rate_p / p) / rate_1 with rate = comparisons per second. Strong scaling keeps the problem
// fixed (strong-vectors): efficiency = rate_p / (p · rate_1), i.e. T_1 / (p · T_p). Times are the run's
// own "compute time" (rank 0, from the job check to the gathered result; not process start-up), the best
// of --repeats; `compute s` and `compute eff` use the slowest rank's compute phase instead (after its input
// is generated or read: transfers, GEMMs, finalize, output), the engine's own scaling. Every run of one
// series must print the same checksum as the others for its problem size, so the strong series is also a
// correctness check.
import { spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Option } from 'commander';
import { HALF_DIAGONAL_PLANS, type HalfDiagonalPlan } from '../src/parallel/index.js';
import {
  choiceOf, createToolProgram, listOf, parsePositiveInteger, parseToolOptions, valueOption,
} from './lib/cliOptions.js';

const CLI_MAIN = resolve(dirname(fileURLToPath(import.meta.url)), '../src/cli/main.js');

/** The command line, named as its long options. */
interface ScalingOptions {
  readonly procs: readonly number[];
  readonly backend: string;
  readonly weakVectors: number;
  readonly strongVectors: number;
  readonly fields: number;
  /** Absent: `snptally run`'s own default. */
  readonly threads?: number;
  readonly repeats: number;
  /** Absent: none beyond those every run needs (defaultMpirunArgs). */
  readonly mpirunArgs?: readonly string[];
  readonly series: readonly RunPoint['series'][];
  readonly halfDiagonal: HalfDiagonalPlan;
  readonly json: boolean;
}

interface RunPoint {
  readonly series: 'weak' | 'strong';
  readonly procs: number;
  readonly numVector: number;
  readonly numField: number;
  readonly seconds: number;
  readonly wallSeconds: number;
  readonly comparisonsPerSecond: number;
  /** The slowest rank's compute phase (after its input is loaded) and the rate over it. */
  readonly computeSeconds: number;
  readonly computeComparisonsPerSecond: number;
  readonly checksum: string;
  /** GPU index of each rank (null: CPU or unknown), from the run's rankDevices. */
  readonly gpus: readonly (number | null)[];
  efficiency: number;
  computeEfficiency: number;
}

/** The part of `snptally run --json` read here. */
interface RunReport {
  readonly seconds: number;
  readonly comparisonsPerSecond: number;
  readonly computeSeconds: number;
  readonly computeComparisonsPerSecond: number;
  readonly checksum: string;
  readonly rankDevices: readonly { readonly gpuIndex: number | null; readonly gpuCount: number | null }[];
}

function parseOptions(argv: readonly string[]): ScalingOptions {
  const program = createToolProgram('scaling-mpi', 'weak- and strong-scaling series of 2-way CCC under mpirun, with parallel efficiency')
    .addOption(valueOption('--procs <list>', 'process counts of each series, comma-separated', listOf(parsePositiveInteger), '1,2'))
    .addOption(new Option('--backend <name>', 'kernel set of snptally run (the same choices)').choices(['cpu', 'ref', 'webgpu', 'auto']).default('cpu'))
    .addOption(valueOption('--weak-vectors <n>', 'vectors of one process in the weak series (p processes: n · √p)', parsePositiveInteger, '2048'))
    .addOption(valueOption('--strong-vectors <n>', 'vectors of every run of the strong series', parsePositiveInteger, '4096'))
    .addOption(valueOption('--fields <n>', 'fields per vector', parsePositiveInteger, '16384'))
    .addOption(valueOption('--threads <n>', 'kernel threads per rank (default: snptally run\'s, the machine\'s cores)', parsePositiveInteger))
    .addOption(valueOption('--repeats <n>', 'runs of each point, the fastest kept', parsePositiveInteger, '1'))
    .addOption(valueOption('--series <list>', 'which series to run, comma-separated: weak, strong', listOf(choiceOf(['weak', 'strong'] as const)), 'weak,strong'))
    .addOption(new Option('--half-diagonal <plan>', 'who computes the d = npv/2 block diagonal (snptally run --half-diagonal)')
      .choices(HALF_DIAGONAL_PLANS).default('lower-rows'))
    .addOption(valueOption('--mpirun-args <args>', 'launcher options, split at white space (default: none)', splitWords))
    .option('--json', 'print one JSON object instead of the tables', false);
  return parseToolOptions<ScalingOptions>(program, argv);
}

function splitWords(_option: string, text: string): string[] {
  return text.split(/\s+/).filter((word) => word.length > 0);
}

/** Flags every run needs here: root may run mpirun only when told; more ranks than cores need oversubscription. */
function defaultMpirunArgs(procs: number): string[] {
  const args: string[] = [];
  if (process.getuid?.() === 0) args.push('--allow-run-as-root');
  if (procs > availableParallelism()) args.push('--oversubscribe');
  return args;
}

function runOnce(options: ScalingOptions, procs: number, numVector: number): Omit<RunPoint, 'series' | 'efficiency' | 'computeEfficiency'> {
  const runArgs = [
    CLI_MAIN, 'run', '--vectors', String(numVector), '--fields', String(options.fields),
    '--npv', String(procs), '--backend', options.backend, '--half-diagonal', options.halfDiagonal, '--json',
    ...(options.threads === undefined ? [] : ['--threads', String(options.threads)]),
  ];
  const start = performance.now();
  const child = spawnSync('mpirun', [...defaultMpirunArgs(procs), ...(options.mpirunArgs ?? []), '-np', String(procs), process.execPath, ...runArgs], {
    encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 16 << 20,
  });
  const wallSeconds = (performance.now() - start) / 1000;
  if (child.error !== undefined) throw new Error(`cannot run mpirun: ${child.error.message}`);
  if (child.status !== 0) throw new Error(`mpirun -np ${procs} failed (status ${child.status}):\n${child.stderr}`);
  // `run --json` writes one JSON document to stdout and nothing else (stdout is the report's: anything else there
  // is a bug to see, not to skip).
  let report: RunReport;
  try {
    report = JSON.parse(child.stdout) as RunReport;
  } catch {
    throw new Error(`mpirun -np ${procs}: stdout is not one JSON report:\n${child.stdout.slice(-2000)}`);
  }
  checkOneGpuPerRank(procs, report.rankDevices);
  return {
    procs, numVector, numField: options.fields, seconds: report.seconds, wallSeconds,
    comparisonsPerSecond: report.comparisonsPerSecond, computeSeconds: report.computeSeconds,
    computeComparisonsPerSecond: report.computeComparisonsPerSecond, checksum: report.checksum, gpus: report.rankDevices.map((d) => d.gpuIndex),
  };
}

/** Ranks that could each have their own GPU (procs ≤ GPUs) must not share one. */
function checkOneGpuPerRank(procs: number, devices: RunReport['rankDevices']): void {
  const numGpus = devices[0]?.gpuCount ?? null;
  if (numGpus === null || procs > numGpus) return;
  const used = new Set(devices.map((d) => d.gpuIndex));
  if (used.size !== procs) throw new Error(`-np ${procs} on ${numGpus} GPUs: ranks share a GPU (${devices.map((d) => d.gpuIndex).join(',')})`);
}

/** The best (fastest) of `repeats` runs; all of them must agree on the checksum. */
function measure(options: ScalingOptions, series: RunPoint['series'], procs: number, numVector: number): RunPoint {
  let best: Omit<RunPoint, 'series' | 'efficiency' | 'computeEfficiency'> | null = null;
  for (let repeat = 0; repeat < options.repeats; repeat++) {
    const point = runOnce(options, procs, numVector);
    if (best !== null && point.checksum !== best.checksum) throw new Error(`checksum changed between repeats at -np ${procs}`);
    if (best === null || point.seconds < best.seconds) best = point;
  }
  if (best === null) throw new Error('no run');
  return { ...best, series, efficiency: Number.NaN, computeEfficiency: Number.NaN };
}

/** Vector count of the weak series: work per rank ∝ nv² / p stays that of one rank. */
function weakVectorCount(base: number, procs: number): number {
  return Math.round(base * Math.sqrt(procs));
}

function formatTable(title: string, points: readonly RunPoint[]): string {
  const header = ['procs', 'gpus', 'vectors', 'fields', 'seconds', 'wall s', 'comparisons/s', 'per proc', 'efficiency', 'compute s', 'compute eff', 'checksum'];
  const rows = points.map((p) => [
    String(p.procs),
    p.gpus.every((g) => g === null) ? '-' : p.gpus.map((g) => (g === null ? '?' : String(g))).join(','),
    String(p.numVector), String(p.numField), p.seconds.toFixed(3), p.wallSeconds.toFixed(1),
    p.comparisonsPerSecond.toExponential(3), (p.comparisonsPerSecond / p.procs).toExponential(3),
    `${(100 * p.efficiency).toFixed(1)}%`, p.computeSeconds.toFixed(3), `${(100 * p.computeEfficiency).toFixed(1)}%`, p.checksum,
  ]);
  const widths = header.map((h, col) => Math.max(h.length, ...rows.map((row) => row[col].length)));
  const line = (cells: string[]): string => cells.map((cell, col) => cell.padStart(widths[col])).join('  ');
  return [title, line(header), ...rows.map(line)].join('\n');
}

/** Per-process rate relative to the series' first point (normally one process), whole run and compute phase. */
function setEfficiencies(points: RunPoint[]): void {
  const base = points[0].comparisonsPerSecond / points[0].procs;
  const computeBase = points[0].computeComparisonsPerSecond / points[0].procs;
  for (const p of points) {
    p.efficiency = p.comparisonsPerSecond / p.procs / base;
    p.computeEfficiency = p.computeComparisonsPerSecond / p.procs / computeBase;
  }
}

function main(): void {
  const options = parseOptions(process.argv);
  const what = `2-way CCC, backend ${options.backend}, half-diagonal ${options.halfDiagonal}` +
    (options.threads === undefined ? '' : `, ${options.threads} threads per rank`);
  const tables: string[] = [];
  const result: Record<string, unknown> = { backend: options.backend, halfDiagonal: options.halfDiagonal };
  if (options.series.includes('weak')) {
    const weak = options.procs.map((procs) => measure(options, 'weak', procs, weakVectorCount(options.weakVectors, procs)));
    // Rates relative to the first entry of the series (normally one process).
    setEfficiencies(weak);
    result.weak = weak;
    tables.push(formatTable(`weak scaling (${what}; vectors = ${options.weakVectors} · √procs)`, weak));
  }
  if (options.series.includes('strong')) {
    const strong = options.procs.map((procs) => measure(options, 'strong', procs, options.strongVectors));
    setEfficiencies(strong);
    if (new Set(strong.map((p) => p.checksum)).size !== 1) throw new Error('strong scaling: checksums differ between process counts');
    result.strong = strong;
    tables.push(formatTable(`strong scaling (${what}; ${options.strongVectors} vectors)`, strong));
  }
  process.stdout.write(options.json ? `${JSON.stringify(result)}\n` : `${tables.join('\n\n')}\n`);
}

main();
