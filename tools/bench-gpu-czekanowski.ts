// GPU benchmark of Czekanowski (SPEC §8, the min-plus kernel set): correctness checks (SPEC §8's checksums on
// webgpu, and the kernel set = the reference on real-valued operands), then comparisons per second of 2-way and
// 3-way, single and double, on integer-valued operands (exact integer arithmetic) and real-valued ones (soft
// floats), measured against the GPU's u32 ALU rate (tools/lib/u32OpRate.ts): both arithmetics are integer
// instructions, so that rate is their ceiling; `u32 ops per comparison` = that rate ÷ the comparison rate, the
// budget a comparison actually took. Kernel-only: the dispatches of one request, run again and again, no read-back.
//
//   node dist/tools/bench-gpu-czekanowski.js [--nv2 8192 --nf2 4096] [--nv3 1024 --nf3 2048 --j3 16]
//        [--precisions double,single] [--values integer,real] [--ways 2,3] [--reps 3] [--no-checks] [--out FILE]
//   tiny (lavapipe): --nv2 64 --nf2 64 --nv3 32 --nf3 32 --j3 2 --probe-workgroups 64
//
// 2-way: the strict upper triangle of nv × nv (comparisons: unique pairs × fields); 3-way: one mGEMM3 call (run3)
// of --j3 j-slices, i and k over all nv vectors (comparisons: j3 · nv² · fields, as tools/bench-gpu.ts counts them).
import { writeFileSync } from 'node:fs';
import { singleThreshold } from '../src/core/thresholds.js';
import { DEFAULT_PARAM, defaultMultiplier, type NumWay } from '../src/core/types.js';
import { runJob, type JobSpec } from '../src/engine/index.js';
import {
  allocatePlaneMatrix, createMinPlusGemmWebgpu, createPopcountGemm, realValuesOf, valueBits, type PlaneMatrix, type PopcountGemm3Request,
  type PopcountGemmRequest, type ValuePrecision,
} from '../src/mgemm/index.js';
import { choiceOf, createToolProgram, listOf, parsePositiveInteger, parseToolOptions, valueOption } from './lib/cliOptions.js';
import { measureU32OpRate } from './lib/u32OpRate.js';

type Values = 'integer' | 'real';

interface Options {
  readonly nv2: number; readonly nf2: number; readonly nv3: number; readonly nf3: number; readonly j3: number;
  readonly precisions: readonly ValuePrecision[]; readonly values: readonly Values[]; readonly ways: readonly ('2' | '3')[];
  readonly reps: number; readonly probeWorkgroups: number; readonly checks: boolean; readonly out?: string;
}

const options = parseToolOptions<Options>(createToolProgram('bench-gpu-czekanowski',
  'Czekanowski on WebGPU: SPEC §8 checks, then comparisons per second of 2-way and 3-way min-plus kernels beside the u32 ALU rate')
  .addOption(valueOption('--nv2 <n>', 'vectors of the 2-way case', parsePositiveInteger, '8192'))
  .addOption(valueOption('--nf2 <n>', 'fields of the 2-way case', parsePositiveInteger, '4096'))
  .addOption(valueOption('--nv3 <n>', 'vectors of the 3-way case', parsePositiveInteger, '1024'))
  .addOption(valueOption('--nf3 <n>', 'fields of the 3-way case', parsePositiveInteger, '2048'))
  .addOption(valueOption('--j3 <n>', 'j-slices of the 3-way mGEMM3 call', parsePositiveInteger, '16'))
  .addOption(valueOption('--precisions <list>', 'precisions, comma-separated: double, single', listOf(choiceOf(['double', 'single'] as const)), 'double,single'))
  .addOption(valueOption('--values <list>', 'operands, comma-separated: integer (exact integer arithmetic), real (soft floats)',
    listOf(choiceOf(['integer', 'real'] as const)), 'integer,real'))
  .addOption(valueOption('--ways <list>', 'ways, comma-separated: 2, 3', listOf(choiceOf(['2', '3'] as const)), '2,3'))
  .addOption(valueOption('--reps <n>', 'timed repetitions of each case, the median kept', parsePositiveInteger, '3'))
  .addOption(valueOption('--probe-workgroups <n>', 'workgroups of 256 threads of the u32-rate probe', parsePositiveInteger, '8192'))
  .option('--no-checks', 'skip the correctness checks (default: run them)')
  .option('--out <file>', 'write the rows and checks as JSON to this file (default: none)'));

interface Row { readonly what: string; readonly shape: string; readonly seconds: number; readonly rate: number; readonly note: string }
const rows: Row[] = [];
const report: Record<string, unknown> = { rows };
const log = (line: string): void => { process.stdout.write(`${line}\n`); };
const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Random operands: integers below 1000 (the integer arithmetic) or reals in [0, 100) (soft floats). */
function randomMatrix(numVectors: number, numField: number, precision: ValuePrecision, values: Values, seed: number): PlaneMatrix {
  const planes = allocatePlaneMatrix(numVectors, valueBits(precision), numField);
  const view = realValuesOf(planes, precision);
  let state = seed >>> 0;
  for (let v = 0; v < numVectors; v++) {
    for (let f = 0; f < numField; f++) {
      state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
      view.values[v * view.rowStride + f] = values === 'integer' ? state % 1000 : (state / 2 ** 32) * 100;
    }
  }
  return planes;
}

function czekanowskiJob(numWay: NumWay, numVector: number, source: JobSpec['source'], precision: ValuePrecision): JobSpec {
  return {
    metricSpec: { metric: 'czekanowski', numWay, sparse: false, param: DEFAULT_PARAM, multiplier: defaultMultiplier('ccc'), precision },
    numVector, numField: 100, source,
    decomposition: { numProcVector: 2, numProcField: 1, numProcRepl: 1, numPhase: 1, phaseMin: 0, phaseMax: 0, numStage: 1, stageMin: 0, stageMax: 0, halfDiagonal: 'lower-rows' },
    threshold: singleThreshold(null), outputStub: null, force: false, singlePrecisionOutput: false,
    backend: 'webgpu', finalize: 'auto', numThreads: 2, verify: source.kind === 'analytic',
  };
}

/** SPEC §8's checksums on webgpu (npv 2), and the kernel set = the reference on a ragged real-valued request. */
async function checks(): Promise<boolean> {
  const spec: [NumWay, number, 'random' | 'analytic', ValuePrecision, string][] = [
    [2, 30, 'random', 'double', '0-4537258543260-1078763221379199200'], [2, 30, 'random', 'single', '0-4537180826735-154992869210324992'],
    [2, 30, 'analytic', 'double', '0-4463590880879-730217089338372472'], [3, 20, 'random', 'double', '0-13323218380069-375755266502870904'],
    [3, 20, 'random', 'single', '0-13323063305477-681334241534935040'], [3, 20, 'analytic', 'double', '0-13319397788919-312100611710366392'],
  ];
  let ok = true;
  const results: unknown[] = [];
  for (const [numWay, numVector, kind, precision, want] of spec) {
    const r = await runJob(czekanowskiJob(numWay, numVector, { kind }, precision));
    const pass = r.checksum === want;
    ok &&= pass;
    results.push({ numWay, kind, precision, checksum: r.checksum, expected: want, pass });
    log(`check ${pass ? 'OK  ' : 'FAIL'} SPEC §8 ${numWay}-way ${kind} ${precision}: ${r.checksum}`);
  }
  for (const precision of options.precisions) {
    const operands = { precision, numField: 301 };
    const a = randomMatrix(77, 301, precision, 'real', 5);
    const gpu = await createMinPlusGemmWebgpu(operands);
    const ref = await createPopcountGemm({ backend: 'ref', realOperands: operands });
    const request = { a, aFirst: 2, aCount: 75, b: a, bFirst: 0, bCount: 77, termGroups: [[[0, 0] as const]], strictUpper: false };
    const [got, want] = [await gpu.run(request), await ref.run(request)];
    await gpu.close();
    await ref.close();
    const pass = want.every((w, g) => w.every((x, e) => x === got[g][e]));
    ok &&= pass;
    results.push({ what: `webgpu = ref, real-valued ${precision}`, pass });
    log(`check ${pass ? 'OK  ' : 'FAIL'} webgpu = ref, real-valued 2-way ${precision} (75 × 77, nf 301)`);
  }
  report.checks = results;
  return ok;
}

/** Kernel-only seconds of a request's dispatches (one untimed run first), and the arithmetic it took. */
async function timeRequest(precision: ValuePrecision, numField: number, request: PopcountGemmRequest | PopcountGemm3Request): Promise<{ seconds: number; arithmetic: string }> {
  const gemm = await createMinPlusGemmWebgpu({ precision, numField });
  try {
    return await gemm.withKernels(request, async (kernels) => {
      await kernels.run();
      const seconds: number[] = [];
      for (let rep = 0; rep < options.reps; rep++) {
        const start = performance.now();
        await kernels.run();
        seconds.push((performance.now() - start) / 1000);
      }
      return { seconds: median(seconds), arithmetic: kernels.arithmetic };
    });
  } finally {
    await gemm.close();
  }
}

async function kernels(u32Rate: number): Promise<void> {
  const ways = new Set(options.ways.map(Number));
  for (const precision of options.precisions) {
    for (const values of options.values) {
      const cases: [string, string, number, number, PopcountGemmRequest | PopcountGemm3Request, number][] = [];
      if (ways.has(2)) {
        const { nv2: nv, nf2: nf } = options;
        const a = randomMatrix(nv, nf, precision, values, 7);
        cases.push(['2-way', `nv ${nv} nf ${nf}`, nf, ((nv * (nv - 1)) / 2) * nf, { a, aFirst: 0, aCount: nv, b: a, bFirst: 0, bCount: nv, termGroups: [[[0, 0]]], strictUpper: true }, 0]);
      }
      if (ways.has(3)) {
        const { nv3: nv, nf3: nf, j3 } = options;
        const x = randomMatrix(nv, nf, precision, values, 11);
        const slices = Array.from({ length: j3 }, (_, s) => ({ yRow: Math.floor(((s + 0.5) * nv) / j3), xFirst: 0, xCount: nv, zFirst: 0, zCount: nv }));
        cases.push(['3-way', `nv ${nv} nf ${nf}, ${j3} j per call`, nf, j3 * nv * nv * nf, { x, y: x, z: x, planePairs: [[0, 0]], termGroups: [[[0, 0]]], slices }, 0]);
      }
      for (const [way, shape, numField, comparisons, request] of cases) {
        const { seconds, arithmetic } = await timeRequest(precision, numField, request);
        const rate = comparisons / seconds;
        const note = `${arithmetic} arithmetic; ${(u32Rate / rate).toFixed(1)} u32 ops per comparison at the measured ${u32Rate.toExponential(3)} u32 ops/s`;
        rows.push({ what: `czekanowski ${way} ${precision} ${values} kernel`, shape, seconds, rate, note });
        log(`kernel ${way} ${precision} ${values} (${arithmetic}): ${seconds.toFixed(4)} s, ${rate.toExponential(3)} comparisons/s; ${note}`);
      }
    }
  }
}

async function main(): Promise<void> {
  process.env.XDG_RUNTIME_DIR ??= '/tmp';
  const ok = options.checks ? await checks() : true;
  const u32Rate = await measureU32OpRate(options.probeWorkgroups, 4096, options.reps);
  report.u32OpsPerSecond = u32Rate;
  log(`u32 ALU rate (the ceiling): ${u32Rate.toExponential(3)} ops/s`);
  await kernels(u32Rate);
  log('\n| what | shape | seconds | comparisons/s | note |\n|---|---|---|---|---|');
  for (const r of rows) log(`| ${r.what} | ${r.shape} | ${r.seconds.toFixed(4)} | ${r.rate.toExponential(3)} | ${r.note} |`);
  if (options.out !== undefined) writeFileSync(options.out, JSON.stringify(report, null, 2));
  if (!ok) {
    log('CHECKS FAILED');
    process.exitCode = 1;
  }
}

await main();
