// The popcount-GEMM on a WebGPU device (any adapter, lavapipe included). Operands stay resident on the
// GPU; a request is cut into sub-blocks that respect the binding and dispatch limits; each sub-block is
// computed by the bitwise tally program, or — where the adapter has u8 subgroup matrices (tensor cores)
// — by expanding each factored term group into u8 count operands and one integer GEMM per group.

import { UserError } from '../../../src/core/errors.js';
import type { ComputeDevice, PlaneMatrix, PopcountGemm, PopcountGemmRequest, PopcountGemmResult, TermGroup } from '../../contract.js';
import type { PairFinalizeRequest, PairFinalizeResult } from '../../pairFinalize.js';
import { checkPopcountGemmRequest } from '../../requestChecks.js';
import { tripleRecordKeysFit, type TripleFinalizeRequest, type TripleFinalizeResult } from '../../tripleFinalize.js';
import { createExpandProgram, EXPAND_WORKGROUP } from './expandProgram.js';
import { createFinalize2Program, FINALIZE2_PARTIAL_WORDS, FINALIZE2_STATUS_WORDS, type Finalize2Program } from './finalize2Program.js';
import { createFinalize3Program, type Finalize3Program } from './finalize3Program.js';
import { adapterHasSubgroupMatrix, describeAdapter, openGpuDevice, requestGpuAdapter, type GpuCapabilities } from './gpuAdapter.js';
import { chooseKernelFamily, factorGroup, type KernelFamily } from './kernelChoice.js';
import { finalizeDispatch, finalizeTiles, sortedRecords, sumPartials } from './pairFinalizeWebgpu.js';
import { ResidentPlanes, type PlaneChunk } from './residentPlanes.js';
import { chooseTally2Geometry } from './tally2Geometry.js';
import { createTally2Program, type Tally2Program } from './tally2Program.js';
import { createU8GemmProgram, DEFAULT_U8_STAGING, U8_GEMM_COL_TILE, U8_GEMM_ROW_TILE, type U8GemmProgram, type U8GemmStaging } from './u8GemmProgram.js';
import { finalize3Dispatch, finalize3Workgroups, ResidentPairCounts, uploadSliceWords } from './tripleFinalizeWebgpu.js';
import { WebgpuRunner, type Dispatch } from './webgpuRunner.js';
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
}

/** Output bytes of one dispatch: bounds the read-back buffer (and host copy) of one sub-block. */
const OUTPUT_BYTES_PER_DISPATCH = 256 << 20;
const DEFAULT_RESIDENT_BYTES = 4 * 2 ** 30;
/** Bytes of one expanded u8 operand (rows × 32·wordsPerPlane): bounds the rows of a u8 sub-block. */
const EXPANDED_BYTES = 512 << 20;

/** Records room of the first finalize request; grown to what a request needed when it overflows. */
const INITIAL_RECORD_CAPACITY = 1 << 16;

/** A sub-block of a request: rows [rowFirst, +numRows) of A's chunk against columns [colFirst, +numCols) of B's chunk. */
interface SubBlock {
  readonly aChunk: PlaneChunk;
  readonly bChunk: PlaneChunk;
  /** Row indices of the operand matrices (not of the request). */
  readonly rowFirst: number;
  readonly numRows: number;
  readonly colFirst: number;
  readonly numCols: number;
}

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

/** How a request is computed: the kernel family, its programs and the sub-blocks. */
interface RequestPlan {
  readonly family: KernelFamily;
  readonly blocks: readonly SubBlock[];
  readonly output: GPUBuffer;
  /** Output words of one sub-block per group, and the row stride of each group's output. */
  readonly shapeOf: (block: SubBlock) => { readonly groupWords: number; readonly rowStride: number };
  readonly dispatchesOf: (block: SubBlock) => Dispatch[];
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
  private readonly programs = new Map<string, WgslProgram>();
  private readonly scratch = new Map<string, GPUBuffer>();
  /** Per-vector finalize words on the device, by the host array they came from (tiny: 32 bytes per vector). */
  private readonly vectorWords = new WeakMap<Uint32Array, GPUBuffer>();
  private readonly vectorWordBuffers: GPUBuffer[] = [];
  private recordCapacity = INITIAL_RECORD_CAPACITY;
  /** Dense 3-way T[cmc] block-pair matrices on the device (tripleFinalizeWebgpu.ts). */
  private readonly pairCounts: ResidentPairCounts;
  /** Requests run one after another: they share the output and scratch buffers. */
  private queue: Promise<unknown> = Promise.resolve();
  private closed = false;

  constructor(private readonly runner: WebgpuRunner, options: WebgpuPopcountGemmOptions) {
    const caps = runner.capabilities;
    this.maxBindingBytes = Math.min(caps.maxStorageBufferBindingSize, options.maxBindingBytes ?? caps.maxStorageBufferBindingSize);
    this.resident = new ResidentPlanes(runner, this.maxBindingBytes, options.residentBytes ?? DEFAULT_RESIDENT_BYTES);
    this.kernel = options.kernel ?? 'auto';
    this.u8Staging = options.u8Staging ?? DEFAULT_U8_STAGING;
    const family = this.kernel === 'auto' ? (caps.hasSubgroupMatrix ? 'subgroup-matrix' : 'bitwise') : this.kernel;
    this.name = `${WEBGPU_KERNEL_SET_PREFIX}${family}`;
    this.pairCounts = new ResidentPairCounts(runner);
  }

  /** The adapter this kernel set runs on and the limits it tiles from. */
  get capabilities(): GpuCapabilities {
    return this.runner.capabilities;
  }

  get device(): ComputeDevice {
    const { description, position } = this.runner.capabilities;
    return { description, gpuIndex: position?.index ?? null, gpuCount: position?.count ?? null };
  }

  run(request: PopcountGemmRequest): Promise<PopcountGemmResult> {
    const result = this.queue.then(() => this.runNow(request));
    this.queue = result.catch(() => undefined);
    return result;
  }

  /**
   * Kernel-only timing: runs the request's dispatches `repetitions` times (one submit each, no read-back)
   * and returns the seconds of each repetition and the kernel family. Operands are uploaded before the first.
   */
  async timeKernels(request: PopcountGemmRequest, repetitions: number): Promise<{ seconds: number[]; family: KernelFamily }> {
    checkPopcountGemmRequest(request);
    const plan = await this.plan(request);
    if (plan === null) return { seconds: [], family: 'bitwise' };
    const dispatches = plan.blocks.flatMap((block) => plan.dispatchesOf(block));
    await this.runner.runDispatches(dispatches);
    const seconds: number[] = [];
    for (let rep = 0; rep < repetitions; rep++) {
      const start = performance.now();
      await this.runner.runDispatches(dispatches);
      seconds.push((performance.now() - start) / 1000);
    }
    return { seconds, family: plan.family };
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
    const result = this.queue.then(() => this.finalizePairsNow(request));
    this.queue = result.catch(() => undefined);
    return result;
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
    // Records and partials are finalize's own buffers: bounded by the device's binding limit, not the tiling option.
    const maxRecords = Math.floor(this.runner.capabilities.maxStorageBufferBindingSize / 8);
    const recordCapacity = request.records ? Math.min(this.recordCapacity, maxRecords) : 0;
    const buffers = {
      tallies: plan.output,
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
      return [...plan.dispatchesOf(blk), finalize];
    });
    return await this.submitFinalize(dispatches, buffers, numTiles, recordCapacity, request.records) ?? this.finalizePairsNow(request);
  }

  /** 3-way finalize on the device (mgemm/tripleFinalize.ts); queued behind earlier requests like `run`. */
  finalizeTriples(request: TripleFinalizeRequest): Promise<TripleFinalizeResult> {
    const result = this.queue.then(() => this.finalizeTriplesNow(request));
    this.queue = result.catch(() => undefined);
    return result;
  }

  /** As finalizePairsNow, with the 3-way program: one submit of the GEMM and finalize dispatches of every sub-block. */
  private async finalizeTriplesNow(request: TripleFinalizeRequest): Promise<TripleFinalizeResult> {
    if (this.closed) throw new Error(`${this.name}: finalizeTriples() after close()`);
    checkPopcountGemmRequest(request.gemm);
    const { aCount, bCount } = request.gemm;
    if (request.records && !tripleRecordKeysFit(aCount, bCount)) return { kind: 'needsHost', reason: 'record keys exceed 32 bits' };
    const ik = request.pairCounts?.ik;
    const maxBinding = this.runner.capabilities.maxStorageBufferBindingSize;
    if (ik !== undefined && ik.data.byteLength > maxBinding) return { kind: 'needsHost', reason: 'pair counts exceed one binding' };
    const plan = await this.plan(request.gemm);
    if (plan === null) return { kind: 'done', checksumSum: 0n, entries: 0, zeros: 0, records: { count: 0, words: new Uint32Array(0) } };
    const program = this.finalize3Program(request.formula.sparse);
    await this.runner.pipelineFor(program);
    const workgroups = plan.blocks.map((blk) => finalize3Workgroups(blk));
    const numPartials = workgroups.reduce((sum, n) => sum + n, 0);
    const maxRecords = Math.floor(maxBinding / 8);
    const recordCapacity = request.records ? Math.min(this.recordCapacity, maxRecords) : 0;
    const buffers = {
      tallies: plan.output,
      sliceWords: uploadSliceWords(this.runner, request, (numBytes) => this.scratchBuffer('sliceWords', numBytes)),
      pairIK: ik === undefined ? null : this.pairCounts.bufferOf(ik.data),
      partials: this.scratchBuffer('partials', numPartials * FINALIZE2_PARTIAL_WORDS * 4),
      status: this.scratchBuffer('status', FINALIZE2_STATUS_WORDS * 4),
      records: this.scratchBuffer('records', recordCapacity * 8),
    };
    let partialFirst = 0;
    const dispatches = plan.blocks.flatMap((blk, k) => {
      const finalize = finalize3Dispatch(program, request, { ...blk, ...plan.shapeOf(blk) }, buffers, { partialFirst, recordCapacity });
      partialFirst += workgroups[k];
      return [...plan.dispatchesOf(blk), finalize];
    });
    return await this.submitFinalize(dispatches, buffers, numPartials, recordCapacity, request.records) ?? this.finalizeTriplesNow(request);
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
    for (const block of plan.blocks) {
      const shape = plan.shapeOf(block);
      const words = await this.runner.runAndReadBack(plan.dispatchesOf(block), plan.output, shape.groupWords * outputs.length * 4);
      scatter(words, block, request, outputs, shape);
    }
    return outputs;
  }

  /** The plan of a request, or null when there is nothing to compute (all outputs zero). */
  private async plan(request: PopcountGemmRequest): Promise<RequestPlan | null> {
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
    return family === 'bitwise' ? this.planBitwise(request) : this.planU8(request, family, expandRows);
  }

  private async planBitwise(request: PopcountGemmRequest): Promise<RequestPlan> {
    const { termGroups, a, b } = request;
    const program = this.tally2Program(termGroups, a, b);
    await this.runner.pipelineFor(program);
    const numGroups = termGroups.length;
    const maxGroups = this.runner.capabilities.maxComputeWorkgroupsPerDimension;
    const blocks = this.subBlocks(request, {
      maxRows: maxGroups * program.tileRows, maxCols: maxGroups * program.tileCols, rowUnit: 1, colUnit: 1,
      outWords: (rows, cols) => numGroups * rows * cols,
    });
    const maxWords = Math.max(0, ...blocks.map((blk) => numGroups * blk.numRows * blk.numCols));
    const output = this.scratchBuffer('output', maxWords * 4);
    return {
      family: 'bitwise', blocks, output,
      shapeOf: (blk) => ({ groupWords: blk.numRows * blk.numCols, rowStride: blk.numCols }),
      dispatchesOf: (blk) => [{
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
  private async planU8(request: PopcountGemmRequest, family: 'subgroup-matrix' | 'dot4', expandRows: number): Promise<RequestPlan> {
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
    const blocks = this.subBlocks(request, {
      maxRows: Math.min(expandRows, maxGroups * gemm.tileRows), maxCols: Math.min(expandRows, maxGroups * gemm.tileCols),
      rowUnit: U8_GEMM_ROW_TILE, colUnit: U8_GEMM_COL_TILE, outWords: (rows, cols) => numGroups * padRows(rows) * padCols(cols),
    });
    const maxRows = Math.max(0, ...blocks.map((blk) => padRows(blk.numRows)));
    const maxCols = Math.max(0, ...blocks.map((blk) => padCols(blk.numCols)));
    const kBytes = a.wordsPerPlane * 32;
    const expandedA = this.scratchBuffer('expandedA', maxRows * kBytes);
    const expandedB = this.scratchBuffer('expandedB', maxCols * kBytes);
    const maxWords = Math.max(0, ...blocks.map((blk) => numGroups * padRows(blk.numRows) * padCols(blk.numCols)));
    const output = this.scratchBuffer('output', maxWords * 4);
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
      family, blocks, output,
      shapeOf: (blk) => ({ groupWords: padRows(blk.numRows) * padCols(blk.numCols), rowStride: padCols(blk.numCols) }),
      dispatchesOf: (blk) => factors.flatMap(({ expandA, expandB }, g) => [
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
  private subBlocks(request: PopcountGemmRequest, limits: {
    readonly maxRows: number; readonly maxCols: number;
    /** Sub-block rows and columns are multiples of these (except the last). */
    readonly rowUnit: number; readonly colUnit: number;
    readonly outWords: (rows: number, cols: number) => number;
  }): SubBlock[] {
    const pinned = [request.a, request.b];
    const aChunks = this.resident.chunksOf(request.a, pinned);
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

  /** A named scratch buffer of at least `numBytes`, grown (and replaced) when too small. */
  private scratchBuffer(name: string, numBytes: number): GPUBuffer {
    const existing = this.scratch.get(name);
    if (existing !== undefined && existing.size >= numBytes) return existing;
    existing?.destroy();
    const buffer = this.runner.createStorageBuffer(Math.max(16, numBytes), { readBack: true });
    this.scratch.set(name, buffer);
    return buffer;
  }
}

/** Copies a sub-block's outputs (group after group, `groupWords` apart, rows `rowStride` apart) into the request's outputs. */
function scatter(
  words: Uint32Array, block: SubBlock, request: PopcountGemmRequest, outputs: Uint32Array[],
  shape: { readonly groupWords: number; readonly rowStride: number },
): void {
  const rowOffset = block.rowFirst - request.aFirst;
  const colOffset = block.colFirst - request.bFirst;
  outputs.forEach((out, g) => {
    const src = words.subarray(g * shape.groupWords, (g + 1) * shape.groupWords);
    if (block.numCols === request.bCount && shape.rowStride === block.numCols) {
      out.set(src.subarray(0, block.numRows * block.numCols), rowOffset * request.bCount);
      return;
    }
    for (let r = 0; r < block.numRows; r++) {
      out.set(src.subarray(r * shape.rowStride, r * shape.rowStride + block.numCols), (rowOffset + r) * request.bCount + colOffset);
    }
  });
}
