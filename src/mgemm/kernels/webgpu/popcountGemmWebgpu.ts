// The popcount-GEMM on a WebGPU device (any adapter, lavapipe included). Operands stay resident on the
// GPU; a request is cut into sub-blocks that respect the binding and dispatch limits; each sub-block is
// computed by the bitwise tally program, or — where the adapter has u8 subgroup matrices (tensor cores)
// — by expanding each factored term group into u8 count operands and one integer GEMM per group.
// 3-way requests (run3) build their pair-product operands on the GPU and reuse these plans (tally3Webgpu.ts).
// Requests encode and submit one at a time and are collected outside that turn, so the next request's
// kernels are queued while the last one's results come back; device finalize requests each hold a set of
// finalize buffers (finalizeScratch.ts) until their records are back.

import { traced } from '../../../core/trace.js';
import { UserError } from '../../../core/errors.js';
import type {
  ComputeDevice, PlaneMatrix, PlanePair, PopcountGemm, PopcountGemm3Request, PopcountGemm3Result, PopcountGemmRequest, PopcountGemmResult,
  RunPreview, TermGroup, VectorSums, VectorSumsRequest,
} from '../../contract.js';
import { NO_PAIR_RECORDS, noRecordsToRelease, type PairFinalizeRequest, type PairFinalizeResult, type PairValueProgram } from '../../pairFinalize.js';
import { checkPopcountGemmRequest, checkVectorSumsRequest } from '../../requestChecks.js';
import type { TripleFinalizeRequest, TripleFinalizeResult } from '../../tripleFinalize.js';
import { createExpandProgram, EXPAND_WORKGROUP } from './programs/expandProgram.js';
import { ExpandedOperands } from './operands/expandedOperands.js';
import { createFinalize2Program, type Finalize2Program } from './finalize/finalize2Program.js';
import { FinalizeScratchRing, type FinalizeScratch } from './finalize/finalizeScratch.js';
import { createFinalize3Program, type Finalize3Program } from './finalize/finalize3Program.js';
import { adapterHasSubgroupMatrix, describeAdapter, openGpuDevice, requestGpuAdapter, type GpuCapabilities } from './runtime/gpuAdapter.js';
import { GrowingBuffers } from './runtime/growingBuffers.js';
import { chooseKernelFamily, factorGroup, type KernelFamily } from './plan/kernelChoice.js';
import { finalizeDispatch, finalizeTiles, pairRecordDispatches, pairRecordScratchBytes, pairSlots, type PairRecordPrograms } from './finalize/pairFinalizeWebgpu.js';
import { createPairRecordWritesProgram, createPairSlotCountsProgram, createPairSlotOffsetsProgram } from './finalize/pairRecordPrograms.js';
import { createPairProductProgram } from './programs/pairProductProgram.js';
import { DEVICE_OUTPUT_BYTES_PER_DISPATCH, OUTPUT_BYTES_PER_DISPATCH, scatter, type RequestPlan, type SubBlock } from './plan/requestPlan.js';
import type { TripleSliceCoordinates } from './finalize/recordOrder.js';
import { RecordOrderPool } from './finalize/recordOrderPool.js';
import { ResidentPlanes, type PlaneChunk } from './operands/residentPlanes.js';
import { chooseTally2Geometry } from './plan/tally2Geometry.js';
import { createTally2Program, type Tally2Program } from './programs/tally2Program.js';
import { submitTally3, submitTally3Finalize, timeTally3Kernels, type Finalize3Host, type Tally3Host } from './tally3Webgpu.js';
import { createU8GemmProgram, DEFAULT_U8_STAGING, U8_GEMM_COL_TILE, U8_GEMM_ROW_TILE, type U8GemmProgram, type U8GemmStaging } from './programs/u8GemmProgram.js';
import { planU8Slabs, type U8Slab, type U8SlabPlan } from './plan/u8Slabs.js';
import { ResidentPairCounts } from './finalize/tripleFinalizeWebgpu.js';
import { createVectorSumsProgram } from './programs/vectorSumsProgram.js';
import { foldWorkgroups, settled, WebgpuRunner, type BufferRange, type Dispatch, type Pending, type TransferStatistics } from './runtime/webgpuRunner.js';
import type { WgslProgram } from './programs/wgslProgram.js';

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
  /**
   * Bytes of one expanded u8 operand (default EXPANDED_BYTES; the binding size bounds it too). Tests set it small to
   * cut few fields into K slabs (u8Slabs.ts: a slab's expansion of U8_SLAB_ROWS rows fits it).
   */
  readonly u8ExpansionBytes?: number;
  /** Workgroup-memory staging of the tensor-core kernel (default DEFAULT_U8_STAGING); benchmarks sweep it. */
  readonly u8Staging?: U8GemmStaging;
  /** Which of the host's GPUs: slot modulo their number (the node-local rank; default: the first GPU). */
  readonly gpuSlot?: number;
  /**
   * Output bytes read back per submit of a 3-way request (default and ceiling OUTPUT_BYTES_PER_DISPATCH,
   * or the device's buffer size); with device finalize, output bytes per round of its one submit (rounds reuse
   * the output buffer). Tests set it small to drive many slices through several submits or rounds.
   */
  readonly maxReadBackBytes?: number;
}

const DEFAULT_RESIDENT_BYTES = 4 * 2 ** 30;
/** Bytes of one expanded u8 operand (rows × 32 bytes per plane word of a K slab): bounds the rows of a u8 sub-block. */
const EXPANDED_BYTES = 512 << 20;

/** Opens the adapter's device; a missing adapter is a UserError naming what is needed. */
export async function createPopcountGemmWebgpu(options: WebgpuPopcountGemmOptions = {}): Promise<PopcountGemmWebgpu> {
  const choice = await requestGpuAdapter(options.gpuSlot);
  if (choice === null) {
    throw new UserError('--backend webgpu: no WebGPU adapter found (a GPU with a Vulkan driver, or the Vulkan CPU driver lavapipe, is needed)');
  }
  const opened = await openGpuDevice(choice.adapter);
  return new PopcountGemmWebgpu(new WebgpuRunner(opened), options);
}

/** What probeWebgpu found. */
export interface WebgpuProbe {
  readonly available: boolean;
  /** The adapter, or why there is none. */
  readonly description: string;
  readonly hasSubgroupMatrix: boolean;
  /** A CPU implementation (Dawn's fallback adapter, e.g. lavapipe): correct, but slower than the CPU kernels. */
  readonly isSoftware: boolean;
}

/** Whether a WebGPU adapter exists (for `--backend auto`), its description, and whether it has tensor cores. */
export async function probeWebgpu(): Promise<WebgpuProbe> {
  const choice = await requestGpuAdapter();
  return choice === null
    ? { available: false, description: 'no WebGPU adapter', hasSubgroupMatrix: false, isSoftware: false }
    : {
      available: true,
      description: describeAdapter(choice.adapter),
      hasSubgroupMatrix: adapterHasSubgroupMatrix(choice.adapter),
      isSoftware: choice.adapter.info.isFallbackAdapter,
    };
}

/** A request on the u8 kernels: the family, its K slabs (u8Slabs.ts) and a u8 sub-block's most rows (and columns). */
interface U8Choice {
  readonly family: 'subgroup-matrix' | 'dot4';
  readonly slabPlan: U8SlabPlan;
  readonly expandRows: number;
}

const padRows = (n: number): number => Math.ceil(n / U8_GEMM_ROW_TILE) * U8_GEMM_ROW_TILE;
const padCols = (n: number): number => Math.ceil(n / U8_GEMM_COL_TILE) * U8_GEMM_COL_TILE;

export class PopcountGemmWebgpu implements PopcountGemm {
  readonly name: string;
  /** The GPU is driven from the calling thread. */
  readonly numThreads = 1;
  private readonly maxBindingBytes: number;
  /** Bytes of one expanded u8 operand (within a binding). */
  private readonly expansionBytes: number;
  private readonly resident: ResidentPlanes;
  private readonly kernel: KernelFamily | 'auto';
  private readonly u8Staging: U8GemmStaging;
  private readonly maxReadBackBytes: number;
  private readonly programs = new Map<string, WgslProgram>();
  /**
   * Scratch buffers every request shares (GEMM output, u8 expansions, pair products, slice words): only the
   * dispatches of one submit use what they hold (read-backs copy out in that submit) and the queue runs submits
   * in order, so the next request's submit cannot overwrite them early. One of each, so the GEMM output stays at
   * min(maxBindingBytes, OUTPUT_BYTES_PER_DISPATCH = 256 MiB) however many requests are in flight.
   */
  private readonly scratch: GrowingBuffers<string>;
  /** Whole B chunks expanded into u8 operands, kept across requests (expandedOperands.ts). */
  private readonly expandedOperands: ExpandedOperands;
  /** Status, partials and records of finalize requests in flight: read back after their submit, so one set each. */
  private readonly finalizeScratch: FinalizeScratchRing;
  /** Orders 3-way device-finalize records by key in worker threads (recordOrderPool.ts). */
  private readonly recordOrder = new RecordOrderPool();
  /** Per-vector finalize words on the device, by the host array they came from (tiny: 32 bytes per vector). */
  private readonly vectorWords = new WeakMap<Uint32Array, GPUBuffer>();
  private readonly vectorWordBuffers: GPUBuffer[] = [];
  /** Dense 3-way T[cmc] block-pair matrices on the device (tripleFinalizeWebgpu.ts). */
  private readonly pairCounts: ResidentPairCounts;
  /** Requests encode and submit one at a time (see inTurn); this settles when the latest one has submitted. */
  private turn: Promise<unknown> = Promise.resolve();
  /** Requests whose results are not complete yet: close() waits for them. */
  private readonly requestsInFlight = new Set<Promise<unknown>>();
  private closed = false;

  constructor(private readonly runner: WebgpuRunner, options: WebgpuPopcountGemmOptions) {
    const caps = runner.capabilities;
    this.maxBindingBytes = Math.min(caps.maxStorageBufferBindingSize, options.maxBindingBytes ?? caps.maxStorageBufferBindingSize);
    this.expansionBytes = Math.min(this.maxBindingBytes, options.u8ExpansionBytes ?? EXPANDED_BYTES);
    this.resident = new ResidentPlanes(runner, this.maxBindingBytes, options.residentBytes ?? DEFAULT_RESIDENT_BYTES);
    this.kernel = options.kernel ?? 'auto';
    this.u8Staging = options.u8Staging ?? DEFAULT_U8_STAGING;
    this.maxReadBackBytes = Math.min(OUTPUT_BYTES_PER_DISPATCH, caps.maxBufferSize, options.maxReadBackBytes ?? OUTPUT_BYTES_PER_DISPATCH);
    const family = this.kernel === 'auto' ? (caps.hasSubgroupMatrix ? 'subgroup-matrix' : 'bitwise') : this.kernel;
    this.name = `${WEBGPU_KERNEL_SET_PREFIX}${family}`;
    this.pairCounts = new ResidentPairCounts(runner);
    this.scratch = new GrowingBuffers(runner);
    this.expandedOperands = new ExpandedOperands(runner, this.expansionBytes);
    this.finalizeScratch = new FinalizeScratchRing(runner);
  }

  /** The adapter this kernel set runs on and the limits it tiles from. */
  get capabilities(): GpuCapabilities {
    return this.runner.capabilities;
  }

  /** Bytes uploaded to and read back from the device so far, and the most read-backs pending at once (TransferStatistics). */
  get transfers(): TransferStatistics {
    return this.runner.transfers;
  }

  /** Cache keys of the programs compiled or compiling (tests check that prepareStart covers a run). */
  get compiledPrograms(): readonly string[] {
    return this.runner.compiledProgramKeys;
  }

  get device(): ComputeDevice {
    const { description, position } = this.runner.capabilities;
    return { description, gpuIndex: position?.index ?? null, gpuCount: position?.count ?? null };
  }

  /**
   * Starts compiling every program the requests of `preview` will use, and returns (cold drivers take seconds per
   * program; the engine calls this before it loads its input). A compile error surfaces at the program's first use.
   */
  prepareStart(preview: RunPreview): void {
    let programs: WgslProgram[];
    try {
      programs = this.previewPrograms(preview);
    } catch {
      // A kernel family this adapter cannot run: the first request chooses again and throws the same error.
      return;
    }
    this.runner.compileStart(programs);
  }

  run(request: PopcountGemmRequest): Promise<PopcountGemmResult> {
    return this.submitThenCollect(() => this.submitRun(request));
  }

  run3(request: PopcountGemm3Request): Promise<PopcountGemm3Result> {
    return this.submitThenCollect(() => {
      if (this.closed) throw new Error(`${this.name}: run3() after close()`);
      return submitTally3(this.tally3Host(), request);
    });
  }

  /**
   * Per-vector sums computed where the planes lie: the matrix is uploaded (and stays resident for the requests
   * that follow), one workgroup per row, and only two words per row come back.
   */
  vectorSums(request: VectorSumsRequest): Promise<VectorSums> {
    return this.submitThenCollect(() => this.submitVectorSums(request));
  }

  /** Starts uploading `planes` ahead of the requests that use them (ResidentPlanes.prefetch); returns at once. */
  prefetch(planes: PlaneMatrix, rowsReady?: (rowEnd: number) => Promise<void>): void {
    if (!this.closed) this.resident.prefetch(planes, rowsReady);
  }

  /** 2-way finalize on the device (mgemm/pairFinalize.ts): see submitPairFinalize. */
  finalizePairs(request: PairFinalizeRequest): Promise<PairFinalizeResult> {
    return this.finalizeInTurns((scratch) => this.submitPairFinalize(request, scratch), null);
  }

  /**
   * 3-way finalize on the device (mgemm/tripleFinalize.ts): pair products built on the GPU, the GEMMs and the
   * finalize of every slice of the request (tally3Webgpu.ts submitTally3Finalize).
   */
  finalizeTriples(request: TripleFinalizeRequest): Promise<TripleFinalizeResult> {
    const { xVectorFirst, yVectorFirst, zVectorFirst } = request;
    const slices: TripleSliceCoordinates[] = request.gemm.slices.map(({ yRow, xFirst, xCount, zFirst, zCount }) => ({
      twiceIFirst: 2 * (xVectorFirst + xFirst), twiceJ: 2 * (yVectorFirst + yRow), twiceKFirst: 2 * (zVectorFirst + zFirst), xCount, zCount,
    }));
    return this.finalizeInTurns((scratch) => {
      if (this.closed) throw new Error(`${this.name}: finalizeTriples() after close()`);
      return submitTally3Finalize(this.finalize3Host(scratch), request);
    }, slices);
  }

  /** Kernel-only timing of a 3-way request (as timeKernels): the seconds of each repetition of all its dispatches. */
  timeKernels3(request: PopcountGemm3Request, repetitions: number): Promise<{ seconds: number[]; family: KernelFamily }> {
    return this.tracked(() => this.inTurn(() => timeTally3Kernels(this.tally3Host(), request, repetitions)));
  }

  /**
   * Kernel-only timing: runs the request's dispatches `repetitions` times (one submit each, no read-back)
   * and returns the seconds of each repetition and the kernel family. Operands are uploaded before the first.
   */
  timeKernels(request: PopcountGemmRequest, repetitions: number): Promise<{ seconds: number[]; family: KernelFamily }> {
    return this.tracked(() => this.inTurn(async () => {
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
    }));
  }

  /**
   * Upload timing: seconds to put `words` into a new storage buffer and have the GPU hold it, by one of the
   * runner's ways in (`mapped`: mapped at creation; `staged`: a ring of staging buffers, what resident operands
   * use; `writes`: queue.writeBuffer pieces). The buffer is freed after.
   */
  timeUpload(words: Uint32Array, how: 'mapped' | 'staged' | 'writes'): Promise<number> {
    return this.tracked(() => this.inTurn(async () => {
      const start = performance.now();
      const buffer = how === 'mapped' ? this.runner.createStorageBufferFrom(words, { readBack: false })
        : how === 'staged' ? await this.runner.createStorageBufferStaged(words, { readBack: false })
          : this.runner.createStorageBufferByWrites(words, { readBack: false });
      await this.runner.idle();
      const seconds = (performance.now() - start) / 1000;
      buffer.destroy();
      return seconds;
    }));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await traced('close: requests settled', () => Promise.allSettled([...this.requestsInFlight]));
    await traced('close: buffers freed', async () => {
      await this.resident.clear();
      this.pairCounts.clear();
      this.finalizeScratch.destroy();
      this.scratch.destroy();
      this.expandedOperands.clear();
      for (const b of this.vectorWordBuffers) b.destroy();
    });
    await this.recordOrder.close();
    await traced('close: device destroyed', () => this.runner.destroy());
  }

  /**
   * Requests encode and submit one at a time, in the order they come: they share programs, resident operands
   * and scratch buffers, which a request's encoding may grow or evict. Collecting results happens outside the
   * turn, so the next request's kernels are queued on the GPU while the last one's results come back.
   */
  private inTurn<R>(work: () => Promise<R>): Promise<R> {
    const result = this.turn.then(work);
    this.turn = result.catch(() => undefined);
    return result;
  }

  /** A request until its result is complete (close() waits for it). */
  private tracked<R>(work: () => Promise<R>): Promise<R> {
    const result = work();
    this.requestsInFlight.add(result);
    const forget = (): void => {
      this.requestsInFlight.delete(result);
    };
    result.then(forget, forget);
    return result;
  }

  /** Submits in the request's turn, collects after it. */
  private submitThenCollect<R>(submit: () => Promise<Pending<R>>): Promise<R> {
    return this.tracked(async () => (await this.inTurn(submit)).collect());
  }

  /**
   * A finalize request: takes a scratch set (waiting for the request that held it before to complete), submits in
   * its turn and collects after it; records that overflowed their room make it submit again in a later turn.
   * Records that came back as appended (3-way, with the `slices` they lie in) are put in key order and file layout
   * after the set is handed on.
   */
  private finalizeInTurns(
    submit: (scratch: FinalizeScratch) => Promise<Pending<PairFinalizeResult | null>>, slices: readonly TripleSliceCoordinates[] | null,
  ): Promise<PairFinalizeResult> {
    return this.tracked(async () => {
      const lease = await this.finalizeScratch.acquire();
      let result: PairFinalizeResult | null = null;
      try {
        while (result === null) {
          const pending = await this.inTurn(() => submit(lease.scratch));
          result = await pending.collect();
        }
      } finally {
        lease.release();
      }
      if (slices === null || result.kind !== 'done' || result.records.count === 0) return result;
      // The ordering worker takes its own copy (a mapped read-back cannot be handed to another thread).
      const { count, words, release } = result.records;
      let own: Uint32Array;
      try {
        own = words.slice(0, 2 * count);
      } finally {
        release();
      }
      return { ...result, records: { count, words: await this.recordOrder.order(own, count, slices), release: noRecordsToRelease } };
    });
  }

  /** What 3-way device finalize uses of this kernel set, with the request's finalize scratch set. */
  private finalize3Host(finalizeScratch: FinalizeScratch): Finalize3Host {
    return {
      ...this.tally3Host(),
      finalize3Program: (sparse) => this.finalize3Program(sparse),
      pairCountsBuffer: (data) => this.pairCounts.bufferOf(data),
      finalizeScratch,
    };
  }

  /** What the 3-way driver uses of this kernel set. */
  private tally3Host(): Tally3Host {
    return {
      runner: this.runner, resident: this.resident, maxBindingBytes: this.maxBindingBytes, maxReadBackBytes: this.maxReadBackBytes,
      plan: (request, aChunks, blockOutputBytes) => this.plan(request, aChunks, blockOutputBytes),
      scratchBuffer: (name, numBytes) => this.scratchBuffer(name, numBytes),
      pairProductProgram: (numPlanesX, numPlanesY, pairs) => this.pairProductProgram(numPlanesX, numPlanesY, pairs),
    };
  }

  /**
   * One submit: per sub-block the GEMM's dispatches, then the finalize dispatch on the output it left; with records,
   * the dispatches that write them in key order (pairRecordPrograms.ts). Status, partials and records come back to
   * `scratch` (finalizeScratch.ts).
   */
  private async submitPairFinalize(request: PairFinalizeRequest, scratch: FinalizeScratch): Promise<Pending<PairFinalizeResult | null>> {
    if (this.closed) throw new Error(`${this.name}: finalizePairs() after close()`);
    checkPopcountGemmRequest(request.gemm);
    const plan = await this.plan(request.gemm, undefined, DEVICE_OUTPUT_BYTES_PER_DISPATCH);
    if (plan === null) return settled({ kind: 'done', checksumSum: 0n, entries: 0, zeros: 0, records: NO_PAIR_RECORDS });
    const program = this.finalize2Program(request.values);
    await this.runner.pipelineFor(program);
    const tiles = plan.blocks.map((blk) => finalizeTiles({ ...blk, ...plan.shapeOf(blk) }).numTiles);
    const numTiles = tiles.reduce((sum, n) => sum + n, 0);
    const numPairs = request.gemm.aCount * request.gemm.bCount;
    const scratchBytes = pairRecordScratchBytes(request.records ? numPairs : 0);
    if (scratchBytes.passValues > this.runner.capabilities.maxStorageBufferBindingSize) {
      return settled({ kind: 'needsHost', reason: `pass values of ${numPairs} pairs exceed one binding` });
    }
    const target = scratch.targetFor(numTiles, request.records, 3);
    const output = this.outputFor(plan, request.gemm.termGroups.length);
    const buffers = {
      tallies: output,
      rowVectors: this.vectorWordsBuffer(request.rowVectors),
      colVectors: this.vectorWordsBuffer(request.colVectors),
      passMasks: this.scratchBuffer('passMasks', scratchBytes.passMasks),
      passValues: this.scratchBuffer('passValues', scratchBytes.passValues),
      ...target.buffers,
    };
    const maxWorkgroupsPerDimension = this.runner.capabilities.maxComputeWorkgroupsPerDimension;
    let partialFirst = 0;
    const dispatches = plan.blocks.flatMap((blk, k) => {
      const finalize = finalizeDispatch(program, request, { ...blk, ...plan.shapeOf(blk) }, buffers, { partialFirst, maxWorkgroupsPerDimension });
      partialFirst += tiles[k];
      return [...plan.dispatchesOf(blk, output), finalize];
    });
    if (request.records) {
      const slotOffsets = this.scratchBuffer('slotOffsets', 4 * (pairSlots(numPairs) + 1));
      dispatches.push(...pairRecordDispatches(this.pairRecordPrograms(), request, { ...buffers, slotOffsets },
        { recordCapacity: target.recordCapacity, maxWorkgroupsPerDimension }));
    }
    return scratch.submit(dispatches, target);
  }

  private async submitVectorSums(request: VectorSumsRequest): Promise<Pending<VectorSums>> {
    if (this.closed) throw new Error(`${this.name}: vectorSums() after close()`);
    checkVectorSumsRequest(request);
    const { planes, countPlanes, maskPlane } = request;
    const n = planes.numVectors;
    if (n === 0 || planes.wordsPerPlane === 0) return settled({ sums: new Float64Array(n), counts: new Float64Array(n) });
    const program = this.vectorSumsProgram(planes.numPlanes, request);
    const chunks = await this.resident.chunksOf(planes, [planes], request.rowsReady);
    const output = this.scratchBuffer('vectorSums', 8 * n);
    const maxPerDimension = this.runner.capabilities.maxComputeWorkgroupsPerDimension;
    const dispatches: Dispatch[] = chunks.map((chunk) => {
      const workgroups = foldWorkgroups(chunk.numRows, maxPerDimension);
      return {
        program, storage: [chunk.buffer, output], workgroups,
        uniforms: { numRows: chunk.numRows, outRowFirst: chunk.firstRow, vec4PerPlane: planes.wordsPerPlane / 4, numWorkgroupsX: workgroups[0] },
      };
    });
    const pending = await this.runner.submitWithReadBack(dispatches, [{ buffer: output, numBytes: 8 * n }]);
    return {
      collect: async () => {
        const [words] = await pending.collect();
        const sums = new Float64Array(n);
        const counts = new Float64Array(n);
        for (let r = 0; r < n; r++) {
          sums[r] = words[2 * r];
          counts[r] = words[2 * r + 1];
        }
        return { sums, counts };
      },
    };
  }

  /** A 2-way request's sub-blocks, one submit and read-back each (runner.submitEachWithReadBack), scattered into its outputs. */
  private async submitRun(request: PopcountGemmRequest): Promise<Pending<PopcountGemmResult>> {
    if (this.closed) throw new Error(`${this.name}: run() after close()`);
    checkPopcountGemmRequest(request);
    const outputs = request.termGroups.map(() => new Uint32Array(request.aCount * request.bCount));
    const plan = await this.plan(request);
    if (plan === null) return settled(outputs);
    const output = this.outputFor(plan, outputs.length);
    const pending = await this.runner.submitEachWithReadBack(plan.blocks, (block) => ({
      dispatches: plan.dispatchesOf(block, output),
      reads: [{ buffer: output, numBytes: plan.shapeOf(block).groupWords * outputs.length * 4 }],
    }), (block, [words]) => scatter(words, block, request, outputs, plan.shapeOf(block)));
    return { collect: async () => { await pending.collect(); return outputs; } };
  }

  /** The output scratch buffer, large enough for the plan's largest sub-block. */
  private outputFor(plan: RequestPlan, numGroups: number): GPUBuffer {
    return this.scratchBuffer('output', Math.max(0, ...plan.blocks.map((blk) => plan.shapeOf(blk).groupWords)) * numGroups * 4);
  }

  /**
   * The plan of a request, or null when there is nothing to compute (all outputs zero). `aChunks`, when
   * given, are A's rows on the GPU (3-way pair products; `request.a` then only carries their shape).
   */
  private async plan(
    request: PopcountGemmRequest, aChunks?: readonly PlaneChunk[], blockOutputBytes: number = OUTPUT_BYTES_PER_DISPATCH,
  ): Promise<RequestPlan | null> {
    const { termGroups } = request;
    if (request.aCount === 0 || request.bCount === 0 || termGroups.every((g) => g.length === 0)) return null;
    const choice = this.familyFor(termGroups, request.a.wordsPerPlane);
    await Promise.all(this.gemmPrograms(choice.family, termGroups, request.a.numPlanes, request.b.numPlanes).map((p) => this.runner.pipelineFor(p)));
    return choice.family === 'bitwise' ? this.planBitwise(request, aChunks, blockOutputBytes) : this.planU8(request, choice, aChunks, blockOutputBytes);
  }

  /** The kernel family of 2-way requests with these groups on planes of `wordsPerPlane` words (see U8Choice). */
  private familyFor(termGroups: readonly TermGroup[], wordsPerPlane: number): { readonly family: 'bitwise' } | U8Choice {
    const family = chooseKernelFamily(this.kernel, termGroups, this.runner.capabilities);
    // No fields (a field rank that holds none of them): nothing to expand, and the bitwise kernel writes the zeros.
    if (family === 'bitwise' || wordsPerPlane === 0) return { family: 'bitwise' };
    const slabPlan = planU8Slabs(wordsPerPlane * 32, this.expansionBytes);
    const expandRows = Math.floor(this.expansionBytes / slabPlan.slabBytes / U8_GEMM_COL_TILE) * U8_GEMM_COL_TILE;
    // The u8 kernels work on rows padded to 128 and columns padded to 256: when 256 expanded rows or one
    // padded tile of every group's output do not fit a binding, the bitwise kernel (no expansion, no
    // padding) takes the request.
    const tileOutBytes = termGroups.length * U8_GEMM_ROW_TILE * U8_GEMM_COL_TILE * 4;
    if (expandRows < U8_GEMM_COL_TILE || tileOutBytes > Math.min(this.maxBindingBytes, OUTPUT_BYTES_PER_DISPATCH)) return { family: 'bitwise' };
    return { family, slabPlan, expandRows };
  }

  /** The programs of a 2-way plan of `family` (the plan waits for them; prepareStart compiles them ahead). */
  private gemmPrograms(family: KernelFamily, termGroups: readonly TermGroup[], numPlanesA: number, numPlanesB: number): WgslProgram[] {
    if (family === 'bitwise') return [this.tally2Program(termGroups, numPlanesA, numPlanesB)];
    return [this.u8GemmProgram(family), ...termGroups.flatMap((g) => {
      const f = factorGroup(g);
      if (f === null) throw new Error('u8 kernels need factored term groups');
      return [this.expandProgram(numPlanesA, f.aPlanes), this.expandProgram(numPlanesB, f.bPlanes)];
    })];
  }

  /** Every program the requests of `preview` use (the plans of its 2-way and 3-way requests, its finalize). */
  private previewPrograms(preview: RunPreview): WgslProgram[] {
    const { numPlanes, wordsPerPlane, pairTermGroups, triples, deviceFinalize } = preview;
    const programs: WgslProgram[] = [this.vectorSumsProgram(numPlanes, preview.vectorSums)];
    const addGemm = (termGroups: readonly TermGroup[], numPlanesA: number): void => {
      if (termGroups.every((g) => g.length === 0)) return;
      programs.push(...this.gemmPrograms(this.familyFor(termGroups, wordsPerPlane).family, termGroups, numPlanesA, numPlanes));
    };
    if (deviceFinalize?.kind === 'pairs') {
      programs.push(this.finalize2Program(deviceFinalize.values));
      if (deviceFinalize.records) programs.push(...Object.values(this.pairRecordPrograms()));
    }
    if (deviceFinalize?.kind === 'triples') programs.push(this.finalize3Program(deviceFinalize.sparse));
    if (pairTermGroups !== null) addGemm(pairTermGroups, numPlanes);
    if (triples !== null) {
      programs.push(this.pairProductProgram(numPlanes, numPlanes, triples.planePairs));
      addGemm(triples.termGroups, triples.planePairs.length);
    }
    return programs;
  }

  private async planBitwise(request: PopcountGemmRequest, aChunks: readonly PlaneChunk[] | undefined, blockOutputBytes: number): Promise<RequestPlan> {
    const { termGroups, a, b } = request;
    const program = this.tally2Program(termGroups, a.numPlanes, b.numPlanes);
    const numGroups = termGroups.length;
    const maxGroups = this.runner.capabilities.maxComputeWorkgroupsPerDimension;
    const blocks = await this.subBlocks(request, aChunks, {
      maxRows: maxGroups * program.tileRows, maxCols: maxGroups * program.tileCols, rowUnit: 1, colUnit: 1,
      outWords: (rows, cols) => numGroups * rows * cols, outputBytes: blockOutputBytes,
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
   * Per sub-block, K slab and group g: expand A's rows and B's columns of the slab into u8 counts (Σ of the group's
   * planes), then one u8 GEMM into group g's padded output, adding to it after the first slab. Padded rows and
   * columns are zero.
   */
  private async planU8(
    request: PopcountGemmRequest, { family, slabPlan, expandRows }: U8Choice, aChunks: readonly PlaneChunk[] | undefined, blockOutputBytes: number,
  ): Promise<RequestPlan> {
    const { termGroups, a, b } = request;
    const numGroups = termGroups.length;
    const gemm = this.u8GemmProgram(family);
    const factors = termGroups.map((g) => {
      const f = factorGroup(g);
      if (f === null) throw new Error('u8 kernels need factored term groups');
      return { f, expandA: this.expandProgram(a.numPlanes, f.aPlanes), expandB: this.expandProgram(b.numPlanes, f.bPlanes) };
    });
    const maxGroups = this.runner.capabilities.maxComputeWorkgroupsPerDimension;
    const blocks = await this.subBlocks(request, aChunks, {
      maxRows: Math.min(expandRows, maxGroups * gemm.tileRows), maxCols: Math.min(expandRows, maxGroups * gemm.tileCols),
      rowUnit: U8_GEMM_ROW_TILE, colUnit: U8_GEMM_COL_TILE, outWords: (rows, cols) => numGroups * padRows(rows) * padCols(cols),
      outputBytes: blockOutputBytes,
    });
    const { slabs, slabBytes } = slabPlan;
    const expand = (
      program: WgslProgram, chunk: PlaneChunk, first: number, count: number, numRowsPad: number, slab: U8Slab, target: GPUBuffer,
    ): Dispatch => {
      const workgroups = foldWorkgroups(Math.ceil((numRowsPad * slab.numWords * 8) / EXPAND_WORKGROUP), maxGroups);
      return {
        program, storage: [chunk.buffer, target],
        uniforms: {
          rowFirst: first - chunk.firstRow, numRows: count, numRowsPad, wordsPerPlane: a.wordsPerPlane, wordFirst: slab.wordFirst,
          numWords: slab.numWords, numWorkgroupsX: workgroups[0],
        },
        workgroups,
      };
    };
    // B's chunks expanded whole and kept (expandedOperands.ts), where a block's columns can be bound as a range of
    // the expansion (row offsets aligned for a storage binding); per group, by chunk. One at a time: each must not
    // evict one that this request already uses (sparse groups expand B two ways: two chunk-sized expansions).
    // Not when K is cut into slabs: rows that long are cut because the budget holds too few of them.
    const keptB: Map<PlaneChunk, GPUBuffer>[] = [];
    const usedByThisRequest: GPUBuffer[] = [];
    for (const { expandB } of factors) {
      const kept = new Map<PlaneChunk, GPUBuffer>();
      keptB.push(kept);
      if (slabs.length > 1 || slabBytes % this.runner.capabilities.minStorageBufferOffsetAlignment !== 0) continue;
      for (const chunk of new Set(blocks.map((blk) => blk.bChunk))) {
        const numRowsPad = padCols(chunk.numRows) + U8_GEMM_COL_TILE;
        const buffer = await this.expandedOperands.of(chunk, expandB, slabBytes, numRowsPad,
          (target) => expand(expandB, chunk, chunk.firstRow, chunk.numRows, numRowsPad, slabs[0], target), usedByThisRequest);
        if (buffer === null) continue;
        kept.set(chunk, buffer);
        usedByThisRequest.push(buffer);
      }
    }
    const maxRows = Math.max(0, ...blocks.map((blk) => padRows(blk.numRows)));
    const expandedA = this.scratchBuffer('expandedA', maxRows * slabBytes);
    const unkeptCols = blocks.filter((blk) => keptB.some((kept) => !kept.has(blk.bChunk))).map((blk) => padCols(blk.numCols));
    const expandedB = unkeptCols.length === 0 ? null : this.scratchBuffer('expandedB', Math.max(...unkeptCols) * slabBytes);
    /** Dispatches that give group g's B operand of a block's slab: none when its chunk's expansion is kept. */
    const operandB = (g: number, blk: SubBlock, slab: U8Slab): { readonly dispatches: Dispatch[]; readonly bound: GPUBuffer | BufferRange } => {
      const kept = keptB[g].get(blk.bChunk);
      if (kept !== undefined) {
        return { dispatches: [], bound: { buffer: kept, offset: (blk.colFirst - blk.bChunk.firstRow) * slabBytes, size: padCols(blk.numCols) * slabBytes } };
      }
      if (expandedB === null) throw new Error('planU8: a block without a kept B expansion and no scratch');
      return { dispatches: [expand(factors[g].expandB, blk.bChunk, blk.colFirst, blk.numCols, padCols(blk.numCols), slab, expandedB)], bound: expandedB };
    };
    return {
      family, blocks,
      shapeOf: (blk) => ({ groupWords: padRows(blk.numRows) * padCols(blk.numCols), rowStride: padCols(blk.numCols) }),
      dispatchesOf: (blk, output) => slabs.flatMap((slab, s) => factors.flatMap(({ expandA }, g) => {
        const b = operandB(g, blk, slab);
        // Consecutive groups with the same A planes (sparse T[..c] and T[..m]) share one expansion: the GEMM in
        // between only read it. Half of sparse 3-way's expansions (0.7 s of a 15 s run on an H100).
        const expandedBefore = g > 0 && factors[g - 1].expandA === expandA;
        return [
          ...(expandedBefore ? [] : [expand(expandA, blk.aChunk, blk.rowFirst, blk.numRows, padRows(blk.numRows), slab, expandedA)]),
          ...b.dispatches,
          {
            program: gemm,
            storage: [expandedA, b.bound, output],
            uniforms: {
              kBytes: slab.rowBytes, outStride: padCols(blk.numCols), outOffset: g * padRows(blk.numRows) * padCols(blk.numCols),
              skipBelowDiagonal: request.strictUpper ? 1 : 0, diagonalOffset: blk.rowFirst - blk.colFirst, accumulate: s > 0 ? 1 : 0,
            },
            workgroups: [padCols(blk.numCols) / gemm.tileCols, padRows(blk.numRows) / gemm.tileRows],
          },
        ];
      })),
    };
  }

  /**
   * Cuts the request along A's and B's resident chunks, then into sub-blocks of at most maxRows ×
   * maxCols whose outputs fit one binding and `outputBytes`. Sub-blocks wholly below the diagonal of a
   * strictUpper request are left out.
   */
  private async subBlocks(request: PopcountGemmRequest, givenAChunks: readonly PlaneChunk[] | undefined, limits: {
    readonly maxRows: number; readonly maxCols: number;
    /** Sub-block rows and columns are multiples of these (except the last). */
    readonly rowUnit: number; readonly colUnit: number;
    readonly outWords: (rows: number, cols: number) => number;
    /** Output bytes of a sub-block at most (all its groups). */
    readonly outputBytes: number;
  }): Promise<SubBlock[]> {
    const pinned = [request.a, request.b];
    const aChunks = givenAChunks ?? await this.resident.chunksOf(request.a, pinned);
    const bChunks = await this.resident.chunksOf(request.b, pinned);
    const maxOutWords = Math.floor(Math.min(this.maxBindingBytes, limits.outputBytes) / 4);
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

  private tally2Program(termGroups: readonly TermGroup[], numPlanesA: number, numPlanesB: number): Tally2Program {
    return this.cachedProgram(`tally2/${numPlanesA}/${numPlanesB}/${JSON.stringify(termGroups)}`, () => {
      const geometry = chooseTally2Geometry(termGroups.length, numPlanesA, numPlanesB, this.runner.capabilities);
      return createTally2Program({ termGroups, numPlanesA, numPlanesB, geometry });
    });
  }

  private finalize2Program(values: PairValueProgram): Finalize2Program {
    return this.cachedProgram(`finalize2/${values.cacheKey}`, () => createFinalize2Program(values));
  }

  private pairRecordPrograms(): PairRecordPrograms {
    return {
      slotCounts: this.cachedProgram('pairRecords/slotCounts', createPairSlotCountsProgram),
      slotOffsets: this.cachedProgram('pairRecords/slotOffsets', createPairSlotOffsetsProgram),
      recordWrites: this.cachedProgram('pairRecords/writes', createPairRecordWritesProgram),
    };
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

  private vectorSumsProgram(numPlanes: number, planes: RunPreview['vectorSums']): WgslProgram {
    const { countPlanes, maskPlane } = planes;
    return this.cachedProgram(`vectorSums/${numPlanes}/${countPlanes.join('.')}/${maskPlane ?? '-'}`,
      () => createVectorSumsProgram(numPlanes, countPlanes, maskPlane));
  }

  private pairProductProgram(numPlanesX: number, numPlanesY: number, pairs: readonly PlanePair[]): WgslProgram {
    const key = `pairProduct/${numPlanesX}/${numPlanesY}/${pairs.map(([p, q]) => `${p}.${q}`).join('+')}`;
    return this.cachedProgram(key, () => createPairProductProgram(numPlanesX, numPlanesY, pairs));
  }

  /** A named shared scratch buffer of at least `numBytes`, grown (and replaced) when too small. */
  private scratchBuffer(name: string, numBytes: number): GPUBuffer {
    return this.scratch.get(name, numBytes);
  }
}
