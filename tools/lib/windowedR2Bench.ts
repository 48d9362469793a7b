// bench-r2's window mode: windowed LD r² of snptally against plink1.9 on one .bed whose .bim is rewritten with several
// chromosomes and realistic spacing. Timed end to end as processes, same threads:
//   snptally  run --metric r2 --input <prefix> --ld-window-kb KB --ld-window 99999 --ld-window-r2 0 --out …
//             (converts the .bed on the fly; one binary record per pair in the window: 2 uint32 + float32)
//   PLINK     --r2 --ld-window-kb KB --ld-window 99999 --ld-window-r2 0   (its .ld text table, one line per pair)
// PLINK has no binary form of a windowed table, so each writes its own table format.
import { closeSync, mkdirSync, openSync, readFileSync, readSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { timedProcess } from './timedProcess.js';

/** What the window mode needs of bench-r2's options and set-up. */
export interface WindowBenchSetup {
  readonly snps: number;
  readonly samples: number;
  readonly threads: number;
  readonly missing: number;
  readonly backend: string;
  readonly plink: string;
  readonly reps: number;
  readonly json: boolean;
  readonly windowKb: number;
  readonly chromosomes: number;
  readonly spacingBp: number;
  readonly cliMain: string;
  readonly dir: string;
  /** The --dummy fileset. */
  readonly prefix: string;
  readonly loadBefore: number;
}

/** Rewrites `<prefix>.bim`: chromosomes of equal runs of SNPs, gaps uniform in [1, 2·spacing) bp (seeded). */
function spreadLoci(prefix: string, numChromosome: number, spacingBp: number): void {
  const lines = readFileSync(`${prefix}.bim`, 'utf8').trim().split('\n');
  const perChromosome = Math.ceil(lines.length / numChromosome);
  let state = 1;
  let bp = 0;
  const out = lines.map((line, v) => {
    const fields = line.split('\t');
    state = (state * 48271) % 2147483647;
    bp = v % perChromosome === 0 ? 10_000 : bp + 1 + (state % (2 * spacingBp - 1));
    return [String(1 + Math.floor(v / perChromosome)), fields[1], '0', String(bp), fields[4], fields[5]].join('\t');
  });
  writeFileSync(`${prefix}.bim`, `${out.join('\n')}\n`);
}

/** Newlines of a file, read in chunks (a windowed .ld of 100,000 SNPs is gigabytes). */
function countLines(path: string): number {
  const chunk = Buffer.alloc(1 << 22);
  const fd = openSync(path, 'r');
  let lines = 0;
  try {
    for (let got = readSync(fd, chunk); got > 0; got = readSync(fd, chunk)) {
      for (let at = chunk.indexOf(10); at !== -1 && at < got; at = chunk.indexOf(10, at + 1)) lines++;
    }
  } finally {
    closeSync(fd);
  }
  return lines;
}

/** What bench-r2 reads of `run --json` in window mode. */
interface WindowRunReport {
  readonly computeSeconds: number;
  readonly inputSeconds: number;
  readonly entries: number;
  readonly windowPairs: number;
  readonly comparisons: number;
  readonly backend: string;
}

/** CPU seconds of a timed process, rounded (null where unknown). */
function cpuOf(run: { readonly cpuSeconds: number | null }): number | null {
  return run.cpuSeconds === null ? null : +run.cpuSeconds.toFixed(2);
}

/** Times both programs and prints the figures (text or one JSON object). */
export function benchWindowed(o: WindowBenchSetup): void {
  spreadLoci(o.prefix, o.chromosomes, o.spacingBp);
  const threads = String(o.threads);
  const window = ['--ld-window-kb', String(o.windowKb), '--ld-window', '99999', '--ld-window-r2', '0'];
  // The two programs in turns (snptally, plink1.9, snptally, …), so that a change of the machine's load hits both; the
  // fastest run of each counts, with its CPU seconds. Each run writes new files (replacing a 1.5 GB file costs its unlink).
  let snptally: ReturnType<typeof timedProcess> | null = null;
  let plink: ReturnType<typeof timedProcess> | null = null;
  let plinkPairs = 0;
  for (let rep = 0; rep < o.reps; rep++) {
    const runDir = join(o.dir, `rep${rep}`);
    mkdirSync(runDir);
    const s = timedProcess(process.execPath, [o.cliMain, 'run', '--metric', 'r2', '--input', o.prefix, ...window,
      '--threads', threads, '--backend', o.backend, '--json', '--out', join(runDir, 'snptally')]);
    if (snptally === null || s.seconds < snptally.seconds) snptally = s;
    const p = timedProcess(o.plink, ['--bfile', o.prefix, '--r2', ...window, '--threads', threads, '--allow-no-sex', '--out', join(runDir, 'plink')]);
    if (plink === null || p.seconds < plink.seconds) plink = p;
    // The header line is not a pair.
    plinkPairs = countLines(join(runDir, 'plink.ld')) - 1;
    rmSync(runDir, { recursive: true, force: true });
  }
  if (snptally === null || plink === null) throw new Error('--reps must be at least 1');
  const report = JSON.parse(snptally.stdout) as WindowRunReport;
  const allPairs = (o.snps * (o.snps - 1)) / 2;
  const result = {
    snps: o.snps, samples: o.samples, threads: o.threads, missingRate: o.missing, reps: o.reps,
    windowKb: o.windowKb, chromosomes: o.chromosomes, spacingBp: o.spacingBp, backend: report.backend,
    windowPairs: report.windowPairs, plinkPairs, computedPairs: report.comparisons / o.samples,
    computedFractionOfAllPairs: +(report.comparisons / o.samples / allPairs).toExponential(3),
    snptallySeconds: +snptally.seconds.toFixed(3), snptallyInputSeconds: +report.inputSeconds.toFixed(3),
    snptallyComputeSeconds: +report.computeSeconds.toFixed(3), plinkSeconds: +plink.seconds.toFixed(3),
    snptallyCpuSeconds: cpuOf(snptally), plinkCpuSeconds: cpuOf(plink),
    speedupOverPlink: +(plink.seconds / snptally.seconds).toFixed(2),
    loadAverageBefore: +o.loadBefore.toFixed(2), loadAverageAfter: +loadavg()[0].toFixed(2),
  };
  if (o.json) {
    console.log(JSON.stringify(result));
    return;
  }
  console.log(`windowed r², ${o.windowKb} kb: ${o.snps} SNPs on ${o.chromosomes} chromosomes (~${o.spacingBp} bp apart) × ${o.samples} samples, ${o.missing} missing, ${o.threads} threads`);
  console.log(`pairs in the window: snptally ${result.windowPairs}, plink1.9 ${plinkPairs}; snptally computed ${result.computedPairs} pairs (${result.computedFractionOfAllPairs} of all)`);
  console.log(`snptally run --metric r2 --ld-window-kb ${o.windowKb} … --backend ${result.backend}   ${result.snptallySeconds} s, CPU ${result.snptallyCpuSeconds} s (input ${result.snptallyInputSeconds} s, compute ${result.snptallyComputeSeconds} s)`);
  console.log(`plink1.9 --r2 --ld-window-kb ${o.windowKb} --ld-window 99999 --ld-window-r2 0   ${result.plinkSeconds} s, CPU ${result.plinkCpuSeconds} s   snptally ${result.speedupOverPlink}× faster`);
  console.log(`(1-min load average ${result.loadAverageBefore} before, ${result.loadAverageAfter} after)`);
}
