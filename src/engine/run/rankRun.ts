// The logic of one rank, written only against the Communicator interface: build the own block while the kernel
// set opens (it prepares while the input loads), sum the own block and reduce its sums over field slabs, exchange
// blocks, run the 2-way or 3-way pipeline, reduce the checksum.
import { rmSync } from 'node:fs';
import { setTraceLabel, traced, traceMark } from '../../core/trace.js';
import { CHECKSUM_LIMBS } from '../../core/checksum.js';
import {
  createPopcountGemm, type ComputeDevice, type PopcountGemm, type PopcountGemmOptions, type PopcountGemmStart, type RealOperands,
} from '../../mgemm/index.js';
import type { Communicator } from '../../parallel/index.js';
import { loadAnalysis, type Analysis, type AnalysisRun } from '../../analyses/index.js';
import { EntrySink } from '../finalize/entrySink.js';
import { MatrixSink, matrixFileSpec } from '../finalize/matrixSink.js';
import type { HistogramLayout } from '../../core/histogramLayout.js';
import { LITTLE_ENDIAN_HOST, stageFile, type StagedFile } from '../../io/index.js';
import { gatherTopRecords, TopRecords, topRecordsFilePath } from '../finalize/topRecordsSink.js';
import { topRecordsSpecOf } from './topCheck.js';
import {
  checkHistogramTotals, formatHistogramFile, histogramLimbs, HistogramCounter, reduceHistogram,
} from '../finalize/histogramSink.js';
import { createHostFinalizer, finalizeSetupOf, type HostFinalizer } from '../finalize/hostFinalizer.js';
import { finalizeGuestSpec, guestFinalizePool } from '../finalize/finalizeTasks.js';
import type { JobSpec } from './jobSpec.js';
import { deviceMayFinalize, type RankFinalize } from '../finalize/rankFinalize.js';
import { runPairSteps, type PipelineEnv } from '../pipeline/pipeline2.js';
import { computesInWindowBands } from '../pipeline/windowBands.js';
import { runTripleUnits } from '../pipeline/pipeline3.js';
import { runQuadTiles } from '../pipeline/pipeline4.js';
import { buildOwnPlanes, slabShape, startBlockExchange, sumOwnBlock } from '../blocks/blockExchange.js';
import { codeRowsCanHold } from '../blocks/codeRowPlanes.js';
import { rankLayout, type RankLayout } from './rankPlans.js';
import { openRankOutput } from './rankOutput.js';
import { runPreview } from './runPreview.js';
import { analysisRef } from './jobSpec.js';

const PROGRESS_INTERVAL_MS = 200;

/** What a rank reports back; checksum fields are already summed over all ranks. */
export interface RankOutcome {
  readonly rank: number;
  readonly checksumLimbs: number[];
  readonly entries: number;
  readonly zeros: number;
  readonly verifiedValues: number;
  /** Pairs whose values, threshold and checksum were computed on the GPU, summed over all ranks. */
  readonly deviceFinalizedPairs: number;
  /** Triples finalized on the GPU, summed over all ranks. */
  readonly deviceFinalizedTriples: number;
  /** Quadruples finalized on the GPU, summed over all ranks. */
  readonly deviceFinalizedQuads: number;
  readonly deviceRecordsReadBack: number;
  /** Unique pairs/triples × fields, summed over all ranks. */
  readonly comparisons: number;
  /** Pairs in the LD window among those computed, summed over all ranks (all of them without a window). */
  readonly windowPairs: number;
  readonly outputFile: string | null;
  /** Where the rank's finished output file still lies: its caller renames it to `outputFile` (runOutputs.ts). */
  readonly outputTemporaryFile: string | null;
  /** Slowest rank's seconds to load or generate its own vector block and sum it (its kernel set opens meanwhile). */
  readonly inputSeconds: number;
  /** CPU seconds (user + system, every thread of this process) during this rank's compute phase. */
  readonly computeCpuSeconds: number;
  /** Slowest rank's seconds from its block being loaded to its results being reduced: transfers, GEMMs, finalize, output. */
  readonly computeSeconds: number;
  /** Where this rank's kernels ran. */
  readonly device: ComputeDevice;
  /** The name of the kernel set that ran them (PopcountGemm.name). */
  readonly kernelSet: string;
  /** Rank 0 with --histograms: the layout and the counts summed over all ranks (histogramSink.ts limbs); else null. */
  readonly histogram: { readonly layout: HistogramLayout; readonly limbs: number[] } | null;
  /** Rank 0 with --histograms: the histogram file under its temporary name, renamed by the caller with the rank files. */
  readonly histogramFile: StagedFile | null;
}

/** How a rank runs besides its job. */
export interface RankOptions {
  /** Kernel threads of this rank (default: the job's threads split among the ranks of `comm`, all in this process). */
  readonly numThreads?: number;
  /** Fail on purpose after the rank has started (opened its output, begun its exchanges): tests of failure handling. */
  readonly induceFailure?: boolean;
  /**
   * Which of this host's GPUs the rank takes (`webgpu`), as slot modulo their number: the node-local
   * rank under MPI. Default: the rank in `comm` (in-process ranks all run on this host).
   */
  readonly gpuSlot?: number;
  /** Kernel threads started ahead of the job (RunHooks.startedKernels): taken where they are the rank's kernel set. */
  readonly startedKernels?: PopcountGemmStart | null;
}

/** Runs one rank of `job`. `reportProgress(done, total)` counts comparisons. */
export async function runRank(
  comm: Communicator, job: JobSpec, reportProgress: (done: number, total: number) => void, options: RankOptions = {},
): Promise<RankOutcome> {
  const layout: RankLayout = rankLayout(job, comm.rank);
  const { coords } = layout;
  // Ranks sharing a vector block and replica, ordered by field slab.
  const fieldComm = await comm.split(coords.vectorIdx + job.decomposition.numProcVector * coords.replIdx, coords.fieldIdx);
  const loaded = await loadAnalysis(analysisRef(job));
  const analysis = loaded.forRun({ spec: job.metricSpec, numVector: job.numVector, numField: job.numField });
  const numThreads = options.numThreads ?? Math.max(1, Math.floor(job.numThreads / comm.size));
  const isFinalizer = coords.fieldIdx === 0;
  // A dense-matrix run writes one matrix file (every rank, collectively) instead of per-rank records.
  const matrix = await openMatrix(comm, job, loaded, { writes: isFinalizer });
  // A top-N run keeps its rank's strongest records (finalizing ranks add them) and writes one file from rank 0.
  const top = topRecordsSpecOf(job, loaded);
  const topRecords = top === null ? null : new TopRecords(job.metricSpec.numWay, top);
  const output = matrix === null && top === null ? openRankOutput(job, comm.rank, comm.size, isFinalizer) : null;
  const histogram = histogramCounterOf(job, analysis);
  const writer = output?.writer ?? (isFinalizer ? topRecords : null);
  const sink = new EntrySink(job.numVector, job.metricSpec.numWay, job.threshold, writer, { histogram, window: job.window?.limits ?? null });
  const verifier = job.verify && job.source.kind === 'analytic' ? analysis.analyticVerifier() : null;
  const run: RankFinalize = {
    analysis, numVector: job.numVector, numField: job.numField, sink, verifier, matrix, top, topRecords: isFinalizer ? topRecords : null,
  };
  let computed: ComputedRank;
  let reduced: Float64Array;
  let phaseSeconds: number[];
  let computeCpuSeconds = 0;
  let matrixFile: { readonly finalPath: string; readonly temporaryPath: string } | null = null;
  let histogramTotals: Awaited<ReturnType<typeof reduceHistogram>> | null = null;
  let histogramFile: StagedFile | null = null;
  let topFile: StagedFile | null = null;
  try {
    computed = await computeRank({ comm, job, layout, run, fieldComm, numThreads, options }, reportProgress);
    sink.flush();
    if (topRecords !== null) topFile = await stageTopRecords(comm, job, topRecords);
    // Exact reduction of the checksum and counts over all ranks.
    sink.checksum.normalize();
    reduced = await comm.allReduceSum(Float64Array.from([
      ...sink.checksum.limbs, sink.checksum.entries, sink.checksum.zeros, verifier?.numChecked ?? 0, computed.numTuples,
      computed.numDevicePairs, computed.numDeviceTriples, computed.numWindowTuples, computed.numDeviceRecords, computed.numDeviceQuads,
    ]));
    traceMark('checksum reduced');
    histogramTotals = histogram === null ? null : await reduceHistogram(comm, histogram);
    if (histogram !== null && histogramTotals !== null) {
      // The histogram counts the pairs an LD window keeps (all pairs computed without one).
      if (reduced[CHECKSUM_LIMBS + 6] < 2 ** 53) checkHistogramTotals(histogram.layout, histogramTotals, reduced[CHECKSUM_LIMBS + 6]);
      // Rank 0 writes it under a temporary name; the caller renames it with the rank files.
      if (comm.rank === 0 && job.histogramPath) histogramFile = stageFile(job.histogramPath, formatHistogramFile(histogram.layout, histogramTotals.counts));
    }
    output?.finish();
    // Every rank has written its part of the matrix before rank 0 stages it (a text matrix is converted here).
    matrix?.finish();
    if (matrix !== null) await comm.barrier();
    matrixFile = matrix?.stage() ?? null;
    const computeCpu = process.cpuUsage(computed.computeCpuStart);
    computeCpuSeconds = (computeCpu.user + computeCpu.system) / 1e6;
    phaseSeconds = await slowestRankSeconds(comm, [
      (computed.computeStart - computed.inputStart) / 1000, (performance.now() - computed.computeStart) / 1000]);
  } catch (e) {
    output?.discard();
    matrix?.discard();
    if (matrixFile !== null) rmSync(matrixFile.temporaryPath, { force: true });
    if (histogramFile !== null) rmSync(histogramFile.temporaryPath, { force: true });
    if (topFile !== null) rmSync(topFile.temporaryPath, { force: true });
    throw e;
  }
  // The files keep their temporary names: the caller renames every rank's file, and the files written with them (the
  // CLI's run.json), once all are complete, so that an aborted run leaves only temporary names.
  return {
    rank: comm.rank,
    checksumLimbs: Array.from(reduced.subarray(0, CHECKSUM_LIMBS)),
    entries: reduced[CHECKSUM_LIMBS],
    zeros: reduced[CHECKSUM_LIMBS + 1],
    verifiedValues: reduced[CHECKSUM_LIMBS + 2],
    comparisons: reduced[CHECKSUM_LIMBS + 3] * job.numField,
    deviceFinalizedPairs: reduced[CHECKSUM_LIMBS + 4],
    deviceFinalizedTriples: reduced[CHECKSUM_LIMBS + 5],
    windowPairs: reduced[CHECKSUM_LIMBS + 6],
    deviceRecordsReadBack: reduced[CHECKSUM_LIMBS + 7],
    deviceFinalizedQuads: reduced[CHECKSUM_LIMBS + 8],
    outputFile: output?.path ?? matrixFile?.finalPath ?? topFile?.finalPath ?? null,
    outputTemporaryFile: output?.temporaryPath ?? matrixFile?.temporaryPath ?? topFile?.temporaryPath ?? null,
    inputSeconds: phaseSeconds[0],
    computeCpuSeconds,
    computeSeconds: phaseSeconds[1],
    device: computed.device,
    kernelSet: computed.kernelSet,
    histogram: comm.rank === 0 && histogram !== null && histogramTotals !== null
      ? { layout: histogram.layout, limbs: Array.from(histogramLimbs(histogramTotals)) } : null,
    histogramFile,
  };
}

/** The run's dense-matrix sink when it writes one (opened on every rank: a collective), else null. */
async function openMatrix(comm: Communicator, job: JobSpec, analysis: Analysis, options: { readonly writes: boolean }): Promise<MatrixSink | null> {
  const output = job.matrix ?? null;
  if (output === null) return null;
  const dense = analysis.denseMatrix;
  if (job.outputStub === null || dense === undefined) throw new Error('a dense-matrix job without an output stub or an analysis matrix (checkJob refuses it)');
  return MatrixSink.open(matrixFileSpec(job.outputStub, job.numVector, output, dense), dense.diagonal, comm, options);
}

/** The run's strongest records, gathered from every rank, in rank 0's file under a temporary name (collective); else null. */
async function stageTopRecords(comm: Communicator, job: JobSpec, topRecords: TopRecords): Promise<StagedFile | null> {
  const taken = await gatherTopRecords(comm, topRecords);
  if (taken === null || job.outputStub === null) return null;
  if (!LITTLE_ENDIAN_HOST) throw new Error('top-N records are written on little-endian hosts only');
  return stageFile(topRecordsFilePath(job.outputStub), new Uint8Array(taken.words.buffer, taken.words.byteOffset, taken.words.byteLength));
}

/** The rank's histogram counter when the job asks for histograms (checkJob made sure the analysis has them). */
function histogramCounterOf(job: JobSpec, analysis: AnalysisRun): HistogramCounter | null {
  if (job.histogramPath === undefined || job.histogramPath === null) return null;
  const layout = analysis.histogramLayout?.();
  if (layout === undefined) throw new Error(`--metric ${job.metricSpec.metric} has no histogram`);
  return new HistogramCounter(layout);
}

/** What a rank computes with: its job, layout, context and field communicator. */
interface RankSetup {
  readonly comm: Communicator;
  readonly job: JobSpec;
  readonly layout: RankLayout;
  readonly run: RankFinalize;
  readonly fieldComm: Communicator;
  readonly numThreads: number;
  readonly options: RankOptions;
}

/** What computeRank did: tuples finalized here (on the device among them), when its phases began, where it ran. */
interface ComputedRank {
  readonly numTuples: number;
  /** Tuples an LD window keeps among numTuples (all of them without a window). */
  readonly numWindowTuples: number;
  readonly numDevicePairs: number;
  readonly numDeviceTriples: number;
  readonly numDeviceQuads: number;
  /** Records the device finalize returned. */
  readonly numDeviceRecords: number;
  readonly inputStart: number;
  readonly computeStart: number;
  /** process.cpuUsage() when the compute phase began. */
  readonly computeCpuStart: NodeJS.CpuUsage;
  readonly device: ComputeDevice;
  readonly kernelSet: string;
}

/**
 * Whether the own block stays the code rows in memory and the GPU builds its planes (engine/blocks/codeRowPlanes.ts):
 * a 2-way GPU run of rows in memory whose block no other rank reads and that finalizes on the device (a host finalize
 * that reads planes after all packs them then: hostFinalizer.ts).
 */
function ownPlanesOnDevice({ job, layout, run, fieldComm }: RankSetup, realOperands: RealOperands | null): boolean {
  return job.backend === 'webgpu' && job.source.kind === 'memory' && job.metricSpec.numWay === 2 && realOperands === null
    && layout.exchange.sends.length === 0 && layout.exchange.receives.length === 0
    && deviceMayFinalize(run, { placement: job.finalize, fieldComm }) && run.analysis.pairs?.deviceFinalizer !== undefined
    && codeRowsCanHold(run.analysis.planes, slabShape(layout, layout.coords.vectorIdx), job.numField);
}

/**
 * Builds the own block while the rank's kernel set opens and prepares for the run (GPU programs compile while the
 * input loads), sums the own block, exchanges blocks and runs the 2-way or 3-way pipeline; closes the kernel set.
 */
async function computeRank(setup: RankSetup, reportProgress: (done: number, total: number) => void): Promise<ComputedRank> {
  const { comm, job, layout, run, fieldComm, numThreads, options } = setup;
  if (job.backend === 'auto') throw new Error('backend auto must be resolved before ranks start');
  const backend = job.backend;
  setTraceLabel(`rank ${comm.rank}`);
  const inputStart = performance.now();
  // Host finalize runs on the kernel set's worker threads where it has them (its guest: the CPU kernels), else on a
  // pool of as many finalize threads as kernel threads (finalizeTasks.ts FinalizePool); the pipelines keep GEMM and
  // finalize busy at once (lookahead). Ranks that finalize load the finalize modules in those threads while the
  // kernel set opens, so that this is done before the first panel's tallies come back.
  const finalizers = { analysis: analysisRef(job), settings: { spec: job.metricSpec, numVector: job.numVector, numField: job.numField } };
  const isFinalizer = fieldComm.rank === 0;
  // A windowed CPU run's bands (windowBands.ts) take this thread as one of its threads.
  const windowBands = backend === 'cpu' && computesInWindowBands(run, fieldComm);
  const realOperands = realOperandsOf(run.analysis.planes, layout);
  // A windowed CPU run computes its GEMMs on the finalize threads (windowBands.ts): no kernel threads to start.
  const kernelThreads = windowBands && realOperands === null ? 1 : numThreads;
  // The kernel set starts opening first (its worker threads start, or the GPU device opens: 0.05–0.2 s), then the own
  // block is built meanwhile — on block workers, or on this thread when it is small (then the kernel threads start
  // while it is built rather than after).
  // A windowed CPU run's finalize threads (its kernel set has none to lend) start first, so that their start (~0.1 s)
  // overlaps the kernel set's opening and the own block's build rather than following them.
  const earlyFinalizer = windowBands && kernelThreads === 1
    ? createHostFinalizer(run, finalizers, { numThreads, startNow: isFinalizer, pool: null, windowBands }) : null;
  const opening = traced('kernel set opened', () => openKernelSet({
    backend, numThreads: kernelThreads, gpuSlot: options.gpuSlot ?? comm.rank, realOperands,
    workerGuest: isFinalizer && kernelThreads > 1 ? finalizeGuestSpec(finalizeSetupOf(run, finalizers)) : null,
  }, options.startedKernels ?? null));
  // Awaited below; neither rejection may go unhandled while the other is awaited.
  opening.catch(() => undefined);
  const codeRows = ownPlanesOnDevice(setup, realOperands);
  const building = buildOwnPlanes(job, layout, run.analysis.planes, numThreads, { codeRows });
  building.catch(() => undefined);
  let gemm: PopcountGemm;
  try {
    gemm = await opening;
    if (codeRows && gemm.planesFromCodeRows !== true) throw new Error(`kernel set ${gemm.name} builds no planes from code rows`);
  } catch (error) {
    // No block worker may still be writing the block when the rank fails.
    await building.then((filling) => filling.done).catch(() => undefined);
    await earlyFinalizer?.close();
    throw error;
  }
  const sharedPool = gemm.guestTasks === undefined ? null : guestFinalizePool(gemm.guestTasks);
  const hostFinalizer: HostFinalizer = earlyFinalizer ?? createHostFinalizer(run, finalizers, {
    numThreads, startNow: isFinalizer && backend !== 'webgpu' && sharedPool === null, pool: sharedPool, windowBands,
  });
  try {
    const preview = runPreview(run, gemm, layout.fieldRange, { placement: job.finalize, fieldComm });
    gemm.prepareStart?.(codeRows ? { ...preview, codeTable: run.analysis.planes.bitsOfCode } : preview);
    const filling = await building;
    const summing = traced('own block loaded', () => sumOwnBlock(job, layout, run.analysis.planes, filling, fieldComm, gemm));
    // Peers get the block's rows as they are built, while this rank uploads and sums them.
    const blocks = startBlockExchange(comm, layout, filling, summing);
    const own = await summing;
    const computeStart = performance.now();
    const computeCpuStart = process.cpuUsage();
    const total = layout.totalComparisons;
    let done = 0;
    let lastReport = 0;
    const env: PipelineEnv = {
      run, gemm, fieldComm, blocks, finalizePlacement: job.finalize, hostFinalizer,
      onWork: (n) => {
        done += n;
        // In-process ranks post each report to the launcher: a few per second is enough for a progress bar.
        const now = performance.now();
        if (now - lastReport >= PROGRESS_INTERVAL_MS || done === total) {
          lastReport = now;
          reportProgress(done, total);
        }
      },
    };
    if (options.induceFailure === true) throw new Error(`induced failure of rank ${comm.rank} (SNPTALLY_DEBUG_FAIL_RANK)`);
    const counted = { numTuples: 0, numWindowTuples: 0, numDevicePairs: 0, numDeviceTriples: 0, numDeviceQuads: 0, numDeviceRecords: 0 };
    if (job.metricSpec.numWay === 2) {
      const pairs = await runPairSteps(env, own, layout.pairSteps);
      counted.numTuples = pairs.numPairs;
      counted.numDevicePairs = pairs.numDevicePairs;
      counted.numDeviceRecords = pairs.numDeviceRecords;
      counted.numWindowTuples = pairs.numWindowPairs;
    } else if (job.metricSpec.numWay === 4) {
      const quads = await runQuadTiles(env, own, layout.quadTiles);
      counted.numTuples = quads.numQuads;
      counted.numWindowTuples = quads.numQuads;
      counted.numDeviceQuads = quads.numDeviceQuads;
      counted.numDeviceRecords = quads.numDeviceRecords;
    } else {
      for (const units of layout.tripleUnitsByStage) {
        const triples = await runTripleUnits(env, own, units);
        counted.numTuples += triples.numTriples;
        counted.numDeviceTriples += triples.numDeviceTriples;
        counted.numDeviceRecords += triples.numDeviceRecords;
        counted.numWindowTuples += triples.numTriples;
      }
    }
    traceMark('steps done');
    return { ...counted, inputStart, computeStart, computeCpuStart, device: gemm.device, kernelSet: gemm.name };
  } finally {
    await hostFinalizer.close();
    await traced('kernel set closed', () => gemm.close());
  }
}

/**
 * The kernel set of `wanted`: the one started ahead (completed with the guest) where it was started with the same
 * backend, threads and operands, else a new one (the other cancelled).
 */
async function openKernelSet(wanted: PopcountGemmOptions, started: PopcountGemmStart | null): Promise<PopcountGemm> {
  if (started !== null) {
    const { backend, numThreads, realOperands } = started.options;
    if (backend === wanted.backend && numThreads === wanted.numThreads && (realOperands ?? null) === (wanted.realOperands ?? null)) {
      return started.complete(wanted.workerGuest ?? null);
    }
    await started.cancel();
  }
  return createPopcountGemm(wanted);
}

/** The min-plus kernel set's operands of a real-valued layout (its slab's fields), else null. */
function realOperandsOf(planes: AnalysisRun['planes'], layout: RankLayout): RealOperands | null {
  const real = planes.realValues ?? null;
  return real === null ? null : { precision: real.precision, numField: layout.fieldRange.end - layout.fieldRange.begin };
}

/** Per phase, the largest of every rank's seconds (the communicator only sums: each rank fills its own slots). */
async function slowestRankSeconds(comm: Communicator, seconds: readonly number[]): Promise<number[]> {
  const all = new Float64Array(comm.size * seconds.length);
  all.set(seconds, comm.rank * seconds.length);
  const summed = await comm.allReduceSum(all);
  return seconds.map((_, phase) => {
    let slowest = 0;
    for (let r = 0; r < comm.size; r++) slowest = Math.max(slowest, summed[r * seconds.length + phase]);
    return slowest;
  });
}
