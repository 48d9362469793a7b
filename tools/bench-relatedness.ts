// Relatedness benchmark: snptally plink against the peer that defines each analysis, on the same .bed with the same
// thread count, in one run; prints wall times and ratios, the load average, and checks that both output files agree.
//   king:      `snptally plink --make-king triangle bin`      vs `plink2 --make-king triangle bin`   (.king.bin)
//              with --king-table-filter X: `--make-king-table --king-table-filter X` on both (.kin0; issue 26's GPU
//              target is X = 0.0442, 20,000 samples × 50,000 SNPs, --backend webgpu, the peer on --peer-threads 16)
//   distance:  `snptally plink --distance ibs triangle bin`   vs `plink1.9 --distance ibs triangle bin` (.mibs.bin)
//   grm:       `snptally plink --make-rel triangle bin`       vs `plink2 --make-rel triangle bin`    (.rel.bin, float64:
//              both sum in their BLAS's order, so the check is the largest difference, ≤ 1e−13, not the bytes)
//
//   node dist/tools/bench-relatedness.js [--samples 4000] [--snps 50000] [--missing 0.01] [--threads 2]
//                                        [--peer-threads N] [--analyses king,distance] [--backend cpu|webgpu|ref|auto]
//                                        [--king-table-filter X] [--stages] [--plink2 plink2] [--plink1 plink1.9]
//                                        [--reps 1] [--json]
//
// Data: `plink1.9 --dummy <samples> <snps> <missing>` (SNPs on chromosome 1, so every SNP counts). Both are timed end
// to end as processes: snptally's run (.bed → samples transposed in memory → counts) and files; the peer's own .bed
// reading, counts and files. --threads is snptally's thread count and, unless --peer-threads says otherwise, the
// peer's. --backend is snptally's for king (its KING finalize runs on the GPU with webgpu); distance and grm run on the
// CPU whatever it says. --stages (king) also times the `run --metric king --individuals --autosome` the front end runs
// (one process: the .bed transposed in memory, no prepared file), with the run's own input and compute seconds, so
// that the front end's own share (its start, reading the records, the table) is the total's remainder.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { choiceOf, createToolProgram, listOf, parseFiniteNumber, parseFraction, parsePositiveInteger, parseToolOptions, valueOption } from './lib/cliOptions.js';
import { fastestOf, timedProcess } from './lib/timedProcess.js';
import { doubleBelow } from '../src/cli/index.js';
import { bundledCliMain } from './lib/bundledCli.js';

const ANALYSES = ['king', 'distance', 'grm'] as const;
type RelatednessAnalysis = (typeof ANALYSES)[number];
const BACKENDS = ['cpu', 'webgpu', 'ref', 'auto'] as const;
type SnptallyBackend = (typeof BACKENDS)[number];

interface BenchRelatednessOptions {
  readonly samples: number;
  readonly snps: number;
  readonly missing: number;
  readonly threads: number;
  readonly peerThreads: number | undefined;
  readonly analyses: RelatednessAnalysis[];
  readonly backend: SnptallyBackend;
  readonly kingTableFilter: number | undefined;
  readonly stages: boolean;
  readonly plink2: string;
  readonly plink1: string;
  readonly reps: number;
  readonly json: boolean;
}

function parseOptions(argv: readonly string[]): BenchRelatednessOptions {
  const program = createToolProgram('bench-relatedness', 'wall times of snptally plink and its peers (plink2 --make-king and --make-rel, plink1.9 --distance) on one .bed')
    .addOption(valueOption('--samples <n>', 'samples of the plink1.9 --dummy data', parsePositiveInteger, '4000'))
    .addOption(valueOption('--snps <n>', 'SNPs of the --dummy data', parsePositiveInteger, '50000'))
    .addOption(valueOption('--missing <rate>', 'fraction of missing calls in the --dummy data, 0 to 1', parseFraction, '0.01'))
    .addOption(valueOption('--threads <n>', 'threads of snptally (and of the peer unless --peer-threads)', parsePositiveInteger, '2'))
    .addOption(valueOption('--peer-threads <n>', 'threads of the peer (absent: --threads)', parsePositiveInteger))
    .addOption(valueOption('--analyses <list>', `comma-separated analyses (${ANALYSES.join(', ')})`, listOf(choiceOf(ANALYSES)), 'king,distance'))
    .addOption(valueOption('--backend <name>', `snptally's backend for king (${BACKENDS.join(', ')}); the others run on the CPU`, choiceOf(BACKENDS), 'cpu'))
    .addOption(valueOption('--king-table-filter <x>', 'king: time --make-king-table --king-table-filter X (.kin0) instead of --make-king triangle bin', parseFiniteNumber))
    .option('--stages', 'king: also time the snptally run alone', false)
    .addOption(valueOption('--plink2 <path>', 'the plink2 program', (_o, text) => text, 'plink2'))
    .addOption(valueOption('--plink1 <path>', 'the plink1.9 program', (_o, text) => text, 'plink1.9'))
    .addOption(valueOption('--reps <n>', 'runs of each timing; the best counts', parsePositiveInteger, '1'))
    .option('--json', 'print one JSON object instead of text', false);
  return parseToolOptions<BenchRelatednessOptions>(program, argv);
}

// The package's bin (the bundle), as a user runs it.
const CLI_MAIN = bundledCliMain();

/** How the two output files must agree: the same bytes, or float64 values within 1e−13. */
type Agreement = 'bytes' | 'float64';

/** What each analysis runs: the flags both take, snptally's own, the peer, and the output file compared. */
function benchOf(analysis: RelatednessAnalysis, o: BenchRelatednessOptions): {
  flags: string[]; ourFlags: string[]; peer: string; peerName: string; compared: string; agreement: Agreement;
} {
  if (analysis === 'king') {
    const ourFlags = o.backend === 'cpu' ? [] : ['--backend', o.backend];
    if (o.kingTableFilter !== undefined) {
      const flags = ['--make-king-table', '--king-table-filter', String(o.kingTableFilter)];
      return { flags, ourFlags, peer: o.plink2, peerName: 'plink2', compared: 'kin0', agreement: 'bytes' };
    }
    return { flags: ['--make-king', 'triangle', 'bin'], ourFlags, peer: o.plink2, peerName: 'plink2', compared: 'king.bin', agreement: 'bytes' };
  }
  if (analysis === 'grm') return { flags: ['--make-rel', 'triangle', 'bin'], ourFlags: [], peer: o.plink2, peerName: 'plink2', compared: 'rel.bin', agreement: 'float64' };
  return { flags: ['--distance', 'ibs', 'triangle', 'bin'], ourFlags: [], peer: o.plink1, peerName: 'plink1.9', compared: 'mibs.bin', agreement: 'bytes' };
}

/** Whether two output files agree as `agreement` says, and in words. */
function compareOutputs(mine: Buffer, theirs: Buffer, agreement: Agreement): { agrees: boolean; text: string } {
  if (agreement === 'bytes' || mine.length !== theirs.length) {
    const same = mine.equals(theirs);
    return { agrees: same, text: same ? 'identical' : 'DIFFERENT' };
  }
  const a = new Float64Array(mine.buffer.slice(mine.byteOffset, mine.byteOffset + mine.length));
  const b = new Float64Array(theirs.buffer.slice(theirs.byteOffset, theirs.byteOffset + theirs.length));
  let worst = 0;
  for (let k = 0; k < a.length; k++) worst = Math.max(worst, Math.abs(a[k] - b[k]));
  return { agrees: worst <= 1e-13, text: `largest difference ${worst.toExponential(1)}${worst <= 1e-13 ? '' : ' (ABOVE 1e-13)'}` };
}

interface AnalysisResult {
  readonly analysis: RelatednessAnalysis;
  readonly flags: string;
  readonly peer: string;
  readonly snptallySeconds: number;
  readonly peerSeconds: number;
  readonly speedup: number;
  readonly agrees: boolean;
  readonly agreement: string;
  /** --stages: snptally's stages alone, or null. */
  readonly stages: KingStages | null;
}

/** Wall seconds of snptally's KING run as a process of its own, and the run's own input and compute seconds. */
interface KingStages {
  readonly runSeconds: number;
  readonly runInputSeconds: number;
  readonly runComputeSeconds: number;
  readonly deviceFinalizedPairs: number;
}

/** Times the `run --metric king --individuals --autosome` the front end runs (kingCommand.ts). */
function kingStages(prefix: string, dir: string, o: BenchRelatednessOptions): KingStages {
  const filter = o.kingTableFilter;
  const threshold = filter === undefined ? null : doubleBelow(filter);
  const output = filter === undefined ? ['--matrix', 'triangle', '--matrix-format', 'bin']
    : threshold !== null && threshold >= 0 ? ['--threshold', String(threshold)] : [];
  const run = fastestOf(o.reps, () => timedProcess(process.execPath, [
    CLI_MAIN, 'run', '--metric', 'king', '--bfile', prefix, '--individuals', '--autosome', '--backend', o.backend, '--threads', String(o.threads), ...output,
    '--out', join(dir, 'stage'), '--force', '--json',
  ]));
  const report = JSON.parse(run.stdout) as { inputSeconds: number; computeSeconds: number; deviceFinalizedPairs: number };
  return {
    runSeconds: run.seconds, runInputSeconds: report.inputSeconds,
    runComputeSeconds: report.computeSeconds, deviceFinalizedPairs: report.deviceFinalizedPairs,
  };
}

function main(): void {
  const o = parseOptions(process.argv);
  const dir = mkdtempSync(join(tmpdir(), 'snptally-bench-relatedness-'));
  const loadBefore = loadavg()[0];
  try {
    const prefix = join(dir, 'data');
    execFileSync(o.plink1, ['--dummy', String(o.samples), String(o.snps), String(o.missing), '--seed', '1', '--make-bed', '--out', prefix],
      { stdio: 'ignore' });
    const results: AnalysisResult[] = o.analyses.map((analysis) => {
      const bench = benchOf(analysis, o);
      const common = ['--bfile', prefix, ...bench.flags];
      const ours = [...common, ...bench.ourFlags, '--threads', String(o.threads), '--out', join(dir, `st-${analysis}`), '--force'];
      const snptally = fastestOf(o.reps, () => timedProcess(process.execPath, [CLI_MAIN, 'plink', ...ours]));
      const peerThreads = String(o.peerThreads ?? o.threads);
      const peer = fastestOf(o.reps, () => timedProcess(bench.peer, [...common, '--threads', peerThreads, '--out', join(dir, `peer-${analysis}`)]));
      const compared = compareOutputs(readFileSync(join(dir, `st-${analysis}.${bench.compared}`)), readFileSync(join(dir, `peer-${analysis}.${bench.compared}`)), bench.agreement);
      return {
        analysis, flags: bench.flags.join(' '), peer: bench.peerName,
        snptallySeconds: snptally.seconds, peerSeconds: peer.seconds, speedup: peer.seconds / snptally.seconds,
        agrees: compared.agrees, agreement: compared.text,
        stages: analysis === 'king' && o.stages ? kingStages(prefix, dir, o) : null,
      };
    });
    const result = {
      samples: o.samples, snps: o.snps, missing: o.missing, threads: o.threads, peerThreads: o.peerThreads ?? o.threads, backend: o.backend,
      results, loadBefore, loadAfter: loadavg()[0],
    };
    if (o.json) {
      process.stdout.write(`${JSON.stringify(result)}\n`);
      return;
    }
    const lines = [`${o.samples} samples × ${o.snps} SNPs (${o.missing} missing), snptally ${o.threads} threads (king: ${o.backend}), ` +
      `peer ${result.peerThreads} threads`];
    for (const r of results) {
      lines.push(`  snptally plink ${r.flags.padEnd(42)} ${r.snptallySeconds.toFixed(2)} s`);
      lines.push(`  ${`${r.peer} ${r.flags}`.padEnd(57)} ${r.peerSeconds.toFixed(2)} s`);
      lines.push(`  speedup ${r.speedup.toFixed(2)}x; .${benchOf(r.analysis, o).compared} ${r.agreement}`);
      if (r.stages !== null) {
        const st = r.stages;
        lines.push(`  stages: run --individuals ${st.runSeconds.toFixed(2)} s (input ` +
          `${st.runInputSeconds.toFixed(2)} s, compute ${st.runComputeSeconds.toFixed(2)} s, ${st.deviceFinalizedPairs} pairs finalized on the GPU), ` +
          `front end's own ${(r.snptallySeconds - st.runSeconds).toFixed(2)} s`);
      }
    }
    lines.push(`  load average ${loadBefore.toFixed(2)} before, ${result.loadAfter.toFixed(2)} after`);
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main();
