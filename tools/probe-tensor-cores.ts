// Probe of the tensor-core path through WebGPU (Dawn's subgroup matrices → Vulkan cooperative matrices):
// how many u8 multiply-adds per second the driver gives for the same fragments as mgemm's kernel
// (u8gemm: 16×16×32, u32 results), with the operands (a) held in registers, (b) loaded from workgroup
// memory every step, (c) the same with a barrier every step, (d) the kernel's staged step without its global
// loads (stores into workgroup memory, two barriers, two multiply-add rounds). Comparing these ceilings with the real kernel's
// rate says which part limits it, since Nsight Compute does not profile Vulkan kernels.
//
//   node dist/tools/probe-tensor-cores.js [--workgroups 2112] [--steps 4096] [--reps 5] [--json]
//
// Every probe writes its accumulators (so nothing is optimised away); the values are not checked: these are
// throughput probes, and the kernel they bound is checked exactly by bench-gpu and the tests.
/// <reference types="@webgpu/types" />

import { loadWebgpuRuntime, type WgslProgram } from '../src/mgemm/index.js';
import { createToolProgram, parsePositiveInteger, parseToolOptions, valueOption } from './lib/cliOptions.js';

/** The command line, named as its long options. */
interface ProbeOptions {
  readonly workgroups: number;
  readonly steps: number;
  readonly reps: number;
  readonly json: boolean;
}

const options = parseToolOptions<ProbeOptions>(createToolProgram('probe-tensor-cores',
  'u8 multiply-adds per second of WebGPU subgroup matrices (tensor cores) with operands in registers or workgroup memory')
  .addOption(valueOption('--workgroups <n>', 'workgroups per dispatch', parsePositiveInteger, '2112'))
  .addOption(valueOption('--steps <n>', 'multiply-add steps of each workgroup', parsePositiveInteger, '4096'))
  .addOption(valueOption('--reps <n>', 'timed dispatches of each probe, the median kept', parsePositiveInteger, '5'))
  .option('--json', 'print one JSON object instead of text', false));

/** What a probe's step does besides its multiply-adds. */
type OperandSource = 'registers' | 'workgroup' | 'workgroup+barrier';

interface TensorCoreProbe {
  readonly name: string;
  readonly program: WgslProgram;
  /** u8 multiply-adds of one workgroup per step. */
  readonly macsPerStep: number;
}

const FRAGMENT_MACS = 16 * 16 * 32;
/** Workgroup memory of the probes: 8 K steps of 16·tiles rows × 32 bytes for each of A and B (as u32). */
const STAGED_STEPS = 8;
const ROW_WORDS = 8;

/** A probe's program: `threads` threads, workgroup arrays As and Bs of the given words, the body's `lines`. */
function probeProgram(cacheKey: string, threads: number, wordsA: number, wordsB: number, lines: readonly string[]): WgslProgram {
  return {
    cacheKey,
    workgroupSize: [threads, 1],
    storage: [
      { name: 'seed', access: 'read', elementType: 'u32' },
      { name: 'out', access: 'read_write', elementType: 'u32' },
    ],
    uniforms: [{ name: 'steps', type: 'u32' }],
    extensions: ['chromium_experimental_subgroup_matrix'],
    directives: ['diagnostic(off, chromium_experimental.subgroup_matrix_uniformity);'],
    extraBuiltins: '@builtin(subgroup_id) sg: u32',
    declarations: `var<workgroup> As: array<u32, ${wordsA}>;\nvar<workgroup> Bs: array<u32, ${wordsB}>;`,
    mainBody: lines.join('\n'),
  };
}

/**
 * A probe with `subgroups` subgroups of 32 threads, each owning `tiles` × `tiles` result matrices (the kernel: 4
 * subgroups, 4 × 4), whose operands come from `source`.
 */
function tensorCoreProbe(source: OperandSource, subgroups: number, tiles: number): TensorCoreProbe {
  const rows = 16 * tiles;
  const stepWords = rows * ROW_WORDS;
  const lines: string[] = [];
  // Fill workgroup memory from the seed buffer (not zeros: tensor-core power depends on data); all
  // subgroups read the same operands, as the kernel's subgroups of one tile row share A.
  lines.push(`  let base = 0u;`);
  lines.push(`  for (var t = li; t < ${STAGED_STEPS * stepWords}u; t += ${32 * subgroups}u) { As[t] = seed[(t * 2654435761u) % 4096u]; Bs[t] = seed[(t * 40503u + 7u) % 4096u]; }`);
  lines.push(`  workgroupBarrier();`);
  for (let i = 0; i < tiles; i++) for (let j = 0; j < tiles; j++) lines.push(`  var c${i}_${j} = subgroup_matrix_result<u32, 16, 16>();`);
  const loads = (indent: string, stepExpr: string, declare: 'let' | 'var'): void => {
    for (let i = 0; i < tiles; i++) lines.push(`${indent}${declare} a${i} = subgroupMatrixLoad<subgroup_matrix_left<u8, 32, 16>, row_major>(&As, base + ${stepExpr} * ${stepWords}u + ${16 * i * ROW_WORDS}u, ${ROW_WORDS}u);`);
    for (let j = 0; j < tiles; j++) lines.push(`${indent}${declare} b${j} = subgroupMatrixLoad<subgroup_matrix_right<u8, 16, 32>, col_major>(&Bs, base + ${stepExpr} * ${stepWords}u + ${16 * j * ROW_WORDS}u, ${ROW_WORDS}u);`);
  };
  if (source === 'registers') loads('  ', '0u', 'let');
  lines.push(`  for (var s = 0u; s < u.steps; s++) {`);
  if (source !== 'registers') loads('    ', `(s % ${STAGED_STEPS}u)`, 'let');
  for (let i = 0; i < tiles; i++) for (let j = 0; j < tiles; j++) lines.push(`    c${i}_${j} = subgroupMatrixMultiplyAccumulate(a${i}, b${j}, c${i}_${j});`);
  if (source === 'workgroup+barrier') lines.push(`    workgroupBarrier();`);
  lines.push(`  }`);
  const outTiles = subgroups * tiles * tiles;
  for (let i = 0; i < tiles; i++) {
    for (let j = 0; j < tiles; j++) {
      lines.push(`  subgroupMatrixStore<row_major>(&out, ((wg.x * ${outTiles}u + sg * ${tiles * tiles}u + ${i * tiles + j}u) % 64u) * 256u, c${i}_${j}, 16u);`);
    }
  }
  const program = probeProgram(`probe:${source}:${subgroups}:${tiles}`, 32 * subgroups, STAGED_STEPS * stepWords, STAGED_STEPS * stepWords, lines);
  return { name: `${source}, ${subgroups} subgroups of ${tiles}×${tiles} results`, program, macsPerStep: subgroups * tiles * tiles * FRAGMENT_MACS };
}

/**
 * The kernel's step without its global loads: each step, every thread stores its share of a 64-byte K step
 * (values held in registers, changed per step) into workgroup memory as K panels, a barrier, two 32-byte
 * multiply-add rounds of 4 × 4 results per subgroup, a barrier. Tile 128 × 64·`subgroupCols`.
 */
function stagedStepProbe(subgroupCols: 2 | 4): TensorCoreProbe {
  const rowsA = 128;
  const rowsB = 64 * subgroupCols;
  const threads = 64 * subgroupCols;
  const vec4PerRow = 4;
  const itemsA = (rowsA * vec4PerRow) / threads;
  const itemsB = (rowsB * vec4PerRow) / threads;
  const lines: string[] = [];
  lines.push(`  let sr = (sg / ${subgroupCols}u) * 64u;`, `  let sc = (sg % ${subgroupCols}u) * 64u;`);
  for (let i = 0; i < 4; i++) for (let j = 0; j < 4; j++) lines.push(`  var c${i}_${j} = subgroup_matrix_result<u32, 16, 16>();`);
  const sides = [{ x: 'a', tile: 'As', rows: rowsA, items: itemsA }, { x: 'b', tile: 'Bs', rows: rowsB, items: itemsB }];
  for (const { x, rows, items } of sides) {
    for (let m = 0; m < items; m++) {
      lines.push(`  let r${x}${m} = (li + ${threads * m}u) / ${vec4PerRow}u;`, `  let w${x}${m} = (li + ${threads * m}u) % ${vec4PerRow}u;`);
      lines.push(`  let o${x}${m} = (w${x}${m} / 2u) * ${rows * 8}u + r${x}${m} * 8u + (w${x}${m} % 2u) * 4u;`);
      lines.push(`  let p${x}${m} = vec4<u32>(seed[(li * ${2 * m + 1}u) % 4096u], seed[(li + ${m}u) % 4096u], seed[(li * 3u + 1u) % 4096u], seed[(li * 5u + ${m}u) % 4096u]);`);
    }
  }
  lines.push(`  for (var s = 0u; s < u.steps; s++) {`);
  for (const { x, tile, items } of sides) {
    for (let m = 0; m < items; m++) {
      lines.push(`    ${tile}[o${x}${m}] = p${x}${m}.x ^ s; ${tile}[o${x}${m} + 1u] = p${x}${m}.y; ${tile}[o${x}${m} + 2u] = p${x}${m}.z ^ s; ${tile}[o${x}${m} + 3u] = p${x}${m}.w;`);
    }
  }
  lines.push(`    workgroupBarrier();`);
  lines.push(`    for (var kk = 0u; kk < 64u; kk += 32u) {`);
  for (let i = 0; i < 4; i++) lines.push(`      let a${i} = subgroupMatrixLoad<subgroup_matrix_left<u8, 32, 16>, row_major>(&As, (kk / 32u) * ${rowsA * 8}u + (sr + ${16 * i}u) * 8u, 8u);`);
  for (let j = 0; j < 4; j++) lines.push(`      let b${j} = subgroupMatrixLoad<subgroup_matrix_right<u8, 16, 32>, col_major>(&Bs, (kk / 32u) * ${rowsB * 8}u + (sc + ${16 * j}u) * 8u, 8u);`);
  for (let i = 0; i < 4; i++) for (let j = 0; j < 4; j++) lines.push(`      c${i}_${j} = subgroupMatrixMultiplyAccumulate(a${i}, b${j}, c${i}_${j});`);
  lines.push(`    }`, `    workgroupBarrier();`, `  }`);
  for (let i = 0; i < 4; i++) {
    for (let j = 0; j < 4; j++) lines.push(`  subgroupMatrixStore<row_major>(&out, ((wg.x * ${subgroupCols * 32}u + sg * 16u + ${i * 4 + j}u) % 64u) * 256u, c${i}_${j}, 16u);`);
  }
  const program = probeProgram(`probe:staged:${subgroupCols}`, threads, rowsA * 16, rowsB * 16, lines);
  // Two 32-byte rounds per step.
  return { name: `staged 64-byte steps (stores, 2 barriers), ${2 * subgroupCols} subgroups of 4×4 results`, program, macsPerStep: 2 * 2 * subgroupCols * 16 * FRAGMENT_MACS };
}

async function main(): Promise<void> {
  process.env.XDG_RUNTIME_DIR ??= '/tmp';
  const { workgroups, steps, reps } = options;
  const { BUFFER_USAGE, emitShader, openGpuDevice, requestGpuAdapter } = await loadWebgpuRuntime();
  const choice = await requestGpuAdapter();
  if (choice === null) throw new Error('no WebGPU adapter');
  const { device, capabilities } = await openGpuDevice(choice.adapter);
  if (!capabilities.hasSubgroupMatrix) throw new Error(`${capabilities.description}: no u8 subgroup matrices`);
  const probes = [
    tensorCoreProbe('registers', 4, 4), tensorCoreProbe('workgroup', 4, 4), tensorCoreProbe('workgroup+barrier', 4, 4),
    tensorCoreProbe('registers', 4, 2), tensorCoreProbe('workgroup', 4, 2), tensorCoreProbe('workgroup', 8, 2),
    tensorCoreProbe('registers', 8, 4), tensorCoreProbe('workgroup', 8, 4), tensorCoreProbe('workgroup+barrier', 8, 4),
    stagedStepProbe(2), stagedStepProbe(4),
  ];
  const seed = device.createBuffer({ size: 4096 * 4, usage: BUFFER_USAGE.STORAGE, mappedAtCreation: true });
  const seedWords = new Uint32Array(seed.getMappedRange());
  for (let i = 0; i < seedWords.length; i++) seedWords[i] = Math.imul(i + 1, 2654435761) >>> 0;
  seed.unmap();
  const out = device.createBuffer({ size: 64 * 256 * 4 * 16, usage: BUFFER_USAGE.STORAGE });
  const uniforms = device.createBuffer({ size: 16, usage: BUFFER_USAGE.UNIFORM | BUFFER_USAGE.COPY_DST });
  device.queue.writeBuffer(uniforms, 0, new Uint32Array([steps, 0, 0, 0]));
  const results: { probe: string; seconds: number; macsPerSecond: number }[] = [];
  for (const probe of probes) {
    device.pushErrorScope('validation');
    const module = device.createShaderModule({ code: emitShader(probe.program) });
    const pipeline = device.createComputePipeline({ layout: 'auto', compute: { module, entryPoint: 'main' } });
    const bindGroup = device.createBindGroup({
      layout: pipeline.getBindGroupLayout(0),
      entries: [{ binding: 0, resource: { buffer: seed } }, { binding: 1, resource: { buffer: out } }, { binding: 2, resource: { buffer: uniforms } }],
    });
    const error = await device.popErrorScope();
    if (error !== null) {
      process.stderr.write(`${probe.name}: ${error.message}\n`);
      continue;
    }
    const once = async (): Promise<number> => {
      const encoder = device.createCommandEncoder();
      const pass = encoder.beginComputePass();
      pass.setPipeline(pipeline);
      pass.setBindGroup(0, bindGroup);
      pass.dispatchWorkgroups(workgroups);
      pass.end();
      const start = performance.now();
      device.queue.submit([encoder.finish()]);
      await device.queue.onSubmittedWorkDone();
      return (performance.now() - start) / 1000;
    };
    await once();
    const seconds: number[] = [];
    for (let rep = 0; rep < reps; rep++) seconds.push(await once());
    seconds.sort((x, y) => x - y);
    const median = seconds[Math.floor(seconds.length / 2)];
    const macsPerSecond = (workgroups * steps * probe.macsPerStep) / median;
    results.push({ probe: probe.name, seconds: median, macsPerSecond });
    if (!options.json) process.stdout.write(`${probe.name}: ${median.toFixed(4)} s, ${macsPerSecond.toExponential(3)} MAC/s\n`);
  }
  if (options.json) process.stdout.write(`${JSON.stringify({ device: capabilities.description, workgroups, steps, results })}\n`);
  device.destroy();
}

main().catch((e: unknown) => {
  process.stderr.write(`probe-tensor-cores: ${(e as Error).message}\n`);
  process.exitCode = 1;
});
