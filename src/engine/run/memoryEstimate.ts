// Peak memory of a run, estimated before it starts from its sizes, decomposition, metric and kernel set: the host
// bytes of the whole process (every rank it runs) and the device bytes of each GPU rank. Each term is one line below;
// the sum is an upper bound of the typical peak, not an exact figure.
import { planeWordsFor } from '../../mgemm/index.js';
import { blockCirculantPlan, numFieldLocal, numSlabUnits, numVectorLocal, rankOf } from '../../parallel/index.js';
import { blockThreadCount } from '../blocks/blockBuild.js';
import { pairCountGroupsOf, type AnalysisRun } from '../../analyses/index.js';
import { RECORDS_PER_FLUSH } from '../finalize/entrySink.js';
import { matrixSinkDeviceBytes, matrixSinkHostBytes } from '../finalize/matrixSink.js';
import { DEVICE_PAIRS_PER_PANEL, PAIRS_PER_PANEL } from '../pipeline/pipeline2.js';
import { DEVICE_TALLY_BYTES_PER_CALL, TALLY_BYTES_PER_CALL } from '../pipeline/pipeline3.js';
import { QUAD_COLS_PER_TILE, QUAD_ROWS_PER_TILE } from '../pipeline/pipeline4.js';
import { quadColumnPlaneLimit } from '../pipeline/pipeline4Device.js';
import type { JobSpec } from './jobSpec.js';

const MiB = 2 ** 20;
const GiB = 2 ** 30;

/** Resident size of a Node process with the engine loaded, before any block (measured: ~65 MiB). */
const PROCESS_BASE_BYTES = 80 * MiB;
/** Dawn and its Vulkan driver loaded in the process (`webgpu`, and `auto`, which probes; lavapipe: ~150 MiB). */
const DAWN_BASE_BYTES = 160 * MiB;
/** The MPI library and its binding in an MPI rank's process (measured: ~12 MiB). */
const MPI_BASE_BYTES = 24 * MiB;
/** An in-process rank's worker thread: its V8 isolate with the engine's modules (measured: 24–33 MiB). */
const RANK_THREAD_BYTES = 36 * MiB;
/** A kernel or block worker thread: its isolate and microkernel instance (measured: ~8–10 MiB). */
const WORKER_THREAD_BYTES = 12 * MiB;
/** A host-finalize worker: its isolate with the engine's and the analysis's modules, its sink and record buffers. */
const FINALIZE_THREAD_BYTES = 24 * MiB;
/** A GPU rank's device and queues on the host, beyond Dawn itself. */
const GPU_RANK_HOST_BYTES = 64 * MiB;

/** Calls in flight: pipelines run one call ahead (lookahead.ts runOneAhead). */
const CALLS_IN_FLIGHT = 2;

/** wasm blockSizes.ts: packed A block (MC_ROWS × KC_WORDS u32), widest B block (NC_COLS_MAX), C block bound. */
const WASM_MC_ROWS = 128;
const WASM_KC_WORDS = 1024;
const WASM_NC_COLS_MAX = 2048;
const WASM_C_BLOCK_BYTES_MAX = 64 * MiB;
/** The native AMX kernel's scratch per thread at most (amxLoops.cc): A's micro-panels, B's block, the staged sums. */
const NATIVE_AMX_SCRATCH_BYTES = 256 * 1024 + MiB + 4 * MiB;

/** metricsFileWriter.ts's write buffer (the sink's own buffer holds RECORDS_PER_FLUSH records). */
const WRITE_BUFFER_BYTES = MiB;

/**
 * webgpu popcountGemmWebgpu.ts: resident operand budget, expanded u8 operand, kept u8 expansions (webgpuOptions.ts),
 * staging ring (webgpuRunner.ts).
 */
const GPU_RESIDENT_BYTES = 4 * GiB;
const GPU_EXPANDED_BYTES = 512 * MiB;
const GPU_KEPT_EXPANSION_BYTES = 4 * GiB;
const GPU_STAGING_BYTES = 8 * 16 * MiB;
/** webgpu requestPlan.ts: output bytes of one sub-block read back, or kept on the device (device finalize). */
const GPU_OUTPUT_BYTES = 256 * MiB;
const GPU_DEVICE_OUTPUT_BYTES = 2 * GiB;
/** webgpu tally3Webgpu.ts STACK_PRODUCT_BYTES: 3-way pair products of one stack. */
const GPU_STACK_PRODUCT_BYTES = GiB;
/** webgpu tripleFinalizeWebgpu.ts MAX_RESIDENT_ARRAYS: dense 3-way block-pair matrices kept. */
const GPU_RESIDENT_PAIR_COUNTS = 4;
/** webgpu finalizeScratch.ts: two scratch sets, each with room for a panel's records (2-way: 2^24 × 12 bytes, 3-way: 2^23 × 8). */
const GPU_FINALIZE_SETS = 2;
const GPU_RECORD_BYTES_2 = 2 ** 24 * 12;
const GPU_RECORD_BYTES_3 = 2 ** 23 * 8;
/** Most pairs of a top-N run's device panel: webgpu's fullRatePairs (1024 u8 tiles of 128 × 256) at most. */
const TOP_DEVICE_PAIRS_PER_PANEL = 1 << 25;
/** Status and checksum partials of one finalize set (a few MiB for the largest panels). */
const GPU_FINALIZE_STATUS_BYTES = 8 * MiB;

/** One part of an estimate: what it is and its bytes (summed over the ranks it counts). */
export interface MemoryTerm {
  readonly name: string;
  readonly bytes: number;
}

export interface MemoryEstimate {
  /** Peak resident bytes of the whole process: every rank it runs together. */
  readonly hostBytes: number;
  readonly hostTerms: readonly MemoryTerm[];
  /** Peak bytes on the GPU of one rank (`webgpu`); null for CPU kernel sets. */
  readonly deviceBytes: number | null;
  readonly deviceTerms: readonly MemoryTerm[];
}

/** What the estimate needs besides the job. */
export interface MemoryEstimateContext {
  /** Ranks this process runs: npv·npf·npr as in-process threads, 1 under MPI. */
  readonly ranksInProcess: number;
  /** Kernel threads of each rank (the job's threads split among in-process ranks, all of them under MPI). */
  readonly threadsPerRank: number;
  /** The GPU expands operands to u8 (tensor cores): the expansion budget is on the device too. */
  readonly gpuExpandsToU8: boolean;
  /** Dawn is loaded in the process (`--backend webgpu`, or `auto`, which probes for an adapter). */
  readonly dawnLoaded: boolean;
  /** The GPU is a CPU implementation (lavapipe): its device memory is host memory too. */
  readonly gpuIsSoftware: boolean;
  /** The process is an MPI rank (the MPI library and its binding are loaded). */
  readonly mpiLoaded: boolean;
}

/** The sizes of one rank's data that every term is computed from. */
export interface RankMemoryShape {
  /** Vectors per block (pads included), fields per slab, planes per vector and 32-bit words per plane. */
  readonly numVectorLocal: number;
  readonly numFieldLocal: number;
  readonly numPlanes: number;
  readonly wordsPerPlane: number;
  /** Bytes of one block's planes. */
  readonly blockBytes: number;
  /** Most blocks other than its own that one rank receives (and keeps to the end of the run). */
  readonly maxReceivedBlocks: number;
  /** Tally groups of a 2-way call (3-way: of an mGEMM3 call). */
  readonly numGroups: number;
  /** Most tuples (pairs or triples) of one call. */
  readonly tuplesPerCall: number;
  /** Tally entries (tuples, with the full rectangles that panels allocate) of all of one rank's calls. */
  readonly tuplesPerRank: number;
  /** 3-way: plane pairs of mGEMM3's A operand, and the 2-way groups of the block-pair counts finalize needs (0 for 2-way). */
  readonly triplePlanePairs: number;
  readonly pairCountGroups: number;
  /** Whether the analysis has a device finalizer for the run's way. */
  readonly analysisFinalizesOnDevice: boolean;
}

/** Positions (vector block, replica) whose reads are evaluated: all of them, or an even spread of this many. */
const MAX_POSITIONS_SAMPLED = 256;

/** Most blocks a rank receives: 2-way from the block-circulant plan, 3-way bounded by its units (two blocks each). */
export function maxReceivedBlocks(job: JobSpec): number {
  const d = job.decomposition;
  const npv = d.numProcVector;
  // 4-way ranks read every vector themselves (quadPlan.ts).
  if (npv === 1 || job.metricSpec.numWay === 4) return 0;
  const numPhasesRun = d.phaseMax - d.phaseMin + 1;
  if (job.metricSpec.numWay === 3) {
    const unitsPerRank = Math.ceil(Math.ceil((numSlabUnits(npv) * numPhasesRun) / d.numPhase) / d.numProcRepl);
    return Math.min(npv - 1, 2 * unitsPerRank);
  }
  const numPositions = npv * d.numProcRepl;
  const stride = Math.max(1, Math.floor(numPositions / MAX_POSITIONS_SAMPLED));
  let most = 0;
  for (let position = 0; position < numPositions; position += stride) {
    const vectorIdx = position % npv;
    const replIdx = Math.floor(position / npv);
    const rank = rankOf(d, { vectorIdx, replIdx, fieldIdx: 0 });
    const blocks = new Set<number>();
    for (let phaseIdx = d.phaseMin; phaseIdx <= d.phaseMax; phaseIdx++) {
      const plan = blockCirculantPlan({ grid: d, rank, numVector: job.numVector, numPhase: d.numPhase, phaseIdx, halfDiagonal: d.halfDiagonal });
      for (const step of plan) if (step.colBlock !== vectorIdx) blocks.add(step.colBlock);
    }
    most = Math.max(most, blocks.size);
  }
  return most;
}

/** The sizes every term is computed from (see RankMemoryShape). */
export function rankMemoryShape(job: JobSpec, analysis: AnalysisRun): RankMemoryShape {
  const { metricSpec: m, decomposition: d } = job;
  const nvl = numVectorLocal(job.numVector, d.numProcVector, m.numWay);
  const nfl = numFieldLocal(job.numField, d.numProcField);
  const layout = analysis.planes;
  const wordsPerPlane = planeWordsFor(nfl);
  const blockBytes = nvl * layout.numPlanes * wordsPerPlane * 4;
  const received = maxReceivedBlocks(job);
  if (m.numWay === 2) {
    const numGroups = analysis.pairs?.termGroups.length ?? 0;
    // A column block per received block, and the diagonal block: its upper half, with whole square tiles along its diagonal.
    const side = Math.floor(Math.sqrt(PAIRS_PER_PANEL));
    const tuplesPerRank = received * nvl * nvl + (nvl * nvl + nvl * Math.min(nvl, side)) / 2;
    return {
      numVectorLocal: nvl, numFieldLocal: nfl, numPlanes: layout.numPlanes, wordsPerPlane, blockBytes,
      maxReceivedBlocks: received, numGroups, tuplesPerCall: Math.min(PAIRS_PER_PANEL, nvl * nvl, tuplesPerRank), tuplesPerRank,
      triplePlanePairs: 0, pairCountGroups: 0, analysisFinalizesOnDevice: analysis.pairs?.deviceFinalizer !== undefined,
    };
  }
  if (m.numWay === 4) {
    // mGEMM4 (pipeline4.ts): tiles of row pairs × column pairs; every rank holds every vector and receives nothing.
    const quadPlan = analysis.quads?.plan;
    const numQuadGroups = (quadPlan?.termGroups.length ?? 0) + (quadPlan?.vectorTermGroups?.length ?? 0);
    const share = ((d.phaseMax - d.phaseMin + 1) / d.numPhase) * ((d.stageMax - d.stageMin + 1) / d.numStage);
    const tuplesPerRank = Math.ceil((job.numVector ** 4 / 24 / (d.numProcVector * d.numProcRepl)) * share);
    return {
      numVectorLocal: nvl, numFieldLocal: nfl, numPlanes: layout.numPlanes, wordsPerPlane, blockBytes, maxReceivedBlocks: 0,
      numGroups: numQuadGroups, tuplesPerCall: QUAD_ROWS_PER_TILE * QUAD_COLS_PER_TILE, tuplesPerRank, triplePlanePairs: 0,
      pairCountGroups: 0, analysisFinalizesOnDevice: analysis.quads?.deviceFinalizer !== undefined,
    };
  }
  const plan = analysis.triples?.plan;
  const numGroups = plan?.termGroups.length ?? 0;
  // The rank's share of all triples (nv³/6) in its phases and stages.
  const numRanksAlongVectors = d.numProcVector * d.numProcRepl;
  const share = ((d.phaseMax - d.phaseMin + 1) / d.numPhase) * ((d.stageMax - d.stageMin + 1) / d.numStage);
  const tuplesPerRank = Math.ceil((job.numVector ** 3 / 6 / numRanksAlongVectors) * share);
  // A batch holds up to TALLY_BYTES_PER_CALL of tallies, a single j-slice (nvl² triples) more, never more than a unit: the
  // tetrahedron's nvl³/6 triples for npv 1, else up to a prism's nvl³/2.
  const sliceTriples = nvl * nvl;
  const unitTriples = d.numProcVector === 1 ? nvl ** 3 / 6 : nvl ** 3 / 2;
  const tuplesPerCall = Math.ceil(Math.min(unitTriples, tuplesPerRank, Math.max(sliceTriples, TALLY_BYTES_PER_CALL / (4 * numGroups))));
  return {
    numVectorLocal: nvl, numFieldLocal: nfl, numPlanes: layout.numPlanes, wordsPerPlane, blockBytes,
    maxReceivedBlocks: received, numGroups, tuplesPerCall, tuplesPerRank,
    triplePlanePairs: plan?.planePairs.length ?? 0, pairCountGroups: plan === undefined ? 0 : pairCountGroupsOf(plan).length,
    analysisFinalizesOnDevice: analysis.triples?.deviceFinalizer !== undefined,
  };
}

/** Whether the run may finalize on the GPU (finalize/rankFinalize.ts): its tallies stay there. */
function mayFinalizeOnDevice(job: JobSpec, shape: RankMemoryShape): boolean {
  return job.backend === 'webgpu' && job.finalize === 'auto' && shape.analysisFinalizesOnDevice &&
    job.decomposition.numProcField === 1 && !job.verify;
}

const sum = (terms: readonly MemoryTerm[]): number => terms.reduce((total, t) => total + t.bytes, 0);

/** Peak host bytes of the process and device bytes per GPU rank of `job` (see MemoryEstimate). */
export function estimateMemory(job: JobSpec, context: MemoryEstimateContext, analysis: AnalysisRun): MemoryEstimate {
  const shape = rankMemoryShape(job, analysis);
  const ranks = context.ranksInProcess;
  const perRank = rankHostTerms(job, shape, context);
  const deviceTerms = job.backend === 'webgpu' ? rankDeviceTerms(job, shape, context).filter((t) => t.bytes > 0) : [];
  const deviceBytes = job.backend === 'webgpu' ? sum(deviceTerms) : null;
  const hostTerms: MemoryTerm[] = [
    // The process itself, Dawn when it is loaded, and the threads it starts.
    { name: 'node process', bytes: PROCESS_BASE_BYTES },
    { name: 'MPI library', bytes: context.mpiLoaded ? MPI_BASE_BYTES : 0 },
    { name: 'Dawn (WebGPU)', bytes: context.dawnLoaded || job.backend === 'webgpu' ? DAWN_BASE_BYTES : 0 },
    { name: 'rank threads', bytes: ranks > 1 ? ranks * RANK_THREAD_BYTES : 0 },
    { name: 'input in memory', bytes: job.source.kind === 'memory' ? job.source.packed.byteLength : 0 },
    ...perRank.map((t) => ({ name: t.name, bytes: ranks * t.bytes })),
    { name: 'GPU memory of a software adapter', bytes: context.gpuIsSoftware && deviceBytes !== null ? ranks * deviceBytes : 0 },
  ].filter((t) => t.bytes > 0);
  return { hostBytes: sum(hostTerms), hostTerms, deviceBytes, deviceTerms };
}

/** Host terms of one rank. */
function rankHostTerms(job: JobSpec, shape: RankMemoryShape, context: MemoryEstimateContext): MemoryTerm[] {
  const { numWay } = job.metricSpec;
  const { blockBytes, maxReceivedBlocks: received, numVectorLocal: nvl } = shape;
  const npf = job.decomposition.numProcField;
  const onGpu = job.backend === 'webgpu';
  const threads = context.threadsPerRank;
  // Only the `cpu` kernel set starts workers (`ref` computes inline, a GPU from the rank's thread).
  const kernelWorkers = job.backend === 'cpu' && threads > 1 ? threads : 0;
  const blockWorkers = blockThreadCount(nvl, nvl * shape.numFieldLocal, { numThreads: threads });
  const tallyBytes = shape.tuplesPerCall * shape.numGroups * 4;
  const rankTallyBytes = shape.tuplesPerRank * shape.numGroups * 4;
  const inFlightBytes = Math.min(rankTallyBytes, CALLS_IN_FLIGHT * tallyBytes);
  const deviceFinalize = mayFinalizeOnDevice(job, shape);
  // Field slabs sum tallies on field rank 0: the others' parts, Float64 totals and the result beside the own part.
  const reducePerTally = npf > 1 ? 4 * (npf - 1) + 8 + 4 : 0;
  const pairCountMatrices = numWay === 3 ? shape.pairCountGroups * pairCountMatricesHeld(job, deviceFinalize, shape.pairCountGroups) : 0;
  return [
    // The own block's planes, and each received block's (kept until the run ends), in shared memory.
    { name: 'own block', bytes: blockBytes },
    { name: 'received blocks', bytes: received * blockBytes },
    // In-process ranks send private copies (meshTransport.ts) that the receiver copies to shared memory and drops:
    // about one per rank at a time.
    { name: 'blocks in transit', bytes: context.ranksInProcess > 1 ? Math.min(received, 1) * blockBytes : 0 },
    // Sums and present counts (Float64) of every block held, and their copy in the exchange.
    { name: 'vector sums', bytes: (1 + received) * nvl * 16 * 2 },
    // GEMM outputs of the calls in flight, read back to the host unless finalized on the device.
    { name: 'tallies in flight', bytes: deviceFinalize ? 0 : inFlightBytes },
    // Outputs of finished calls not yet collected: up to two calls' on one thread, or where finalized outputs go back
    // to the kernel set for reuse (2-way without field slabs, pipeline2.ts); otherwise, with a CPU pool, all of them, as
    // its workers keep the shared outputs they computed until they collect their own garbage.
    {
      name: 'tallies awaiting collection',
      bytes: deviceFinalize ? 0 : kernelWorkers === 0 || (numWay === 2 && npf === 1)
        ? Math.min(rankTallyBytes - inFlightBytes, 2 * tallyBytes) : rankTallyBytes - inFlightBytes,
    },
    { name: 'field-slab reduction', bytes: deviceFinalize ? 0 : shape.tuplesPerCall * shape.numGroups * reducePerTally },
    // Dense 3-way: Σ c_x c_y between the unit's blocks (nvl² u32 each), of this unit and the one still in flight.
    { name: '3-way pair counts', bytes: pairCountMatrices * nvl * nvl * 4 * (npf > 1 ? 2 : 1) },
    { name: 'kernel threads', bytes: kernelWorkers * WORKER_THREAD_BYTES },
    // Host finalize runs on as many pool threads as the rank has kernel threads (finalize/hostFinalizer.ts).
    { name: 'finalize threads', bytes: deviceFinalize || threads <= 1 ? 0 : threads * FINALIZE_THREAD_BYTES },
    { name: 'kernel scratch', bytes: onGpu ? 0 : Math.max(1, kernelWorkers) * kernelScratchBytes(job, shape, Math.max(1, kernelWorkers)) },
    // Block workers start while the kernel set opens (blockBuild.ts), so both sets of threads exist at once.
    { name: 'block workers', bytes: blockWorkers > 1 ? blockWorkers * WORKER_THREAD_BYTES : 0 },
    { name: 'record buffers', bytes: recordBufferBytes(job, deviceFinalize) },
    // --top N (finalize/topRecordsSink.ts): the rank's buffer of up to 2N records, its sorted copy when cut and the
    // candidates received on rank 0 — about 4N records —, and as much on each finalize thread.
    { name: 'top-N records', bytes: (1 + (deviceFinalize || threads <= 1 ? 0 : threads)) * 4 * (job.top ?? 0) * (numWay + 1) * 4 },
    // A dense-matrix run's panel values, element and staging buffers (finalize/matrixSink.ts).
    { name: 'matrix buffers', bytes: job.matrix == null ? 0 : matrixSinkHostBytes(PAIRS_PER_PANEL, job.matrix.format, { deviceValues: deviceFinalize }) },
    { name: 'GPU staging and read-back', bytes: onGpu ? GPU_RANK_HOST_BYTES + GPU_STAGING_BYTES + Math.min(GPU_OUTPUT_BYTES, tallyBytes) : 0 },
    { name: '4-way column pair planes', bytes: numWay === 4 && deviceFinalize ? quadColumnPlaneBytes(job, shape) : 0 },
  ];
}

/**
 * The column-pair planes a 4-way rank scoring on the device holds at once (pipeline4Device.ts; at most
 * quadColumnPlaneLimit, beyond which it takes the columns in chunks): every pair's same-class plane pairs —
 * epistasis's 2 × 3² of its 6 planes, numPlanes²/2 —, in host memory and resident on the GPU.
 */
function quadColumnPlaneBytes(job: JobSpec, shape: RankMemoryShape): number {
  const numPairs = (job.numVector * (job.numVector - 1)) / 2;
  return Math.min(quadColumnPlaneLimit.maxBytes, numPairs * (shape.numPlanes ** 2 / 2) * shape.wordsPerPlane * 4);
}

/**
 * Dense 3-way pair-count matrices per group alive at once: up to 3 per unit (4 with device finalize's transpose), two
 * units when there are several; device finalize of several groups stacks copies of them (analyses/deviceTriples.ts).
 */
function pairCountMatricesHeld(job: JobSpec, deviceFinalize: boolean, numGroups: number): number {
  const perUnit = job.decomposition.numProcVector === 1 ? 1 : 3;
  const units = job.decomposition.numProcVector === 1 ? 1 : 2;
  const held = perUnit + (deviceFinalize ? 1 : 0);
  return units * (deviceFinalize && numGroups > 1 ? 2 * held : held);
}

/**
 * A CPU kernel thread's scratch (wasm blockedLoops.ts; the native kernel needs less): packed A and B blocks and the
 * C block of its row panel in its wasm memory, and for 3-way its panel's pair products (tally3Task.ts).
 */
export function kernelScratchBytes(job: JobSpec, shape: RankMemoryShape, threadsPerRank: number): number {
  const { numVectorLocal: nvl } = shape;
  const side = Math.floor(Math.sqrt(PAIRS_PER_PANEL));
  // A call's rows and columns: a 2-way panel is at most `side` columns wide; a 3-way slice is nvl × nvl.
  const callCols = Math.min(nvl, job.metricSpec.numWay === 2 ? side : nvl);
  const callRows = Math.min(nvl, Math.max(1, Math.floor(shape.tuplesPerCall / Math.max(1, callCols))));
  const taskRows = 4 * Math.ceil(Math.ceil(callRows / Math.max(1, threadsPerRank)) / 4);
  const ncCols = Math.min(WASM_NC_COLS_MAX, 4 * Math.ceil(callCols / 4));
  const arena = WASM_MC_ROWS * WASM_KC_WORDS * 4 + ncCols * WASM_KC_WORDS * 4 + Math.min(WASM_C_BLOCK_BYTES_MAX, taskRows * ncCols * 4);
  const products = job.metricSpec.numWay === 3 ? taskRows * shape.triplePlanePairs * shape.wordsPerPlane * 4 : 0;
  return Math.max(arena, NATIVE_AMX_SCRATCH_BYTES) + products;
}

/** Records buffered on their way to the file: the sink's and the writer's buffers, and device finalize's read-backs. */
function recordBufferBytes(job: JobSpec, deviceFinalize: boolean): number {
  // Every sink has its buffer, written or not.
  const sinkBytes = RECORDS_PER_FLUSH * (job.metricSpec.numWay + 1) * 4;
  if (job.outputStub === null) return sinkBytes;
  const deviceRecords = job.metricSpec.numWay === 2 ? GPU_RECORD_BYTES_2 : GPU_RECORD_BYTES_3;
  return sinkBytes + WRITE_BUFFER_BYTES + (deviceFinalize ? GPU_FINALIZE_SETS * deviceRecords : 0);
}

/** Device terms of one GPU rank. */
function rankDeviceTerms(job: JobSpec, shape: RankMemoryShape, context: MemoryEstimateContext): MemoryTerm[] {
  const { blockBytes, maxReceivedBlocks: received, numVectorLocal: nvl, wordsPerPlane } = shape;
  const deviceFinalize = mayFinalizeOnDevice(job, shape);
  const numWay = job.metricSpec.numWay;
  // With device finalize and no records 2-way panels grow to DEVICE_PAIRS_PER_PANEL; a top-N run's to what the kernel
  // set's rate asks (pipeline2.ts topPairsPerPanel; webgpu: at most 1024 u8 tiles, TOP_DEVICE_PAIRS_PER_PANEL). Their
  // output stays within 1 GiB.
  const top = (job.top ?? null) !== null;
  const largePanels = numWay === 2 && deviceFinalize && (job.outputStub === null || top) && job.matrix == null;
  const tuplesPerCall = largePanels
    ? Math.min(job.outputStub === null ? DEVICE_PAIRS_PER_PANEL : TOP_DEVICE_PAIRS_PER_PANEL, nvl * nvl)
    : numWay === 3 && deviceFinalize ? Math.min(shape.tuplesPerRank, Math.floor(DEVICE_TALLY_BYTES_PER_CALL / (4 * shape.numGroups))) : shape.tuplesPerCall;
  const outputBytes = Math.min(deviceFinalize ? GPU_DEVICE_OUTPUT_BYTES : GPU_OUTPUT_BYTES, tuplesPerCall * shape.numGroups * 4);
  const heldBytes = (1 + received) * blockBytes;
  const pairPlanes = shape.triplePlanePairs;
  return [
    // Every block the rank reads stays resident up to the budget; a prefetched block may come on top of it.
    { name: 'resident planes', bytes: Math.min(heldBytes, Math.max(GPU_RESIDENT_BYTES, blockBytes) + blockBytes) },
    // The shared GEMM output (a power of two) of one sub-block.
    { name: 'GEMM output', bytes: 2 ** Math.ceil(Math.log2(Math.max(16, outputBytes))) },
    // u8 operands: the kept B expansions (a block's planes, or 4-way's column-pair planes, 8 bytes per plane bit at
    // most) and the A expansion of a sub-block (one row is 32 bytes per plane word).
    {
      name: 'u8 expansions',
      bytes: context.gpuExpandsToU8
        ? Math.min(GPU_KEPT_EXPANSION_BYTES, 8 * Math.max(nvl * shape.numPlanes * wordsPerPlane * 4, numWay === 4 && deviceFinalize ? quadColumnPlaneBytes(job, shape) : 0))
          + Math.min(GPU_EXPANDED_BYTES, nvl * shape.numPlanes * wordsPerPlane * 32)
        : 0,
    },
    { name: '3-way pair products', bytes: numWay === 3 ? Math.min(GPU_STACK_PRODUCT_BYTES, nvl * nvl * pairPlanes * wordsPerPlane * 4) : 0 },
    { name: '3-way pair counts', bytes: numWay === 3 && deviceFinalize ? shape.pairCountGroups * GPU_RESIDENT_PAIR_COUNTS * nvl * nvl * 4 : 0 },
    {
      name: 'finalize scratch',
      bytes: deviceFinalize
        ? GPU_FINALIZE_SETS * (GPU_FINALIZE_STATUS_BYTES + (job.outputStub === null ? 0 : numWay === 2 ? GPU_RECORD_BYTES_2 : GPU_RECORD_BYTES_3))
        : 0,
    },
    // 2-way records: a pass mask and pass values per pair of a panel (webgpu pairFinalizeWebgpu.ts pairRecordScratchBytes).
    { name: 'finalize pass scratch', bytes: numWay === 2 && deviceFinalize && job.outputStub !== null ? 2 ** Math.ceil(Math.log2(Math.max(1, 20 * tuplesPerCall))) : 0 },
    // 4-way: pass masks and values of a request of up to 1024 u8 tiles of pairs (pipeline4Device.ts, fullRatePairs).
    { name: '4-way pass scratch', bytes: numWay === 4 && deviceFinalize && job.outputStub !== null ? 20 * Math.min(2 ** 25, shape.tuplesPerRank) : 0 },
    { name: '4-way column pair planes', bytes: numWay === 4 && deviceFinalize ? quadColumnPlaneBytes(job, shape) : 0 },
    { name: 'matrix values', bytes: deviceFinalize && job.matrix != null ? matrixSinkDeviceBytes(PAIRS_PER_PANEL, job.matrix.format) : 0 },
    // Per-vector finalize words (32 bytes) and sums of every block held.
    { name: 'vector words', bytes: (1 + received) * nvl * 64 },
  ];
}
