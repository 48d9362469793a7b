// What `snptally run` prints: CoMet-style summary lines for people, or one JSON object for programs.
import type { JobSpec, MemoryReport, RankDevice, RunHistogram, RunResult } from './engineApi.js';
import { HISTOGRAM_BUCKETS_PER_UNIT } from '../core/histogramLayout.js';
import { describeThreshold, type Threshold } from '../core/thresholds.js';
import { loadNativePopcountKernel, WASM_KERNEL_SET_NAME } from '../mgemm/index.js';

/**
 * The human summary. The first line has CoMet's shape (`metrics checksum <hi-mid-lo> ...`) so that
 * scripts comparing checksums with CoMet can grep both the same way.
 */
export function formatRunSummary(spec: JobSpec, result: RunResult, threshold: Threshold): string {
  const { metricSpec, decomposition: d } = spec;
  const lines = [
    `metrics checksum ${result.checksum} compute time ${result.seconds.toFixed(6)}`,
    `entries ${result.entries} zeros ${result.zeros} comparisons ${result.comparisons} ` +
      `rate ${formatRate(result.comparisonsPerSecond)} comparisons/s`,
    `input ${result.inputSeconds.toFixed(3)} s compute ${result.computeSeconds.toFixed(3)} s ` +
      `(${formatRate(result.computeComparisonsPerSecond)} comparisons/s)`,
    `${metricSpec.metric} ${metricSpec.numWay}-way${metricSpec.sparse ? ' sparse' : ''} ` +
      `vectors ${spec.numVector} fields ${spec.numField} problem ${describeSource(spec)} ` +
      `threshold ${describeThreshold(threshold)}`,
    `backend ${result.backend} threads ${spec.numThreads} ranks ${result.numRanks} ` +
      `(npv ${d.numProcVector} npf ${d.numProcField} npr ${d.numProcRepl}) ` +
      `phases ${d.phaseMin}-${d.phaseMax} of ${d.numPhase} stages ${d.stageMin}-${d.stageMax} of ${d.numStage}` +
      // Shown only when not SPEC §6's plan, so that default summaries keep their shape.
      (d.halfDiagonal === 'lower-rows' ? '' : ` half-diagonal ${d.halfDiagonal}`),
    describeKernelSets(result.rankDevices),
  ];
  if (spec.window != null) lines.push(`${describeWindow(spec.window)}: ${result.windowPairs ?? 0} pairs in it`);
  lines.push(describeMemory(result));
  if (result.deviceFinalizedPairs > 0) lines.push(`finalized ${result.deviceFinalizedPairs} pairs on the GPU`);
  const devices = describeRankDevices(result.rankDevices);
  if (devices !== null) lines.push(devices);
  if (result.deviceFinalizedTriples > 0) lines.push(`finalized ${result.deviceFinalizedTriples} triples on the GPU`);
  if (result.deviceFinalizedQuads > 0) lines.push(`finalized ${result.deviceFinalizedQuads} quadruples on the GPU`);
  // A top-N run's records-only bar: how few of the passing entries came back.
  if (spec.top != null && result.deviceRecordsReadBack > 0) lines.push(`read back ${result.deviceRecordsReadBack} records from the GPU for the top ${spec.top}`);
  if (spec.verify) lines.push(`verified ${result.verifiedValues} values against the analytic expectation`);
  if (result.outputFiles.length > 0) lines.push(`output ${result.outputFiles.join(' ')}${spec.top == null ? '' : ` (top ${spec.top})`}`);
  if (result.histogram !== null) lines.push(`histograms ${result.histogram.path}`);
  return `${lines.join('\n')}\n`;
}

/**
 * The `--json` object: every RunResult field, then the job that produced it (metric, way, sizes,
 * problem, threshold, decomposition, precision, threads).
 */
export function buildRunJson(spec: JobSpec, result: RunResult, threshold: Threshold): Record<string, unknown> {
  const { metricSpec } = spec;
  return {
    ...result,
    histogram: result.histogram === null ? null : histogramJson(result.histogram),
    metric: metricSpec.metric,
    numWay: metricSpec.numWay,
    sparse: metricSpec.sparse,
    cccParam: metricSpec.param,
    multiplier: metricSpec.multiplier,
    numVector: spec.numVector,
    numField: spec.numField,
    problem: spec.source.kind,
    inputPath: spec.source.kind === 'file' ? spec.source.path : null,
    threshold: threshold.kind === 'none' ? null : threshold,
    decomposition: spec.decomposition,
    singlePrecisionOutput: spec.singlePrecisionOutput,
    numThreads: spec.numThreads,
    finalize: spec.finalize,
    outputStub: spec.outputStub,
    matrix: spec.matrix ?? null,
    top: spec.top ?? null,
    // The LD window (its checksum, entries and histograms cover exactly the pairs in it); null: every pair.
    window: spec.window == null ? null : { ldWindow: spec.window.ldWindow, ldWindowKb: spec.window.ldWindowKb, interChr: spec.window.interChr },
  };
}

/**
 * The histograms in `--json`: per column its counts by bucket as decimal strings — exact whatever their size (a
 * 3-way run's counts pass 2^53, where JSON numbers stop being exact for most readers) and of one type.
 */
function histogramJson(histogram: RunHistogram): Record<string, unknown> {
  const { layout, counts } = histogram;
  const { numBuckets, columnNames } = layout;
  return {
    file: histogram.path,
    numBuckets,
    bucketWidth: 1 / HISTOGRAM_BUCKETS_PER_UNIT,
    columns: columnNames,
    counts: Object.fromEntries(columnNames.map((name, c) => [name, counts.slice(c * numBuckets, (c + 1) * numBuckets).map(String)])),
    undefinedValues: histogram.numUndefined.toString(),
  };
}

/**
 * Which GPU each rank used, e.g. `gpus rank 0 gpu 0 of 2, rank 1 gpu 1 of 2: nvidia nvidia-h200 (…)`;
 * null when every rank ran on the CPU. The adapter is named once when all ranks share the model.
 */
export function describeRankDevices(devices: readonly RankDevice[]): string | null {
  const gpus = devices.filter((d) => d.description !== 'cpu');
  if (gpus.length === 0) return null;
  const place = (d: RankDevice): string => (d.gpuIndex === null ? 'gpu ?' : `gpu ${d.gpuIndex} of ${d.gpuCount}`);
  const names = new Set(gpus.map((d) => d.description));
  if (names.size === 1) return `gpus ${gpus.map((d) => `rank ${d.rank} ${place(d)}`).join(', ')}: ${gpus[0].description}`;
  return `gpus ${gpus.map((d) => `rank ${d.rank} ${place(d)} ${d.description}`).join(', ')}`;
}

/**
 * The kernel sets the ranks ran, e.g. `kernels avx512-vpopcntq_4x4`, or `kernels rank 0 …, rank 1 …` when they differ.
 * The wasm set says why the native one was not used (not built at install, or a CPU without AVX-512 VPOPCNTDQ).
 */
export function describeKernelSets(devices: readonly RankDevice[]): string {
  const names = [...new Set(devices.map((d) => d.kernelSet))];
  const listed = names.length === 1 ? names[0] : devices.map((d) => `rank ${d.rank} ${d.kernelSet}`).join(', ');
  const native = names.includes(WASM_KERNEL_SET_NAME) ? loadNativePopcountKernel() : null;
  return `kernels ${listed}${native !== null && !native.available ? ` (${native.reason})` : ''}`;
}

/**
 * The job check's memory estimate, e.g. `memory estimated host 210 MiB (limit 14021 MiB) device 530 MiB per rank
 * (no limit)`; the device part only for GPU runs.
 */
export function describeMemory(result: MemoryReport): string {
  const mib = (bytes: number): string => `${Math.ceil(bytes / 2 ** 20)} MiB`;
  const limit = (bytes: number | null): string => (bytes === null ? 'no limit' : `limit ${mib(bytes)}`);
  const host = `memory estimated host ${mib(result.estimatedHostBytes)} (${limit(result.hostMemoryLimitBytes)})`;
  if (result.estimatedDeviceBytes === null) return host;
  return `${host} device ${mib(result.estimatedDeviceBytes)} per rank (${limit(result.deviceMemoryLimitBytes)})`;
}

/** e.g. `ld window 1000 kb, 10 variants, same chromosome`. */
function describeWindow(window: NonNullable<JobSpec['window']>): string {
  const limits = [
    ...(window.ldWindowKb === null ? [] : [`${window.ldWindowKb} kb`]),
    ...(window.ldWindow === null ? [] : [`${window.ldWindow} variants`]),
  ];
  return `ld window ${limits.join(', ')}, ${window.interChr ? 'and every pair of two chromosomes' : 'same chromosome'}`;
}

function describeSource(spec: JobSpec): string {
  return spec.source.kind === 'file' ? `file ${spec.source.path}` : spec.source.kind;
}

/** Rates span many orders of magnitude: three significant digits in exponent form, like CoMet's %e. */
function formatRate(rate: number): string {
  return Number.isFinite(rate) ? rate.toExponential(3) : String(rate);
}
