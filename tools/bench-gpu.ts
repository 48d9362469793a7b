// GPU benchmark: correctness checksums (webgpu = SPEC = cpu), then comparisons per second of 2-way and
// 3-way CCC, dense and sparse, kernel-only and end to end, and torch._int_mm int8 GEMM throughput on
// equivalent shapes in the same run, with the ratio. Writes everything as JSON with --out.
//
//   node dist/tools/bench-gpu.js [--nv2 32768 --nf2 65536] [--nv3 4096 --nf3 16384 --j3 4]
//        [--e2e-nv2 32768 --e2e-nf2 65536 --e2e-nv3 4096 --e2e-nf3 16384 --e2e-npv 1] [--e2e-finalize auto[,host]]
//        [--e2e-thresholds none,0.4] [--e2e-threshold 0.505,0.64]
//        [--reps 3] [--kernels auto,bitwise] [--upload-mib 0]
//        [--stagings 32/p,64/p/256] [--ways 2,3] [--no-torch] [--no-checks] [--no-e2e] [--out FILE]
//
// Kernel-only: the engine's request shapes (2-way: the strict upper triangle of nv × nv; 3-way: the GEMM of
// one j with its pair products given, and one mGEMM3 call (run3) of --j3 j-slices, i and k over all nv
// vectors, pair products built on the GPU), timed from submit to completion, no read-back; 2-way also with
// device finalize (GEMM, values, exact checksum partials, their read-back), as one request.
// Comparisons are unique pairs (triples) × fields, as CoMet counts them; torch counts M·N·K multiply-adds.
// End to end runs whole jobs (synthetic input built and uploaded, compute, threshold, checksum), 2-way and 3-way,
// at the kernel rows' sizes by default, with each --e2e-finalize placement (auto: values, thresholds and checksum on
// the GPU; host: tallies read back and finalized on the CPU) and each of --e2e-thresholds (none: every value counts).
// Czekanowski's min-plus kernels have their own benchmark: tools/bench-gpu-czekanowski.ts (see its --help).
import { singleThreshold } from '../src/core/thresholds.js';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { defaultMultiplier, DEFAULT_PARAM, type MetricKind, type NumWay } from '../src/core/types.js';
import { PAIRS_PER_PANEL, runJob, type JobSpec } from '../src/engine/index.js';
import {
  createPopcountGemmWebgpu, type KernelFamily, type PairFinalizeRequest, type PlaneMatrix, type PopcountGemmRequest,
  type PopcountGemmWebgpu, type U8GemmStaging,
} from '../src/mgemm/index.js';
import { builtInPlaneLayout, float32BitsAtMost } from '../src/analyses/index.js';
import { cometPairConstants, cometPairProgram, cometPairVectorWords } from '../src/analyses/comet/index.js';
import {
  CCC_TERMS, DENSE3, nestSparseCccPlanes, pairsOf, randomPlanes, SPARSE2, sparse3Groups, squareTiles,
} from './lib/gpuBenchOperands.js';
import { parseDenseSparsePair, parseStaging, parseThresholdOrNone } from './lib/gpuBenchParsers.js';
import {
  choiceOf, createToolProgram, listOf, parseNonNegativeInteger, parsePositiveInteger, parseToolOptions, valueOption,
} from './lib/cliOptions.js';
import { timeKernels, timeKernels3, timeUpload } from './lib/webgpuTiming.js';

/** The command line, named as its long options. */
interface BenchGpuOptions {
  readonly nv2: number;
  readonly nf2: number;
  readonly nv3: number;
  readonly nf3: number;
  readonly j3: number;
  readonly e2eNv2: number;
  readonly e2eNf2: number;
  readonly e2eNv3: number;
  readonly e2eNf3: number;
  /** null: no threshold (every value counts). */
  readonly e2eThresholds: readonly (number | null)[];
  readonly e2eNpv: number;
  readonly e2eFinalize: readonly JobSpec['finalize'][];
  readonly reps: number;
  readonly kernels: readonly KernelChoice[];
  /** Absent: no staging sweep. */
  readonly stagings?: readonly U8GemmStaging[];
  readonly uploadMib: number;
  /** Dense and sparse thresholds of the kernel-size end-to-end finalize timing. */
  readonly e2eThreshold: readonly [number, number];
  readonly torch: boolean;
  readonly checks: boolean;
  readonly e2e: boolean;
  readonly ways: readonly ('2' | '3')[];
  readonly out?: string;
}

/** `none` times no kernel family (for runs of the other parts alone). */
type KernelChoice = KernelFamily | 'auto' | 'none';
const KERNEL_CHOICES: readonly KernelChoice[] = ['auto', 'bitwise', 'subgroup-matrix', 'dot4', 'none'];

const options = parseToolOptions<BenchGpuOptions>(createToolProgram('bench-gpu',
  'WebGPU correctness checks, then comparisons per second of 2-way and 3-way CCC beside torch int8 GEMM')
  .addOption(valueOption('--nv2 <n>', 'vectors of the 2-way kernel cases', parsePositiveInteger, '32768'))
  .addOption(valueOption('--nf2 <n>', 'fields of the 2-way kernel cases', parsePositiveInteger, '65536'))
  .addOption(valueOption('--nv3 <n>', 'vectors of the 3-way kernel cases', parsePositiveInteger, '4096'))
  .addOption(valueOption('--nf3 <n>', 'fields of the 3-way kernel cases', parsePositiveInteger, '16384'))
  .addOption(valueOption('--j3 <n>', 'j-slices per mGEMM3 call in the 3-way run3 case', parsePositiveInteger, '4'))
  .addOption(valueOption('--e2e-nv2 <n>', 'vectors of the 2-way whole jobs', parsePositiveInteger, '32768'))
  .addOption(valueOption('--e2e-nf2 <n>', 'fields of the 2-way whole jobs', parsePositiveInteger, '65536'))
  .addOption(valueOption('--e2e-nv3 <n>', 'vectors of the 3-way whole jobs', parsePositiveInteger, '4096'))
  .addOption(valueOption('--e2e-nf3 <n>', 'fields of the 3-way whole jobs', parsePositiveInteger, '16384'))
  .addOption(valueOption('--e2e-thresholds <list>', 'thresholds of the whole jobs, comma-separated: none or a number each',
    listOf(parseThresholdOrNone), 'none,0.4'))
  .addOption(valueOption('--e2e-npv <n>', 'above 1: also dense whole jobs with this many in-process ranks', parsePositiveInteger, '1'))
  .addOption(valueOption('--e2e-finalize <list>', 'finalize placements of the whole jobs, comma-separated: auto, host',
    listOf(choiceOf(['auto', 'host'] as const)), 'auto'))
  .addOption(valueOption('--reps <n>', 'timed repetitions of each kernel case, the median kept', parsePositiveInteger, '3'))
  .addOption(valueOption('--kernels <list>', `kernel families to time, comma-separated: ${KERNEL_CHOICES.join(', ')}`,
    listOf(choiceOf(KERNEL_CHOICES)), 'auto,bitwise'))
  .addOption(valueOption('--stagings <list>', 'tensor-core staging variants to time on 2-way dense, comma-separated ' +
    'kStep[/flag…] with K step 32, 64 or 128 and flags p (prefetch), 256 (tile columns), e.g. 32/p,64/p/256 (default: none)',
    listOf(parseStaging)))
  .addOption(valueOption('--upload-mib <n>', 'MiB to upload by each way in (0: no upload sweep)', parseNonNegativeInteger, '0'))
  .addOption(valueOption('--e2e-threshold <dense,sparse>', 'thresholds of the kernel-size end-to-end finalize timing ' +
    '(random planes give values near 0.5 dense)', parseDenseSparsePair, '0.505,0.64'))
  .option('--no-torch', 'skip the torch._int_mm int8 comparison (default: run it)')
  .option('--no-checks', 'skip the correctness checks (default: run them)')
  .option('--no-e2e', 'skip the whole jobs (default: run them)')
  .addOption(valueOption('--ways <list>', 'ways the kernel-only and whole-job cases cover, comma-separated: 2, 3',
    listOf(choiceOf(['2', '3'] as const)), '2,3'))
  .option('--out <file>', 'write the rows and checks as JSON to this file (default: none)'));

const reps = options.reps;
const ways = new Set(options.ways.map(Number));

interface Row { readonly what: string; readonly shape: string; readonly seconds: number; readonly rate: number; readonly note: string }
const rows: Row[] = [];
const report: Record<string, unknown> = { rows };
const log = (line: string): void => { process.stdout.write(`${line}\n`); };

/**
 * Seconds of device-finalize calls on the request's operands. `endToEnd`: every call gets a new copy of the
 * operands (so it uploads them), sums its vectors on the GPU, applies THRESHOLD_E2E and reads the passing records
 * back — upload, per-vector sums, compute, threshold, read-back; otherwise the operands stay resident, their sums
 * are taken once before and nothing is thresholded.
 */
async function timeDeviceFinalize(gemm: PopcountGemmWebgpu, kernelRequest: PopcountGemmRequest, sparse: boolean, numField: number, endToEnd = false): Promise<number[]> {
  // A new matrix: the kernel set keeps its copy of the one it has seen (contract.ts).
  let planes: PlaneMatrix = { ...kernelRequest.a, words: kernelRequest.a.words.slice() };
  if (sparse) nestSparseCccPlanes(planes);
  const k = { countedBits: 2, multiplier: defaultMultiplier('ccc'), param: DEFAULT_PARAM };
  const constants = cometPairConstants(k, numField);
  if (constants === null) throw new Error('the default CCC constants are outside the device library range');
  const layout = await builtInPlaneLayout('ccc', sparse);
  const wordsOf = async (matrix: PlaneMatrix): Promise<Uint32Array> => {
    const { sums, counts } = await gemm.vectorSums({ planes: matrix, countPlanes: layout.countPlanes, maskPlane: layout.maskPlane });
    return cometPairVectorWords(k, numField, sparse, matrix.numVectors, kernelRequest.aCount, sums, counts);
  };
  let vectorWords = await wordsOf(planes);
  const threshold = sparse ? THRESHOLD_E2E_SPARSE : THRESHOLD_E2E_DENSE;
  const finalizeRequest = (): PairFinalizeRequest => ({
    gemm: { ...kernelRequest, a: planes, b: planes },
    values: cometPairProgram(sparse), constants,
    rowVectors: vectorWords, colVectors: vectorWords, rowVectorFirst: 0, colVectorFirst: 0, numVector: kernelRequest.aCount,
    threshold: endToEnd ? { kind: 'single', above: float32BitsAtMost(threshold) } : { kind: 'none' }, records: endToEnd,
  });
  // With records, calls of the engine's record panels (square tiles of PAIRS_PER_PANEL pairs, as pipeline2.ts cuts a
  // step): a device keeps room for every pair of a call, which a whole request of nv 32768 (16 GiB) would exceed, and
  // thin strips would expand a u8 kernel's B operand anew for a few rows each.
  const tiles = squareTiles(kernelRequest, endToEnd ? Math.floor(Math.sqrt(PAIRS_PER_PANEL)) : Math.max(kernelRequest.aCount, kernelRequest.bCount));
  const seconds: number[] = [];
  let firstSum: bigint | null = null;
  for (let rep = 0; rep <= reps; rep++) {
    if (endToEnd && rep > 0) planes = { ...planes, words: planes.words.slice() };
    const start = performance.now();
    if (endToEnd && rep > 0) vectorWords = await wordsOf(planes);
    let sum = 0n;
    let numRecords = 0;
    for (const tile of tiles) {
      const request = finalizeRequest();
      const result = await gemm.finalizePairs({ ...request, gemm: { ...request.gemm, ...tile } });
      if (result.kind !== 'done') throw new Error(`device finalize declined the benchmark request: ${result.reason}`);
      sum += result.checksumSum;
      numRecords += result.records.count;
      result.records.release();
    }
    if (rep > 0) seconds.push((performance.now() - start) / 1000);
    else log(`first device-finalize call (compiles its programs): ${((performance.now() - start) / 1000).toFixed(3)} s`);
    if (firstSum !== null && sum !== firstSum) throw new Error('device finalize gave different sums on the same request');
    firstSum = sum;
    if (endToEnd && rep === reps) log(`  ${numRecords} records above ${threshold}`);
  }
  return seconds;
}

/** Thresholds of the end-to-end finalize timing, dense and sparse (the count of passing values is logged). */
const [THRESHOLD_E2E_DENSE, THRESHOLD_E2E_SPARSE] = options.e2eThreshold;

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function kernelOnly(gemm: PopcountGemmWebgpu): Promise<void> {
  const nv2 = options.nv2; const nf2 = options.nf2;
  for (const sparse of ways.has(2) ? [false, true] : []) {
    const planes = randomPlanes(nv2, sparse ? 3 : 2, nf2, 7);
    const request = { a: planes, aFirst: 0, aCount: nv2, b: planes, bFirst: 0, bCount: nv2, termGroups: sparse ? SPARSE2 : [CCC_TERMS], strictUpper: true };
    const timing = await timeKernels(gemm, request, reps);
    const seconds = median(timing.seconds);
    const comparisons = ((nv2 * (nv2 - 1)) / 2) * nf2;
    rows.push({ what: `2-way ${sparse ? 'sparse' : 'dense'} kernel`, shape: `nv ${nv2} nf ${nf2}`, seconds, rate: comparisons / seconds, note: `${timing.family}; strict upper triangle, no read-back` });
    log(`kernel 2-way ${sparse ? 'sparse' : 'dense'} (${timing.family}): ${seconds.toFixed(3)} s, ${(comparisons / seconds).toExponential(3)} comparisons/s`);
    const withFinalize = median(await timeDeviceFinalize(gemm, request, sparse, nf2));
    rows.push({ what: `2-way ${sparse ? 'sparse' : 'dense'} kernel + device finalize`, shape: `nv ${nv2} nf ${nf2}`, seconds: withFinalize, rate: comparisons / withFinalize, note: `${timing.family}; values, checksum partials, no threshold; finalize ≈ ${(withFinalize - seconds).toFixed(3)} s` });
    log(`kernel + device finalize 2-way ${sparse ? 'sparse' : 'dense'}: ${withFinalize.toFixed(3)} s, ${(comparisons / withFinalize).toExponential(3)} comparisons/s`);
    const endToEnd = median(await timeDeviceFinalize(gemm, request, sparse, nf2, true));
    rows.push({ what: `2-way ${sparse ? 'sparse' : 'dense'} end to end`, shape: `nv ${nv2} nf ${nf2}`, seconds: endToEnd, rate: comparisons / endToEnd, note: `${timing.family}; upload, compute, threshold ${sparse ? THRESHOLD_E2E_SPARSE : THRESHOLD_E2E_DENSE}, read-back of records` });
    log(`end to end 2-way ${sparse ? 'sparse' : 'dense'} (upload, compute, threshold, read-back): ${endToEnd.toFixed(3)} s, ${(comparisons / endToEnd).toExponential(3)} comparisons/s`);
  }
  const nv3 = options.nv3; const nf3 = options.nf3;
  if (!ways.has(3)) return;
  for (const sparse of [false, true]) {
    const products = randomPlanes(nv3, sparse ? 9 : 4, nf3, 11);
    const k = randomPlanes(nv3, sparse ? 3 : 2, nf3, 13);
    const request = { a: products, aFirst: 0, aCount: nv3, b: k, bFirst: 0, bCount: nv3, termGroups: sparse ? sparse3Groups() : DENSE3, strictUpper: false };
    const timing = await timeKernels(gemm, request, Math.max(5, reps));
    const seconds = median(timing.seconds);
    const comparisons = nv3 * nv3 * nf3;
    const fullSeconds = ((nv3 * (nv3 - 1) * (nv3 - 2)) / 6) * nf3 / (comparisons / seconds);
    rows.push({ what: `3-way ${sparse ? 'sparse' : 'dense'} kernel`, shape: `nv ${nv3} nf ${nf3}`, seconds, rate: comparisons / seconds, note: `${timing.family}; one j: ${nv3}×${nv3} triples; whole problem ≈ ${fullSeconds.toFixed(1)} s` });
    log(`kernel 3-way ${sparse ? 'sparse' : 'dense'} (${timing.family}, one j): ${(seconds * 1e3).toFixed(2)} ms, ${(comparisons / seconds).toExponential(3)} comparisons/s`);
  }
  const numJ = options.j3;
  for (const sparse of [false, true]) {
    // One block for i, j and k, as the engine's own-block unit; the j's are spread over the block.
    const planes = randomPlanes(nv3, sparse ? 3 : 2, nf3, 17);
    const slices = Array.from({ length: numJ }, (_, s) => ({ yRow: Math.floor(((s + 0.5) * nv3) / numJ), xFirst: 0, xCount: nv3, zFirst: 0, zCount: nv3 }));
    const request = { x: planes, y: planes, z: planes, planePairs: pairsOf(sparse ? 3 : 2), termGroups: sparse ? sparse3Groups() : DENSE3, slices };
    const timing = await timeKernels3(gemm, request, Math.max(5, reps));
    const seconds = median(timing.seconds);
    const comparisons = numJ * nv3 * nv3 * nf3;
    rows.push({ what: `3-way ${sparse ? 'sparse' : 'dense'} mGEMM3 (run3)`, shape: `nv ${nv3} nf ${nf3}, ${numJ} j per call`, seconds, rate: comparisons / seconds, note: `${timing.family}; pair products built on the GPU; ${numJ}×${nv3}×${nv3} triples` });
    log(`kernel 3-way ${sparse ? 'sparse' : 'dense'} mGEMM3 (${timing.family}, ${numJ} j per call, products on the GPU): ${(seconds * 1e3).toFixed(2)} ms, ${(comparisons / seconds).toExponential(3)} comparisons/s`);
  }
}

function job(o: { metric?: MetricKind; numWay: NumWay; sparse: boolean; numVector: number; numField: number; backend: JobSpec['backend']; threshold?: number | null; source?: JobSpec['source']; npv?: number; npf?: number; finalize?: JobSpec['finalize'] }): JobSpec {
  const metric = o.metric ?? 'ccc';
  return {
    metricSpec: { metric, numWay: o.numWay, sparse: o.sparse, param: DEFAULT_PARAM, multiplier: defaultMultiplier(metric) },
    numVector: o.numVector, numField: o.numField, source: o.source ?? { kind: 'random' },
    decomposition: { numProcVector: o.npv ?? 1, numProcField: o.npf ?? 1, numProcRepl: 1, numPhase: 1, phaseMin: 0, phaseMax: 0, numStage: 1, stageMin: 0, stageMax: 0, halfDiagonal: 'lower-rows' },
    threshold: singleThreshold(o.threshold ?? null), outputStub: null, force: false, singlePrecisionOutput: false,
    backend: o.backend, finalize: o.finalize ?? 'auto', numThreads: availableParallelism(), verify: false,
  };
}

function stagingName(s: U8GemmStaging): string {
  return `k${s.kStepBytes}${s.prefetch === true ? ' prefetch' : ''}${s.tileCols === 256 ? ' 128x256' : ' 128x128'}`;
}

/** Seconds to upload `--upload-mib` MiB (from shared memory, as the engine's blocks are) by each way in, 3 times each. */
async function uploadSweep(): Promise<void> {
  const mib = options.uploadMib;
  if (mib === 0) return;
  const words = new Uint32Array(new SharedArrayBuffer(mib << 20));
  for (let i = 0; i < words.length; i++) words[i] = Math.imul(i, 2654435761) >>> 0;
  const gemm = await createPopcountGemmWebgpu({});
  try {
    for (const how of ['mapped', 'staged', 'writes'] as const) {
      const seconds: number[] = [];
      for (let rep = 0; rep < 3; rep++) seconds.push(await timeUpload(gemm, words, how));
      log(`upload ${mib} MiB ${how}: ${seconds.map((x) => x.toFixed(3)).join(' ')} s (${((mib / 1024) / Math.min(...seconds)).toFixed(2)} GiB/s best)`);
      rows.push({ what: `upload ${how}`, shape: `${mib} MiB`, seconds: Math.min(...seconds), rate: (mib << 20) / Math.min(...seconds), note: 'bytes/s, best of 3' });
    }
  } finally {
    await gemm.close();
  }
}

/** Kernel-only 2-way dense (and 3-way dense) with each tensor-core staging variant. */
async function stagingSweep(): Promise<void> {
  const variants = options.stagings ?? [];
  const nv2 = options.nv2; const nf2 = options.nf2;
  const planes = randomPlanes(nv2, 2, nf2, 7);
  for (const u8Staging of variants) {
    const gemm = await createPopcountGemmWebgpu({ kernel: 'subgroup-matrix', u8Staging });
    try {
      // Exactness first: a ragged sparse 3-way-shaped request against the bitwise kernel.
      const products = randomPlanes(333, 9, 4100, 3);
      const kPlanes = randomPlanes(301, 3, 4100, 5);
      const check = { a: products, aFirst: 1, aCount: 330, b: kPlanes, bFirst: 2, bCount: 299, termGroups: sparse3Groups(), strictUpper: false };
      const bitwise = await createPopcountGemmWebgpu({ kernel: 'bitwise' });
      const want = await bitwise.run(check);
      await bitwise.close();
      const got = await gemm.run(check);
      const exact = want.every((w, g) => w.every((x, idx) => x === got[g][idx]));
      log(`staging ${stagingName(u8Staging)}: exact ${exact}`);
      const request = { a: planes, aFirst: 0, aCount: nv2, b: planes, bFirst: 0, bCount: nv2, termGroups: [CCC_TERMS], strictUpper: true };
      const seconds = median((await timeKernels(gemm, request, reps)).seconds);
      const rate = (((nv2 * (nv2 - 1)) / 2) * nf2) / seconds;
      rows.push({ what: `2-way dense kernel, staging ${stagingName(u8Staging)}`, shape: `nv ${nv2} nf ${nf2}`, seconds, rate, note: `subgroup-matrix sweep, exact ${exact}` });
      log(`staging ${stagingName(u8Staging)}: ${seconds.toFixed(3)} s, ${rate.toExponential(3)} comparisons/s`);
    } catch (e) {
      log(`staging ${stagingName(u8Staging)}: failed: ${(e as Error).message.slice(0, 300)}`);
    } finally {
      await gemm.close();
    }
  }
}

/** SPEC §5 checksums and webgpu = cpu on ragged random problems and decompositions. */
async function checks(): Promise<boolean> {
  const spec: [string, Parameters<typeof job>[0], string][] = [
    ['CCC 2-way nv 4 nf 2 analytic', { numWay: 2, sparse: false, numVector: 4, numField: 2, backend: 'webgpu', source: { kind: 'analytic' } }, '0-245201878478-801640733671948288'],
    ['CCC 3-way nv 4 nf 2 analytic', { numWay: 3, sparse: false, numVector: 4, numField: 2, backend: 'webgpu', source: { kind: 'analytic' } }, '0-20352394550-918734323983581184'],
    ['CCC 2-way nv 48 nf 100', { numWay: 2, sparse: false, numVector: 48, numField: 100, backend: 'webgpu' }, '0-34600668891914-795881718560018816'],
    ['CCC 2-way sparse nv 48 nf 100', { numWay: 2, sparse: true, numVector: 48, numField: 100, backend: 'webgpu' }, '0-33543338342814-112679650647204196'],
    ['CCC 3-way nv 36 nf 100', { numWay: 3, sparse: false, numVector: 36, numField: 100, backend: 'webgpu' }, '0-144962007142596-694338058451516346'],
    ['DUO 2-way sparse nv 48 nf 100', { metric: 'duo', numWay: 2, sparse: true, numVector: 48, numField: 100, backend: 'webgpu' }, '0-25544782430596-363343116734123798'],
  ];
  let ok = true;
  const checkRows: unknown[] = [];
  for (const [name, o, want] of spec) {
    const r = await runJob(job(o));
    const pass = r.checksum === want;
    ok &&= pass;
    checkRows.push({ name, checksum: r.checksum, expected: want, pass });
    log(`check ${pass ? 'OK  ' : 'FAIL'} SPEC ${name}: ${r.checksum}`);
  }
  const vsCpu: [string, Omit<Parameters<typeof job>[0], 'backend'>][] = [
    ['CCC 2-way dense nv 3001 nf 4099', { numWay: 2, sparse: false, numVector: 3001, numField: 4099 }],
    ['CCC 2-way sparse nv 2500 nf 3333 threshold 0.5', { numWay: 2, sparse: true, numVector: 2500, numField: 3333, threshold: 0.5 }],
    ['DUO 2-way sparse nv 1999 nf 1025 npv 3 npf 2', { metric: 'duo', numWay: 2, sparse: true, numVector: 1999, numField: 1025, npv: 3, npf: 2 }],
    ['CCC 3-way dense nv 150 nf 2049', { numWay: 3, sparse: false, numVector: 150, numField: 2049 }],
    ['CCC 3-way sparse nv 121 nf 999 npv 2', { numWay: 3, sparse: true, numVector: 121, numField: 999, npv: 2 }],
  ];
  for (const [name, o] of vsCpu) {
    const cpu = await runJob(job({ ...o, backend: 'cpu' }));
    const gpu = await runJob(job({ ...o, backend: 'webgpu' }));
    const pass = cpu.checksum === gpu.checksum && cpu.entries === gpu.entries;
    ok &&= pass;
    checkRows.push({ name, webgpu: gpu.checksum, cpu: cpu.checksum, entries: gpu.entries, pass, webgpuSeconds: gpu.seconds, cpuSeconds: cpu.seconds });
    log(`check ${pass ? 'OK  ' : 'FAIL'} webgpu = cpu ${name}: ${gpu.checksum} (${gpu.seconds.toFixed(2)} s vs cpu ${cpu.seconds.toFixed(2)} s)`);
  }
  report.checks = checkRows;
  return ok;
}

async function endToEnd(): Promise<void> {
  // npv > 1: in-process ranks, each with its own device on the same GPU, finalize on several cores.
  const npvMany = options.e2eNpv;
  const cases: [NumWay, boolean, number, number, number][] = [
    [2, false, options.e2eNv2, options.e2eNf2, 1], [2, true, options.e2eNv2, options.e2eNf2, 1],
    [3, false, options.e2eNv3, options.e2eNf3, 1], [3, true, options.e2eNv3, options.e2eNf3, 1],
    ...(npvMany > 1 ? [[2, false, options.e2eNv2, options.e2eNf2, npvMany] as [NumWay, boolean, number, number, number]] : []),
    ...(npvMany > 1 ? [[3, false, options.e2eNv3, options.e2eNf3, npvMany] as [NumWay, boolean, number, number, number]] : []),
  ];
  for (const [numWay, sparse, numVector, numField, npv] of cases.filter(([numWay]) => ways.has(numWay))) {
    for (const finalize of options.e2eFinalize) {
      for (const threshold of options.e2eThresholds) {
        const r = await runJob(job({ numWay, sparse, numVector, numField, backend: 'webgpu', npv, finalize, threshold }));
        const what = `${numWay}-way ${sparse ? 'sparse' : 'dense'} finalize ${finalize}`;
        const shape = `nv ${numVector} nf ${numField} npv ${npv}, threshold ${threshold ?? 'none'}`;
        const note = `whole job; compute phase ${r.computeSeconds.toFixed(3)} s, ${r.computeComparisonsPerSecond.toExponential(3)} /s; checksum ${r.checksum}`;
        rows.push({ what: `${what} end to end`, shape, seconds: r.seconds, rate: r.comparisonsPerSecond, note });
        log(`e2e ${what} ${shape}: ${r.seconds.toFixed(2)} s, ${r.comparisonsPerSecond.toExponential(3)} comparisons/s (${note})`);
      }
    }
  }
}

function torch(): void {
  const shapes = [`${Math.min(options.nv2, 16384)},${Math.min(options.nv2, 16384)},${options.nf2}`, `${options.nv3},${options.nv3},${options.nf3}`];
  const script = new URL('../../tools/bench-torch-int8.py', import.meta.url).pathname;
  const run = spawnSync('python3', [script, ...shapes], { encoding: 'utf8' });
  if (run.status !== 0) {
    log(`torch: not run (${(run.stderr || String(run.error)).trim().split('\n').pop()})`);
    return;
  }
  const out = JSON.parse(run.stdout) as { device: string; results: { m: number; n: number; k: number; seconds: number; macsPerSecond: number; exact: boolean }[] };
  report.torch = out;
  out.results.forEach((t, idx) => {
    rows.push({ what: `torch._int_mm int8 (${idx === 0 ? '2-way' : '3-way'} shape)`, shape: `${t.m}×${t.n}×${t.k}`, seconds: t.seconds, rate: t.macsPerSecond, note: `${out.device}, exact ${t.exact}` });
    log(`torch._int_mm ${t.m}x${t.n}x${t.k}: ${(t.seconds * 1e3).toFixed(2)} ms, ${t.macsPerSecond.toExponential(3)} MAC/s (${(2 * t.macsPerSecond / 1e12).toFixed(0)} TOPS)`);
  });
}

async function main(): Promise<void> {
  process.env.XDG_RUNTIME_DIR ??= '/tmp';
  let ok = true;
  if (options.checks) ok = await checks();
  // Each kernel family once (auto = what the engine uses: tensor cores where the adapter has them).
  const families = [...new Set(options.kernels)].filter((k) => k !== 'none');
  for (const kernel of families) {
    const gemm = await createPopcountGemmWebgpu({ kernel });
    report.adapter = gemm.capabilities;
    log(`adapter: ${gemm.capabilities.description} subgroup-matrix ${gemm.capabilities.hasSubgroupMatrix}; kernels ${kernel} (${gemm.name})`);
    try {
      if (kernel === 'auto' || kernel === 'bitwise' || gemm.capabilities.hasSubgroupMatrix || kernel === 'dot4') await kernelOnly(gemm);
    } finally {
      await gemm.close();
    }
  }
  await uploadSweep();
  await stagingSweep();
  if (options.torch) torch();
  if (options.e2e) await endToEnd();
  const torchRows = rows.filter((r) => r.what.startsWith('torch'));
  if (torchRows.length === 2) {
    for (const r of rows.filter((x) => x.what.endsWith('kernel') || x.what.endsWith('end to end'))) {
      const t = r.what.startsWith('2-way') ? torchRows[0] : torchRows[1];
      (r as { note: string }).note += `; ${(r.rate / t.rate).toFixed(3)} × torch int8 MAC/s`;
    }
  }
  log('\n| what | shape | seconds | comparisons/s (torch: MAC/s) | note |\n|---|---|---|---|---|');
  for (const r of rows) log(`| ${r.what} | ${r.shape} | ${r.seconds.toFixed(4)} | ${r.rate.toExponential(3)} | ${r.note} |`);
  if (options.out !== undefined) writeFileSync(options.out, JSON.stringify(report, null, 2));
  if (!ok) { log('CHECKS FAILED'); process.exitCode = 1; }
}

await main();
