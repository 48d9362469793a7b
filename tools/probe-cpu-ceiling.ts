// The machine's own ceiling for thread scaling: K independent one-thread processes run the same work side by side,
// and their summed rate over one process's rate is the most any K-thread run of that work can reach here.
//
// Two kinds of work: `gemm`, the CPU popcount GEMM (dense CCC 2-way terms) on operands that fit in a core's L2, so
// memory bandwidth is not what is shared; `scalar`, a JavaScript integer loop in registers. On hosts whose vCPUs
// are full cores both scale ~K×; where vCPUs share vector units (SMT siblings a hypervisor shows as cores, or a
// shared AVX-512 power budget), `gemm` falls well short of K× while `scalar` scales further. `--gemm-vectors` and
// `--gemm-fields` size the GEMM (e.g. whole 2048 × 2048 panels of 16384 fields, as the pipeline runs); `--threads` runs
// the K copies as worker threads of one process, to tell the machine's limits from those of one address space.
// Usage: node dist/tools/probe-cpu-ceiling.js [--processes 1,2,4,8,16] [--seconds 3] [--work gemm,scalar]
//   [--gemm-vectors 256] [--gemm-fields 4096] [--threads] [--json]
import { spawn } from 'node:child_process';
import { isMainThread, parentPort, Worker } from 'node:worker_threads';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Option } from 'commander';
import { allocatePlaneMatrix, createPopcountGemm, type PopcountGemmRequest } from '../src/mgemm/index.js';
import { choiceOf, createToolProgram, listOf, parsePositiveInteger, parseToolOptions, valueOption } from './lib/cliOptions.js';

const WORK_KINDS = ['gemm', 'scalar'] as const;
type WorkKind = (typeof WORK_KINDS)[number];

/** Dense CCC 2-way: planes H and L per vector, all four products summed into one table entry. */
const CCC_DENSE_TERMS = [[0, 0], [0, 1], [1, 0], [1, 1]] as const;
/** 256 vectors × 4096 fields × 2 planes: 256 KiB of operands, L2-resident on any current server core. */
const GEMM_VECTORS = 256;
const GEMM_FIELDS = 4096;

interface ProbeOptions {
  readonly processes: readonly number[];
  readonly seconds: number;
  readonly work: readonly WorkKind[];
  /** Set in the child processes: run this work alone and print its units done and seconds. */
  readonly child?: WorkKind;
  readonly json: boolean;
  /** The GEMM's operand size: vectors (rows of both operands) and fields. */
  readonly gemmVectors: number;
  readonly gemmFields: number;
  /** Run the K copies as worker threads of this process instead of processes (same work, one address space). */
  readonly threads: boolean;
}

function parseOptions(): ProbeOptions {
  const defaultProcesses = [1, 2, 4, 8, 16].filter((n) => n < os.availableParallelism()).concat(os.availableParallelism());
  const program = createToolProgram('probe-cpu-ceiling', 'summed rate of K one-thread processes doing the same work side by side')
    .addOption(valueOption('--processes <list>', 'process counts, comma-separated', listOf(parsePositiveInteger), defaultProcesses.join(',')))
    .addOption(valueOption('--seconds <n>', 'seconds each process works (after a warm-up)', parsePositiveInteger, '3'))
    .addOption(valueOption('--work <list>', `work kinds: ${WORK_KINDS.join(', ')}`, listOf(choiceOf(WORK_KINDS)), WORK_KINDS.join(',')))
    .addOption(new Option('--child <work>', 'internal: run one worker process').choices(WORK_KINDS).hideHelp())
    .addOption(valueOption('--gemm-vectors <n>', 'GEMM work: vectors of both operands (256: L2-resident)', parsePositiveInteger, String(GEMM_VECTORS)))
    .addOption(valueOption('--gemm-fields <n>', 'GEMM work: fields per vector', parsePositiveInteger, String(GEMM_FIELDS)))
    .option('--threads', 'run the copies as worker threads of one process, not as processes', false)
    .option('--json', 'print JSON', false);
  return parseToolOptions<ProbeOptions>(program);
}

/** Units of work per second of one process: GEMM comparisons, or scalar loop iterations. */
async function runChild(work: WorkKind, options: ProbeOptions): Promise<number> {
  if (work === 'scalar') return scalarRate(options.seconds);
  return gemmRate(options.seconds, options.gemmVectors, options.gemmFields);
}

function scalarRate(seconds: number): number {
  let state = 0x12345678;
  let iterations = 0;
  const deadline = performance.now() + seconds * 1000;
  const start = performance.now();
  while (performance.now() < deadline) {
    for (let i = 0; i < 1 << 20; i++) state = (Math.imul(state, 1103515245) + 12345 + (state >>> 7)) | 0;
    iterations += 1 << 20;
  }
  if (state === 42) console.error('unlikely'); // keeps the loop's result alive
  return iterations / ((performance.now() - start) / 1000);
}

async function gemmRate(seconds: number, numVectors: number, numFields: number): Promise<number> {
  const matrix = allocatePlaneMatrix(numVectors, 2, numFields);
  for (let w = 0; w < matrix.words.length; w++) matrix.words[w] = (Math.random() * 2 ** 32) >>> 0;
  const gemm = await createPopcountGemm({ backend: 'cpu', numThreads: 1 });
  const request: PopcountGemmRequest = {
    a: matrix, aFirst: 0, aCount: numVectors, b: matrix, bFirst: 0, bCount: numVectors,
    termGroups: [CCC_DENSE_TERMS], strictUpper: false,
  };
  // Outputs recycled as the pipelines do: fresh arrays each call would measure page faults too.
  for (let warm = 0; warm < 5; warm++) gemm.recycle?.(await gemm.run(request));
  let runs = 0;
  const start = performance.now();
  const deadline = start + seconds * 1000;
  while (performance.now() < deadline) {
    gemm.recycle?.(await gemm.run(request));
    runs++;
  }
  const elapsed = (performance.now() - start) / 1000;
  await gemm.close();
  return (runs * numVectors * numVectors * numFields) / elapsed;
}

/** Starts `count` children (processes, or worker threads with --threads) at once; resolves to each one's rate. */
function runSideBySide(work: WorkKind, count: number, options: ProbeOptions): Promise<number[]> {
  const script = fileURLToPath(import.meta.url);
  const args = ['--child', work, '--seconds', String(options.seconds), '--gemm-vectors', String(options.gemmVectors), '--gemm-fields', String(options.gemmFields)];
  if (options.threads) {
    return Promise.all(Array.from({ length: count }, () => new Promise<number>((resolve, reject) => {
      const worker = new Worker(script, { argv: args });
      worker.once('message', (rate: number) => resolve(rate));
      worker.once('error', reject);
    })));
  }
  const children = Array.from({ length: count }, () => new Promise<number>((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => { out += chunk.toString(); });
    child.on('error', reject);
    child.on('close', (code) => {
      const rate = Number(out.trim());
      if (code !== 0 || !Number.isFinite(rate)) reject(new Error(`probe child (${work}) exited ${code}: ${out.trim()}`));
      else resolve(rate);
    });
  }));
  return Promise.all(children);
}

interface ProbeRow { readonly work: WorkKind; readonly processes: number; readonly totalRate: number; readonly speedUp: number }

async function main(): Promise<void> {
  const options = parseOptions();
  if (options.child !== undefined) {
    const rate = await runChild(options.child, options);
    if (isMainThread) console.log(String(rate));
    else parentPort?.postMessage(rate);
    return;
  }
  const rows: ProbeRow[] = [];
  for (const work of options.work) {
    let oneRate = 0;
    for (const processes of options.processes) {
      const rates = await runSideBySide(work, processes, options);
      const totalRate = rates.reduce((sum, rate) => sum + rate, 0);
      if (processes === 1 || oneRate === 0) oneRate = totalRate / processes;
      rows.push({ work, processes, totalRate, speedUp: totalRate / oneRate });
      if (!options.json) {
        console.log(`${work.padEnd(6)} ${String(processes).padStart(3)} ${options.threads ? "threads  " : "processes"}  ${totalRate.toExponential(3)} /s  ${(totalRate / oneRate).toFixed(2)}× one`);
      }
    }
  }
  if (options.json) console.log(JSON.stringify({ cpus: os.availableParallelism(), model: os.cpus()[0]?.model ?? '', rows }, null, 2));
}

await main();
