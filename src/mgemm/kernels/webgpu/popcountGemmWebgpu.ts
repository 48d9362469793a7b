// The popcount-GEMM on a WebGPU device (any adapter, lavapipe included): the facade that implements the contract
// (mgemm/contract.ts) by delegating. Requests are planned by plan/requestPlanner.ts (sub-blocks that respect the
// binding and dispatch limits, each computed by the bitwise tally program or, where the adapter has u8 subgroup
// matrices, by u8 expansions and integer GEMMs); programs come from programs/programLibrary.ts; operands stay
// resident on the GPU (operands/); runtime/webgpuRunner.ts alone touches the device. 3-way requests (run3) build
// their pair products on the GPU and reuse the 2-way plans (tally3Webgpu.ts); device finalize is in finalize/.
// Requests encode and submit one at a time and are collected outside that turn (runtime/requestTurns.ts), so the
// next request's kernels are queued while the last one's results come back; device finalize requests each hold a
// set of finalize buffers (finalizeScratch.ts) until their records are back. Benchmarks reach the kernels alone
// through `benchmarking` (kernelBenchmarking.ts).

import { traced } from '../../../core/trace.js';
import type { HistogramLayout } from '../../../core/histogramLayout.js';
import type {
  ComputeDevice, FinalizePairsShape, PlaneMatrix, PopcountGemm, PopcountGemm3Request, PopcountGemm3Result, PopcountGemmRequest, PopcountGemmResult,
  RunPreview, VectorSums, VectorSumsRequest,
} from '../../contract.js';
import { NO_PAIR_RECORDS, noRecordsToRelease, type PairFinalizeRequest, type PairFinalizeResult, type PairValueProgram } from '../../pairFinalize.js';
import { checkPopcountGemmRequest } from '../../requestChecks.js';
import { isProgramTripleRequest, type TripleFinalizeRequest, type TripleFinalizeResult } from '../../tripleFinalize.js';
import { createFinalize2Program, finalize2CacheKey, type Finalize2Options, type Finalize2Program } from './finalize/finalize2Program.js';
import { FinalizeScratchRing, type FinalizeScratch } from './finalize/finalizeScratch.js';
import { finalizeDispatch, finalizeTiles, pairRecordDispatches, pairRecordScratchBytes, pairSlots, type PairRecordPrograms } from './finalize/pairFinalizeWebgpu.js';
import { createPairRecordWritesProgram, createPairSlotCountsProgram, createPairSlotOffsetsProgram } from './finalize/pairRecordPrograms.js';
import type { TripleSliceCoordinates } from './finalize/recordOrder.js';
import { RecordOrderPool } from './finalize/recordOrderPool.js';
import { ResidentArrays } from './finalize/tripleFinalizeWebgpu.js';
import { WebgpuBenchmarking } from './kernelBenchmarking.js';
import { ExpandedOperands } from './operands/expandedOperands.js';
import { ResidentPlanes, type PlaneChunk } from './operands/residentPlanes.js';
import { DEVICE_OUTPUT_BYTES_PER_DISPATCH, scatter, type RequestPlan } from './plan/requestPlan.js';
import type { KernelFamily } from './plan/kernelChoice.js';
import { FULL_RATE_WORKGROUPS, RequestPlanner } from './plan/requestPlanner.js';
import { ProgramLibrary } from './programs/programLibrary.js';
import type { WgslProgram } from './programs/wgslProgram.js';
import type { GpuCapabilities } from './runtime/gpuAdapter.js';
import { GrowingBuffers } from './runtime/growingBuffers.js';
import { RequestTurns } from './runtime/requestTurns.js';
import { settled, type Dispatch, type Pending, type TransferStatistics, type WebgpuRunner } from './runtime/webgpuRunner.js';
import { submitTally3, submitTally3Finalize, tally3KernelDispatches, type Finalize3Host, type Tally3Host } from './tally3Webgpu.js';
import { submitVectorSums } from './vectorSumsWebgpu.js';
import { resolveWebgpuLimits, type WebgpuPopcountGemmOptions } from './webgpuOptions.js';
import { WEBGPU_KERNEL_SET_PREFIX } from '../../kernelSetNames.js';


export class PopcountGemmWebgpu implements PopcountGemm {
  readonly name: string;
  /** The GPU is driven from the calling thread. */
  readonly numThreads = 1;
  /** Matrices held as code rows cross as codes and become planes on the device (operands/residentPlanes.ts). */
  readonly planesFromCodeRows = true;
  /** Benchmarks' access to the kernels alone and to the ways of uploading (tools/lib/webgpuTiming.ts times through it). */
  readonly benchmarking: WebgpuBenchmarking;
  private readonly maxBindingBytes: number;
  private readonly resident: ResidentPlanes;
  private readonly maxReadBackBytes: number;
  private readonly programs: ProgramLibrary;
  private readonly planner: RequestPlanner;
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
  /** Dense 3-way T[cmc] block-pair matrices and value programs' run words on the device (tripleFinalizeWebgpu.ts). */
  private readonly residentArrays: ResidentArrays;
  /** Requests encode and submit one at a time and are collected after their turn; close() waits for them. */
  private readonly turns = new RequestTurns();
  private closed = false;

  constructor(private readonly runner: WebgpuRunner, options: WebgpuPopcountGemmOptions) {
    const caps = runner.capabilities;
    const limits = resolveWebgpuLimits(options, caps);
    const { maxBindingBytes, expansionBytes, kernel } = limits;
    this.maxBindingBytes = maxBindingBytes;
    this.maxReadBackBytes = limits.maxReadBackBytes;
    this.resident = new ResidentPlanes(runner, maxBindingBytes, limits.residentBytes);
    this.programs = new ProgramLibrary(caps, limits.u8Staging);
    const family = kernel === 'auto' ? (caps.hasSubgroupMatrix ? 'subgroup-matrix' : 'bitwise') : kernel;
    this.name = `${WEBGPU_KERNEL_SET_PREFIX}${family}`;
    this.residentArrays = new ResidentArrays(runner);
    this.scratch = new GrowingBuffers(runner);
    this.expandedOperands = new ExpandedOperands(runner, { keptBytes: limits.keptExpansionBytes, maxBufferBytes: maxBindingBytes });
    this.finalizeScratch = new FinalizeScratchRing(runner);
    this.planner = new RequestPlanner({
      runner, resident: this.resident, programs: this.programs, scratch: this.scratch, expandedOperands: this.expandedOperands,
      maxBindingBytes, expansionBytes, kernel,
    });
    this.benchmarking = new WebgpuBenchmarking({
      runner,
      inRequestTurn: (work) => this.turns.tracked(() => this.turns.inTurn(work)),
      kernelDispatches: (request) => this.kernelDispatches(request),
      kernelDispatches3: (request) => tally3KernelDispatches(this.tally3Host(), request),
    });
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
      programs = this.programs.previewPrograms(preview, {
        familyOf: (termGroups, wordsPerPlane, disjoint) => this.planner.familyFor(termGroups, wordsPerPlane, disjoint).family,
        pairFinalizePrograms: (deviceFinalize) => this.pairFinalizePrograms(deviceFinalize),
      });
    } catch {
      // A kernel family this adapter cannot run: the first request chooses again and throws the same error.
      return;
    }
    this.runner.compileStart(programs);
  }

  run(request: PopcountGemmRequest): Promise<PopcountGemmResult> {
    return this.turns.submitThenCollect(() => this.submitRun(request));
  }

  run3(request: PopcountGemm3Request): Promise<PopcountGemm3Result> {
    return this.turns.submitThenCollect(() => {
      if (this.closed) throw new Error(`${this.name}: run3() after close()`);
      return submitTally3(this.tally3Host(), request);
    });
  }

  /**
   * Per-vector sums computed where the planes lie: the matrix is uploaded (and stays resident for the requests
   * that follow), one workgroup per row, and only two words per row come back.
   */
  vectorSums(request: VectorSumsRequest): Promise<VectorSums> {
    return this.turns.submitThenCollect(() => {
      if (this.closed) throw new Error(`${this.name}: vectorSums() after close()`);
      const host = { runner: this.runner, resident: this.resident, programs: this.programs, scratchBuffer: (name: string, numBytes: number) => this.scratchBuffer(name, numBytes) };
      return submitVectorSums(host, request);
    });
  }

  /** Starts uploading `planes` ahead of the requests that use them (ResidentPlanes.prefetch); returns at once. */
  prefetch(planes: PlaneMatrix, rowsReady?: (rowEnd: number) => Promise<void>): void {
    if (!this.closed) this.resident.prefetch(planes, rowsReady);
  }

  /**
   * 3-way finalize on the device (mgemm/tripleFinalize.ts): pair products built on the GPU, the GEMMs and the
   * finalize of every slice of the request (tally3Webgpu.ts submitTally3Finalize).
   */
  finalizeTriples(request: TripleFinalizeRequest): Promise<TripleFinalizeResult> {
    const { xVectorFirst, yVectorFirst, zVectorFirst } = request;
    // Table entries are recorded at 2i + a (SPEC §7), values named by triples at i.
    const step = isProgramTripleRequest(request) ? 1 : 2;
    const slices: TripleSliceCoordinates[] = request.gemm.slices.map(({ yRow, xFirst, xCount, zFirst, zCount }) => ({
      iRecordFirst: step * (xVectorFirst + xFirst), jRecord: step * (yVectorFirst + yRow), kRecordFirst: step * (zVectorFirst + zFirst),
      coordinateStep: step, xCount, zCount,
    }));
    return this.finalizeInTurns((scratch) => {
      if (this.closed) throw new Error(`${this.name}: finalizeTriples() after close()`);
      return submitTally3Finalize(this.finalize3Host(scratch), request);
    }, slices);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await traced('close: requests settled', () => this.turns.allSettled());
    await traced('close: buffers freed', async () => {
      await this.resident.clear();
      this.residentArrays.clear();
      this.finalizeScratch.destroy();
      this.scratch.destroy();
      this.expandedOperands.clear();
      for (const b of this.vectorWordBuffers) b.destroy();
    });
    await this.recordOrder.close();
    await traced('close: device destroyed', () => this.runner.destroy());
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
    return this.turns.tracked(async () => {
      const lease = await this.finalizeScratch.acquire();
      let result: PairFinalizeResult | null = null;
      try {
        while (result === null) {
          const pending = await this.turns.inTurn(() => submit(lease.scratch));
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
      finalize3Program: (values, histogram) => this.programs.finalize3(values, histogram),
      residentBuffer: (data) => this.residentArrays.bufferOf(data),
      finalizeScratch,
    };
  }

  /** What the 3-way driver uses of this kernel set. */
  private tally3Host(): Tally3Host {
    return {
      runner: this.runner, resident: this.resident, maxBindingBytes: this.maxBindingBytes, maxReadBackBytes: this.maxReadBackBytes,
      plan: (request, aChunks, blockOutputBytes) => this.plan(request, aChunks, blockOutputBytes),
      scratchBuffer: (name, numBytes) => this.scratchBuffer(name, numBytes),
      pairProductProgram: (numPlanesX, numPlanesY, pairs) => this.programs.pairProduct(numPlanesX, numPlanesY, pairs),
    };
  }

  /** A 2-way request's sub-blocks, one submit and read-back each (runner.submitEachWithReadBack), scattered into its outputs. */
  private async submitRun(request: PopcountGemmRequest): Promise<Pending<PopcountGemmResult>> {
    if (this.closed) throw new Error(`${this.name}: run() after close()`);
    checkPopcountGemmRequest(request, { codeRows: true });
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

  /** All the dispatches of a 2-way request, writing into the output scratch buffer (for benchmarks: nothing is read back). */
  private async kernelDispatches(request: PopcountGemmRequest): Promise<{ dispatches: Dispatch[]; family: KernelFamily } | null> {
    const plan = await this.plan(request);
    if (plan === null) return null;
    const output = this.outputFor(plan, request.termGroups.length);
    return { dispatches: plan.blocks.flatMap((block) => plan.dispatchesOf(block, output)), family: plan.family };
  }

  /** The plan of a request (requestPlanner.ts); null when there is nothing to compute. */
  private plan(request: PopcountGemmRequest, aChunks?: readonly PlaneChunk[], blockOutputBytes?: number): Promise<RequestPlan | null> {
    return this.planner.plan(request, aChunks, blockOutputBytes);
  }

  /** The output scratch buffer, large enough for the plan's largest sub-block. */
  private outputFor(plan: RequestPlan, numGroups: number): GPUBuffer {
    return this.planner.outputFor(plan, numGroups);
  }

  /** A named shared scratch buffer of at least `numBytes`, grown (and replaced) when too small. */
  private scratchBuffer(name: string, numBytes: number): GPUBuffer {
    return this.scratch.get(name, numBytes);
  }

  // 2-way device finalize: the request, its submit, its programs and the per-vector words it binds.

  /** FULL_RATE_WORKGROUPS tiles (RequestPlanner.pairsOfWorkgroups), within what submitPairFinalize takes (pass values in a binding). */
  fullRatePairs(shape: FinalizePairsShape): number {
    const maxPairs = Math.floor(this.runner.capabilities.maxStorageBufferBindingSize / pairRecordScratchBytes(1, { records: true, denseValues: null }).passValues);
    return Math.min(this.planner.pairsOfWorkgroups(shape, FULL_RATE_WORKGROUPS), maxPairs);
  }

  /** 2-way finalize on the device (mgemm/pairFinalize.ts): see submitPairFinalize. */
  finalizePairs(request: PairFinalizeRequest): Promise<PairFinalizeResult> {
    return this.finalizeInTurns((scratch) => this.submitPairFinalize(request, scratch), null);
  }

  /**
   * One submit: per sub-block the GEMM's dispatches, then the finalize dispatch on the output it left; with records,
   * the dispatches that write them in key order (pairRecordPrograms.ts). Status, partials and records come back to
   * `scratch` (finalizeScratch.ts).
   */
  private async submitPairFinalize(request: PairFinalizeRequest, scratch: FinalizeScratch): Promise<Pending<PairFinalizeResult | null>> {
    if (this.closed) throw new Error(`${this.name}: finalizePairs() after close()`);
    checkPopcountGemmRequest(request.gemm, { codeRows: true });
    const plan = await this.plan(request.gemm, undefined, DEVICE_OUTPUT_BYTES_PER_DISPATCH);
    const denseKind = request.denseValues ?? null;
    if (plan === null) {
      const denseValues = denseKind === null ? null : { kind: denseKind, words: new Uint32Array(0) };
      return settled({ kind: 'done', checksumSum: 0n, entries: 0, zeros: 0, records: NO_PAIR_RECORDS, denseValues, histogram: null });
    }
    const histogram = request.histogram ?? null;
    const program = this.finalize2Program(request.values, histogram, { windowed: request.windowed ?? false });
    await this.runner.pipelineFor(program);
    const tiles = plan.blocks.map((blk) => finalizeTiles({ ...blk, ...plan.shapeOf(blk) }).numTiles);
    const numTiles = tiles.reduce((sum, n) => sum + n, 0);
    const numPairs = request.gemm.aCount * request.gemm.bCount;
    const scratchBytes = pairRecordScratchBytes(numPairs, { records: request.records, denseValues: denseKind });
    if (scratchBytes.passValues > this.runner.capabilities.maxStorageBufferBindingSize) {
      return settled({ kind: 'needsHost', reason: `pass values of ${numPairs} pairs exceed one binding` });
    }
    const target = scratch.targetFor(numTiles, request.records, 3, histogram);
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
    const dense = denseKind === null ? null : { kind: denseKind, buffer: buffers.passValues, numBytes: scratchBytes.passValues };
    return scratch.submit(dispatches, target, dense);
  }

  /** The programs of 2-way device finalize that a run of `deviceFinalize` uses (prepareStart compiles them). */
  private pairFinalizePrograms(deviceFinalize: Extract<NonNullable<RunPreview['deviceFinalize']>, { kind: 'pairs' }>): WgslProgram[] {
    const options = { windowed: deviceFinalize.windowed ?? false };
    return [this.finalize2Program(deviceFinalize.values, deviceFinalize.histogram ?? null, options), ...(deviceFinalize.records ? Object.values(this.pairRecordPrograms()) : [])];
  }

  private cachedProgram<P extends WgslProgram>(key: string, make: () => P): P {
    return this.programs.cached(key, make);
  }

  private finalize2Program(values: PairValueProgram, histogram: HistogramLayout | null, options: Finalize2Options): Finalize2Program {
    return this.cachedProgram(finalize2CacheKey(values, histogram, options), () => createFinalize2Program(values, histogram, options));
  }

  private pairRecordPrograms(): PairRecordPrograms {
    return {
      slotCounts: this.cachedProgram('pairRecords/slotCounts', createPairSlotCountsProgram),
      slotOffsets: this.cachedProgram('pairRecords/slotOffsets', createPairSlotOffsetsProgram),
      recordWrites: this.cachedProgram('pairRecords/writes', createPairRecordWritesProgram),
    };
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
}
