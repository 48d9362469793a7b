// The popcount-GEMM on a WebGPU device (any adapter, lavapipe included). Operands stay resident on the
// GPU; a request is cut into sub-blocks that respect the binding and dispatch limits; each sub-block is
// computed by the bitwise tally program, or — where the adapter has u8 subgroup matrices (tensor cores)
// — by expanding each factored term group into u8 count operands and one integer GEMM per group.
// 3-way requests (run3) build their pair-product operands on the GPU and reuse these plans (tally3Webgpu.ts).

import { UserError } from '../../../src/core/errors.js';
import type {
  ComputeDevice, PlaneMatrix, PlanePair, PopcountGemm, PopcountGemm3Request, PopcountGemm3Result, PopcountGemmRequest, PopcountGemmResult,
  TermGroup,
} from '../../contract.js';
import type { PairFinalizeRequest, PairFinalizeResult } from '../../pairFinalize.js';
import { checkPopcountGemmRequest } from '../../requestChecks.js';
import type { TripleFinalizeRequest, TripleFinalizeResult } from '../../tripleFinalize.js';
import { createExpandProgram, EXPAND_WORKGROUP } from './expandProgram.js';
import { createFinalize2Program, FINALIZE2_PARTIAL_WORDS, FINALIZE2_STATUS_WORDS, type Finalize2Program } from './finalize2Program.js';
import { createFinalize3Program, type Finalize3Program } from './finalize3Program.js';
import { adapterHasSubgroupMatrix, describeAdapter, openGpuDevice, requestGpuAdapter, type GpuCapabilities } from './gpuAdapter.js';
import { chooseKernelFamily, factorGroup, type KernelFamily } from './kernelChoice.js';
import { finalizeDispatch, finalizeTiles, sortedRecords, sumPartials } from './pairFinalizeWebgpu.js';
import { createPairProductProgram } from './pairProductProgram.js';
import { OUTPUT_BYTES_PER_DISPATCH, scatter, type RequestPlan, type SubBlock } from './requestPlan.js';
import { ResidentPlanes, type PlaneChunk } from './residentPlanes.js';
import { chooseTally2Geometry } from './tally2Geometry.js';
import { createTally2Program, type Tally2Program } from './tally2Program.js';
import { finalizeTally3, runTally3, timeTally3Kernels, type Finalize3Host, type Tally3Host } from './tally3Webgpu.js';
import { createU8GemmProgram, DEFAULT_U8_STAGING, U8_GEMM_COL_TILE, U8_GEMM_ROW_TILE, type U8GemmProgram, type U8GemmStaging } from './u8GemmProgram.js';
import { ResidentPairCounts } from './tripleFinalizeWebgpu.js';
import { WebgpuRunner, type Dispatch, type TransferStatistics } from './webgpuRunner.js';
import type { WgslProgram } from './wgslProgram.js';

/** Kernel set names: `webgpu-` and the family that runs factorable requests (bitwise, subgroup-matrix or dot4). */
export const WEBGPU_KERNEL_SET_PREFIX = 'webgpu-';

export interface WebgpuPopcountGemmOptions {
  /**
   * Largest storage binding used, in bytes (default and ceiling: the device's limit). Tests set it
   * small to drive operands and outputs through several chunks and sub-blocks.
   */
  readonly maxBindingBytes?: number;
  /** GPU bytes of resident operands before the least recently used are freed (default 4 GiB). */
  readonly residentBytes?: number;
  /** Kernel family (default `auto`: tensor cores when the adapter has them, see kernelChoice.ts). */
  readonly kernel?: KernelFamily | 'auto';
  /** Workgroup-memory staging of the tensor-core kernel (default DEFAULT_U8_STAGING); benchmarks sweep it. */
  readonly u8Staging?: U8GemmStaging;
  /** Which of the host's GPUs: slot modulo their number (the node-local rank; default: the first GPU). */
  readonly gpuSlot?: number;
  /**
   * Output bytes read back per submit of a 3-way request (default and ceiling OUTPUT_BYTES_PER_DISPATCH,
   * or the device's buffer size). Tests set it small to drive many slices through several submits.
   */
  readonly maxReadBackBytes?: number;
}

const DEFAULT_RESIDENT_BYTES = 4 * 2 ** 30;
/** Bytes of one expanded u8 operand (rows × 32·wordsPerPlane): bounds the rows of a u8 sub-block. */
const EXPANDED_BYTES = 512 << 20;

/** Records room of the first finalize request; grown to what a request needed when it overflows. */
const INITIAL_RECORD_CAPACITY = 1 << 16;

/** Opens the adapter's device; a missing adapter is a UserError naming what is needed. */
export async function createPopcountGemmWebgpu(options: WebgpuPopcountGemmOptions = {}): Promise<PopcountGemmWebgpu> {
  const choice = await requestGpuAdapter(options.gpuSlot);
  if (choice === null) {
    throw new UserError('--backend webgpu: no WebGPU adapter found (a GPU with a Vulkan driver, or the Vulkan CPU driver lavapipe, is needed)');
  }
  const opened = await openGpuDevice(choice.adapter);
  return new PopcountGemmWebgpu(new WebgpuRunner(opened), options);
}

/** Whether a WebGPU adapter exists (for `--backend auto`), its description, and whether it has tensor cores. */
export async function probeWebgpu(): Promise<{ available: boolean; description: string; hasSubgroupMatrix: boolean }> {
  const choice = await requestGpuAdapter();
  return choice === null
    ? { available: false, description: 'no WebGPU adapter', hasSubgroupMatrix: false }
    : { available: true, description: describeAdapter(choice.adapter), hasSubgroupMatrix: adapterHasSubgroupMatrix(choice.adapter) };
}

const padRows = (n: number): number => Math.ceil(n / U8_GEMM_ROW_TILE) * U8_GEMM_ROW_TILE;
const padCols = (n: number): number => Math.ceil(n / U8_GEMM_COL_TILE) * U8_GEMM_COL_TILE;

export class PopcountGemmWebgpu implements PopcountGemm {
  readonly name: string;
  /** The GPU is driven from the calling thread. */
  readonly numThreads = 1;
  private readonly maxBindingBytes: number;
  private readonly resident: ResidentPlanes;
  private readonly kernel: KernelFamily | 'auto';
  private readonly u8Staging: U8GemmStaging;
  private readonly maxReadBackBytes: number;
  private readonly programs = new Map<string, WgslProgram>();
  private readonly scratch = new Map<string, GPUBuffer>();
  /** Per-vector finalize words on the device, by the host array they came from (tiny: 32 bytes per vector). */
  private readonly vectorWords = new WeakMap<Uint32Array, GPUBuffer>();
  private readonly vectorWordBuffers: GPUBuffer[] = [];
  private recordCapacity = INITIAL_RECORD_CAPACITY;
  /** Dense 3-way T[cmc] block-pair matrices on the device (tripleFinalizeWebgpu.ts). */
  private readonly pairCounts: ResidentPairCounts;
  /** Scratch buffers replaced by larger ones during a request: destroyed when it ends (dispatches may still use them). */
  private retiredScratch: GPUBuffer[] = [];
  /** Requests run one after another: they share the output and scratch buffers. */
  private queue: Promise<unknown> = Promise.resolve();
  private closed = false;

  constructor(private readonly runner: WebgpuRunner, options: WebgpuPopcountGemmOptions) {
    const caps = runner.capabilities;
    this.maxBindingBytes = Math.min(caps.maxStorageBufferBindingSize, options.maxBindingBytes ?? caps.maxStorageBufferBindingSize);
    this.resident = new ResidentPlanes(runner, this.maxBindingBytes, options.residentBytes ?? DEFAULT_RESIDENT_BYTES);
    this.kernel = options.kernel ?? 'auto';
    this.u8Staging = options.u8Staging ?? DEFAULT_U8_STAGING;
    this.maxReadBackBytes = Math.min(OUTPUT_BYTES_PER_DISPATCH, caps.maxBufferSize, options.maxReadBackBytes ?? OUTPUT_BYTES_PER_DISPATCH);
    const family = this.kernel === 'auto' ? (caps.hasSubgroupMatrix ? 'subgroup-matrix' : 'bitwise') : this.kernel;
    this.name = `${WEBGPU_KERNEL_SET_PREFIX}${family}`;
    this.pairCounts = new ResidentPairCounts(runner);
  }

  /** The adapter this kernel set runs on and the limits it tiles from. */
  get capabilities(): GpuCapabilities {
    return this.runner.capabilities;
  }

  /** Bytes uploaded to and read back from the device so far (TransferStatistics of the runner). */
  get transfers(): TransferStatistics {
    return this.runner.transfers;
  }

  get device(): ComputeDevice {
    const { description, position } = this.runner.capabilities;
    return { description, gpuIndex: position?.index ?? null, gpuCount: position?.count ?? null };
  }

  run(request: PopcountGemmRequest): Promise<PopcountGemmResult> {
    return this.enqueue(() => this.runNow(request));
  }

  run3(request: PopcountGemm3Request): Promise<PopcountGemm3Result> {
    return this.enqueue(() => {
      if (this.closed) throw new Error(`${this.name}: run3() after close()`);
      return runTally3(this.tally3Host(), request);
    });
  }

  /** Kernel-only timing of a 3-way request (as timeKernels): the seconds of each repetition of all its dispatches. */
  timeKernels3(request: PopcountGemm3Request, repetitions: number): Promise<{ seconds: number[]; family: KernelFamily }> {
    return this.enqueue(() => timeTally3Kernels(this.tally3Host(), request, repetitions));
  }

  /** Requests run one after another; scratch buffers replaced during one are freed after it. */
  private enqueue<R>(work: () => Promise<R>): Promise<R> {
    const result = this.queue.then(work).finally(() => {
      for (const b of this.retiredScratch.splice(0)) b.destroy();
    });
    this.queue = result.catch(() => undefined);
    return result;
  }

  /** What 3-way device finalize uses of this kernel set. */
  private finalize3Host(): Finalize3Host {
    return {
      ...this.tally3Host(),
      finalize3Program: (sparse) => this.finalize3Program(sparse),
      pairCountsBuffer: (data) => this.pairCounts.bufferOf(data),
      recordCapacity: (wantsRecords) => this.recordCapacityFor(wantsRecords),
      submitFinalize: (dispatches, buffers, numPartials, recordCapacity, wantsRecords) =>
        this.submitFinalize(dispatches, buffers, numPartials, recordCapacity, wantsRecords),
    };
  }

  /** What the 3-way driver uses of this kernel set. */
  private tally3Host(): Tally3Host {
    return {
      runner: this.runner, resident: this.resident, maxBindingBytes: this.maxBindingBytes, maxReadBackBytes: this.maxReadBackBytes,
      plan: (request, aChunks) => this.plan(request, aChunks),
      scratchBuffer: (name, numBytes) => this.scratchBuffer(name, numBytes),
      pairProductProgram: (numPlanesX, numPlanesY, pairs) => this.pairProductProgram(numPlanesX, numPlanesY, pairs),
    };
  }

  /**
   * Kernel-only timing: runs the request's dispatches `repetitions` times (one submit each, no read-back)
   * and returns the seconds of each repetition and the kernel family. Operands are uploaded before the first.
   */
  async timeKernels(request: PopcountGemmRequest, repetitions: number): Promise<{ seconds: number[]; family: KernelFamily }> {
    checkPopcountGemmRequest(request);
    const plan = await this.plan(request);
    if (plan === null) return { seconds: [], family: 'bitwise' };
    const output = this.outputFor(plan, request.termGroups.length);
    const dispatches = plan.blocks.flatMap((block) => plan.dispatchesOf(block, output));
    await this.runner.runDispatches(dispatches);
    const seconds: number[] = [];
    for (let rep = 0; rep < repetitions; rep++) {
      const start = performance.now();
      await this.runner.runDispatches(dispatches);
      seconds.push((performance.now() - start) / 1000);
    }
    return { seconds, family: plan.family };
  }

  /**
   * Upload timing: seconds to put `words` into a new storage buffer and have the GPU hold it, by one of the
   * runner's ways in (`mapped`: mapped at creation, the default; `staged`: a ring of staging buffers;
   * `writes`: queue.writeBuffer pieces). The buffer is freed after.
   */
  timeUpload(words: Uint32Array, how: 'mapped' | 'staged' | 'writes'): Promise<number> {
    return this.enqueue(async () => {
      const start = performance.now();
      const buffer = how === 'mapped' ? this.runner.createStorageBufferFrom(words, { readBack: false })
        : how === 'staged' ? await this.runner.createStorageBufferStaged(words, { readBack: false })
          : this.runner.createStorageBufferByWrites(words, { readBack: false });
      await this.runner.idle();
      const seconds = (performance.now() - start) / 1000;
      buffer.destroy();
      return seconds;
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.queue;
    this.resident.clear();
    this.pairCounts.clear();
    for (const b of this.scratch.values()) b.destroy();
    for (const b of this.vectorWordBuffers) b.destroy();
    this.runner.destroy();
  }

  /** 2-way finalize on the device (mgemm/pairFinalize.ts); queued behind earlier requests like `run`. */
  finalizePairs(request: PairFinalizeRequest): Promise<PairFinalizeResult> {
    return this.enqueue(() => this.finalizePairsNow(request));
  }

  /**
   * One submit: per sub-block the GEMM's dispatches, then the finalize dispatch on the output it left; then the
   * status and partials come back, and the records when there are any. Records that overflowed their buffer
   * make the request run again with room for all of them.
   */
  private async finalizePairsNow(request: PairFinalizeRequest): Promise<PairFinalizeResult> {
    if (this.closed) throw new Error(`${this.name}: finalizePairs() after close()`);
    checkPopcountGemmRequest(request.gemm);
    const plan = await this.plan(request.gemm);
    if (plan === null) return { kind: 'done', checksumSum: 0n, entries: 0, zeros: 0, records: { count: 0, words: new Uint32Array(0) } };
    const program = this.finalize2Program(request.formula.sparse);
    await this.runner.pipelineFor(program);
    const tiles = plan.blocks.map((blk) => finalizeTiles({ ...blk, ...plan.shapeOf(blk) }).numTiles);
    const numTiles = tiles.reduce((sum, n) => sum + n, 0);
    const recordCapacity = this.recordCapacityFor(request.records);
    const output = this.outputFor(plan, request.gemm.termGroups.length);
    const buffers = {
      tallies: output,
      rowVectors: this.vectorWordsBuffer(request.rowVectors),
      colVectors: this.vectorWordsBuffer(request.colVectors),
      partials: this.scratchBuffer('partials', numTiles * FINALIZE2_PARTIAL_WORDS * 4),
      status: this.scratchBuffer('status', FINALIZE2_STATUS_WORDS * 4),
      records: this.scratchBuffer('records', recordCapacity * 8),
    };
    let partialFirst = 0;
    const dispatches = plan.blocks.flatMap((blk, k) => {
      const finalize = finalizeDispatch(program, request, { ...blk, ...plan.shapeOf(blk) }, buffers, {
        partialFirst, recordCapacity, maxWorkgroupsPerDimension: this.runner.capabilities.maxComputeWorkgroupsPerDimension,
      });
      partialFirst += tiles[k];
      return [...plan.dispatchesOf(blk, output), finalize];
    });
    return await this.submitFinalize(dispatches, buffers, numTiles, recordCapacity, request.records) ?? this.finalizePairsNow(request);
  }

  /**
   * 3-way finalize on the device (mgemm/tripleFinalize.ts): pair products built on the GPU, the GEMMs and the
   * finalize of every slice of the request (tally3Webgpu.ts finalizeTally3); queued behind earlier requests.
   */
  finalizeTriples(request: TripleFinalizeRequest): Promise<TripleFinalizeResult> {
    return this.enqueue(() => {
      if (this.closed) throw new Error(`${this.name}: finalizeTriples() after close()`);
      return finalizeTally3(this.finalize3Host(), request);
    });
  }

  /** Records room of the next finalize submit: what the last overflow needed, within one binding. */
  private recordCapacityFor(wantsRecords: boolean): number {
    const maxRecords = Math.floor(this.runner.capabilities.maxStorageBufferBindingSize / 8);
    return wantsRecords ? Math.min(this.recordCapacity, maxRecords) : 0;
  }

  /**
   * The end 2-way and 3-way device finalize share: zeroes the status, submits `dispatches`, reads the status and
   * the partials (2-way layout) back, then the records. Records that overflowed their buffer grow its capacity
   * and give null: the caller runs its request again with room for all of them.
   */
  private async submitFinalize(
    dispatches: readonly Dispatch[], buffers: { readonly partials: GPUBuffer; readonly status: GPUBuffer; readonly records: GPUBuffer },
    numPartials: number, recordCapacity: number, wantsRecords: boolean,
  ): Promise<PairFinalizeResult | null> {
    this.runner.upload(buffers.status, new Uint32Array(FINALIZE2_STATUS_WORDS));
    const [status, partials] = await this.runner.runAndReadBackMany(dispatches, [
      { buffer: buffers.status, numBytes: FINALIZE2_STATUS_WORDS * 4 },
      { buffer: buffers.partials, numBytes: numPartials * FINALIZE2_PARTIAL_WORDS * 4 },
    ]);
    if (status[1] !== 0) return { kind: 'needsHost', reason: 'a passing value outside [0, 16)' };
    const numRecords = wantsRecords ? status[0] : 0;
    if (numRecords > recordCapacity) {
      const maxRecords = Math.floor(this.runner.capabilities.maxStorageBufferBindingSize / 8);
      if (numRecords > maxRecords) return { kind: 'needsHost', reason: `${numRecords} records exceed one binding` };
      this.recordCapacity = numRecords;
      return null;
    }
    const [recordWords] = numRecords === 0 ? [new Uint32Array(0)]
      : await this.runner.runAndReadBackMany([], [{ buffer: buffers.records, numBytes: numRecords * 8 }]);
    return { kind: 'done', ...sumPartials(partials, numPartials), records: sortedRecords(recordWords, numRecords) };
  }

  private async runNow(request: PopcountGemmRequest): Promise<PopcountGemmResult> {
    if (this.closed) throw new Error(`${this.name}: run() after close()`);
    checkPopcountGemmRequest(request);
    const outputs = request.termGroups.map(() => new Uint32Array(request.aCount * request.bCount));
    const plan = await this.plan(request);
    if (plan === null) return outputs;
    const output = this.outputFor(plan, outputs.length);
    for (const block of plan.blocks) {
      const shape = plan.shapeOf(block);
      const words = await this.runner.runAndReadBack(plan.dispatchesOf(block, output), output, shape.groupWords * outputs.length * 4);
      scatter(words, block, request, outputs, shape);
    }
    return outputs;
  }

  /** The output scratch buffer, large enough for the plan's largest sub-block. */
  private outputFor(plan: RequestPlan, numGroups: number): GPUBuffer {
    return this.scratchBuffer('output', Math.max(0, ...plan.blocks.map((blk) => plan.shapeOf(blk).groupWords)) * numGroups * 4);
  }

  /**
   * The plan of a request, or null when there is nothing to compute (all outputs zero). `aChunks`, when
   * given, are A's rows on the GPU (3-way pair products; `request.a` then only carries their shape).
   */
  private async plan(request: PopcountGemmRequest, aChunks?: readonly PlaneChunk[]): Promise<RequestPlan | null> {
    const { termGroups } = request;
    if (request.aCount === 0 || request.bCount === 0 || termGroups.every((g) => g.length === 0)) return null;
    let family = chooseKernelFamily(this.kernel, termGroups, this.runner.capabilities);
    const kBytes = request.a.wordsPerPlane * 32;
    const expandRows = Math.floor(Math.min(EXPANDED_BYTES, this.maxBindingBytes) / kBytes / U8_GEMM_COL_TILE) * U8_GEMM_COL_TILE;
    // The u8 kernels work on rows padded to 128 and columns padded to 256: when 256 expanded rows or one
    // padded tile of every group's output do not fit a binding, the bitwise kernel (no expansion, no
    // padding) takes the request.
    const tileOutBytes = termGroups.length * U8_GEMM_ROW_TILE * U8_GEMM_COL_TILE * 4;
    if (family !== 'bitwise' && (expandRows < U8_GEMM_COL_TILE || tileOutBytes > Math.min(this.maxBindingBytes, OUTPUT_BYTES_PER_DISPATCH))) family = 'bitwise';
    return family === 'bitwise' ? this.planBitwise(request, aChunks) : this.planU8(request, family, expandRows, aChunks);
  }

  private async planBitwise(request: PopcountGemmRequest, aChunks: readonly PlaneChunk[] | undefined): Promise<RequestPlan> {
    const { termGroups, a, b } = request;
    const program = this.tally2Program(termGroups, a, b);
    await this.runner.pipelineFor(program);
    const numGroups = termGroups.length;
    const maxGroups = this.runner.capabilities.maxComputeWorkgroupsPerDimension;
    const blocks = this.subBlocks(request, aChunks, {
      maxRows: maxGroups * program.tileRows, maxCols: maxGroups * program.tileCols, rowUnit: 1, colUnit: 1,
      outWords: (rows, cols) => numGroups * rows * cols,
    });
    return {
      family: 'bitwise', blocks,
      shapeOf: (blk) => ({ groupWords: blk.numRows * blk.numCols, rowStride: blk.numCols }),
      dispatchesOf: (blk, output) => [{
        program,
        storage: [blk.aChunk.buffer, blk.bChunk.buffer, output],
        uniforms: {
          aRowFirst: blk.rowFirst - blk.aChunk.firstRow, aCount: blk.numRows,
          bRowFirst: blk.colFirst - blk.bChunk.firstRow, bCount: blk.numCols,
          vec4PerPlane: a.wordsPerPlane / 4, skipBelowDiagonal: request.strictUpper ? 1 : 0,
          diagonalOffset: blk.rowFirst - blk.colFirst,
        },
        workgroups: [Math.ceil(blk.numCols / program.tileCols), Math.ceil(blk.numRows / program.tileRows)],
      }],
    };
  }

  /**
   * Per sub-block and group g: expand A's rows and B's columns into u8 counts (Σ of the group's
   * planes), then one u8 GEMM into group g's padded output. Padded rows and columns are zero.
   */
  private async planU8(
    request: PopcountGemmRequest, family: 'subgroup-matrix' | 'dot4', expandRows: number, aChunks: readonly PlaneChunk[] | undefined,
  ): Promise<RequestPlan> {
    const { termGroups, a, b } = request;
    const numGroups = termGroups.length;
    const gemm = this.u8GemmProgram(family);
    await this.runner.pipelineFor(gemm);
    const factors = termGroups.map((g) => {
      const f = factorGroup(g);
      if (f === null) throw new Error('u8 kernels need factored term groups');
      return { f, expandA: this.expandProgram(a.numPlanes, f.aPlanes), expandB: this.expandProgram(b.numPlanes, f.bPlanes) };
    });
    for (const { expandA, expandB } of factors) {
      await this.runner.pipelineFor(expandA);
      await this.runner.pipelineFor(expandB);
    }
    const maxGroups = this.runner.capabilities.maxComputeWorkgroupsPerDimension;
    const blocks = this.subBlocks(request, aChunks, {
      maxRows: Math.min(expandRows, maxGroups * gemm.tileRows), maxCols: Math.min(expandRows, maxGroups * gemm.tileCols),
      rowUnit: U8_GEMM_ROW_TILE, colUnit: U8_GEMM_COL_TILE, outWords: (rows, cols) => numGroups * padRows(rows) * padCols(cols),
    });
    const maxRows = Math.max(0, ...blocks.map((blk) => padRows(blk.numRows)));
    const maxCols = Math.max(0, ...blocks.map((blk) => padCols(blk.numCols)));
    const kBytes = a.wordsPerPlane * 32;
    const expandedA = this.scratchBuffer('expandedA', maxRows * kBytes);
    const expandedB = this.scratchBuffer('expandedB', maxCols * kBytes);
    const expand = (program: WgslProgram, chunk: PlaneChunk, first: number, count: number, numRowsPad: number, target: GPUBuffer): Dispatch => {
      const numWorkgroups = Math.ceil((numRowsPad * a.wordsPerPlane * 8) / EXPAND_WORKGROUP);
      const x = Math.min(numWorkgroups, maxGroups);
      return {
        program, storage: [chunk.buffer, target],
        uniforms: { rowFirst: first - chunk.firstRow, numRows: count, numRowsPad, wordsPerPlane: a.wordsPerPlane, numWorkgroupsX: x },
        workgroups: [x, Math.ceil(numWorkgroups / x)],
      };
    };
    return {
      family, blocks,
      shapeOf: (blk) => ({ groupWords: padRows(blk.numRows) * padCols(blk.numCols), rowStride: padCols(blk.numCols) }),
      dispatchesOf: (blk, output) => factors.flatMap(({ expandA, expandB }, g) => [
        expand(expandA, blk.aChunk, blk.rowFirst, blk.numRows, padRows(blk.numRows), expandedA),
        expand(expandB, blk.bChunk, blk.colFirst, blk.numCols, padCols(blk.numCols), expandedB),
        {
          program: gemm,
          storage: [expandedA, expandedB, output],
          uniforms: {
            kBytes, outStride: padCols(blk.numCols), outOffset: g * padRows(blk.numRows) * padCols(blk.numCols),
            skipBelowDiagonal: request.strictUpper ? 1 : 0, diagonalOffset: blk.rowFirst - blk.colFirst,
          },
          workgroups: [padCols(blk.numCols) / gemm.tileCols, padRows(blk.numRows) / gemm.tileRows],
        },
      ]),
    };
  }

  /**
   * Cuts the request along A's and B's resident chunks, then into sub-blocks of at most maxRows ×
   * maxCols whose outputs fit one binding and the per-dispatch read-back bound. Sub-blocks wholly
   * below the diagonal of a strictUpper request are left out.
   */
  private subBlocks(request: PopcountGemmRequest, givenAChunks: readonly PlaneChunk[] | undefined, limits: {
    readonly maxRows: number; readonly maxCols: number;
    /** Sub-block rows and columns are multiples of these (except the last). */
    readonly rowUnit: number; readonly colUnit: number;
    readonly outWords: (rows: number, cols: number) => number;
  }): SubBlock[] {
    const pinned = [request.a, request.b];
    const aChunks = givenAChunks ?? this.resident.chunksOf(request.a, pinned);
    const bChunks = this.resident.chunksOf(request.b, pinned);
    const maxOutWords = Math.floor(Math.min(this.maxBindingBytes, OUTPUT_BYTES_PER_DISPATCH) / 4);
    const { rowUnit, colUnit } = limits;
    const roundDown = (n: number, total: number, unit: number): number => (n >= total ? total : Math.max(unit, Math.floor(n / unit) * unit));
    const blocks: SubBlock[] = [];
    for (const aChunk of aChunks) {
      const rowLo = Math.max(request.aFirst, aChunk.firstRow);
      const rowHi = Math.min(request.aFirst + request.aCount, aChunk.firstRow + aChunk.numRows);
      if (rowHi <= rowLo) continue;
      for (const bChunk of bChunks) {
        const colLo = Math.max(request.bFirst, bChunk.firstRow);
        const colHi = Math.min(request.bFirst + request.bCount, bChunk.firstRow + bChunk.numRows);
        if (colHi <= colLo) continue;
        // Columns such that one rowUnit-high block fits (outWords(rowUnit, colUnit) / colUnit words per column).
        const colsFit = Math.floor((maxOutWords * colUnit) / limits.outWords(rowUnit, colUnit));
        const colsPer = roundDown(Math.min(limits.maxCols, colsFit), colHi - colLo, colUnit);
        for (let colFirst = colLo; colFirst < colHi; colFirst += colsPer) {
          const numCols = Math.min(colsPer, colHi - colFirst);
          const rowsFit = Math.floor(maxOutWords / limits.outWords(rowUnit, numCols)) * rowUnit;
          const rowsPer = roundDown(Math.min(limits.maxRows, rowsFit), rowHi - rowLo, rowUnit);
          for (let rowFirst = rowLo; rowFirst < rowHi; rowFirst += rowsPer) {
            const numRows = Math.min(rowsPer, rowHi - rowFirst);
            // Under strictUpper only r < c is needed: a sub-block whose every row is ≥ every column has nothing.
            if (request.strictUpper && rowFirst >= colFirst + numCols - 1) continue;
            blocks.push({ aChunk, bChunk, rowFirst, numRows, colFirst, numCols });
          }
        }
      }
    }
    return blocks;
  }

  private cachedProgram<P extends WgslProgram>(key: string, make: () => P): P {
    let program = this.programs.get(key) as P | undefined;
    if (program === undefined) {
      program = make();
      this.programs.set(key, program);
    }
    return program;
  }

  private tally2Program(termGroups: readonly TermGroup[], a: PlaneMatrix, b: PlaneMatrix): Tally2Program {
    return this.cachedProgram(`tally2/${a.numPlanes}/${b.numPlanes}/${JSON.stringify(termGroups)}`, () => {
      const geometry = chooseTally2Geometry(termGroups.length, a.numPlanes, b.numPlanes, this.runner.capabilities);
      return createTally2Program({ termGroups, numPlanesA: a.numPlanes, numPlanesB: b.numPlanes, geometry });
    });
  }

  private finalize2Program(sparse: boolean): Finalize2Program {
    return this.cachedProgram(`finalize2/${sparse ? 'sparse' : 'dense'}`, () => createFinalize2Program({ sparse }));
  }

  private finalize3Program(sparse: boolean): Finalize3Program {
    return this.cachedProgram(`finalize3/${sparse ? 'sparse' : 'dense'}`, () => createFinalize3Program({ sparse }));
  }

  /** The device copy of per-vector finalize words, uploaded on first use. */
  private vectorWordsBuffer(words: Uint32Array): GPUBuffer {
    let buffer = this.vectorWords.get(words);
    if (buffer === undefined) {
      buffer = this.runner.createStorageBuffer(Math.max(16, words.byteLength), { readBack: false });
      this.runner.upload(buffer, words);
      this.vectorWords.set(words, buffer);
      this.vectorWordBuffers.push(buffer);
    }
    return buffer;
  }

  private u8GemmProgram(family: 'subgroup-matrix' | 'dot4'): U8GemmProgram {
    return this.cachedProgram(`u8gemm/${family}`, () => createU8GemmProgram(family, this.u8Staging));
  }

  private expandProgram(numPlanes: number, planes: readonly number[]): WgslProgram {
    return this.cachedProgram(`expand/${numPlanes}/${planes.join('.')}`, () => createExpandProgram(numPlanes, planes));
  }

  private pairProductProgram(numPlanesX: number, numPlanesY: number, pairs: readonly PlanePair[]): WgslProgram {
    const key = `pairProduct/${numPlanesX}/${numPlanesY}/${pairs.map(([p, q]) => `${p}.${q}`).join('+')}`;
    return this.cachedProgram(key, () => createPairProductProgram(numPlanesX, numPlanesY, pairs));
  }

  /** A named scratch buffer of at least `numBytes`, grown (and replaced) when too small. */
  private scratchBuffer(name: string, numBytes: number): GPUBuffer {
    const existing = this.scratch.get(name);
    if (existing !== undefined && existing.size >= numBytes) return existing;
    if (existing !== undefined) this.retiredScratch.push(existing);
    const buffer = this.runner.createStorageBuffer(Math.max(16, numBytes), { readBack: true });
    this.scratch.set(name, buffer);
    return buffer;
  }
}
