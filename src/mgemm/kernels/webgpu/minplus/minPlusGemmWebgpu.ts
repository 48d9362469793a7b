// The min-plus kernel set on a WebGPU device (mgemm/minPlusContract.ts, SPEC §8): PopcountGemm over real-valued
// matrices, giving the CPU reference's bits for any valid input. Operands stay resident (operands/residentPlanes.ts);
// a request is cut into pieces and submits (minPlusPieces.ts), computed by the min-plus programs
// (programs/minPlusPrograms.ts) in soft floats, or in exact integers where integralOperands.ts proves them exact, and
// read back as output groups (a double's low then high words; a float's bits). The runner alone touches the device;
// requests submit in turns and collect after them (runtime/requestTurns.ts), as the popcount set's do.
import type {
  ComputeDevice, PlaneMatrix, PopcountGemm, PopcountGemm3Request, PopcountGemm3Result, PopcountGemmRequest, PopcountGemmResult,
  RunPreview, VectorSums, VectorSumsRequest,
} from '../../../contract.js';
import { pairMinOrder, sumWordsOf, valueBits, type RealOperands } from '../../../minPlusContract.js';
import { checkPopcountGemm3Request, checkPopcountGemmRequest } from '../../../requestChecks.js';
import { ResidentPlanes, type PlaneChunk } from '../operands/residentPlanes.js';
import {
  createMinPlus2Program, createMinPlus3Program, createRealSumsProgram, REAL_SUMS_WORKGROUP, type MinPlusProgramKey,
} from '../programs/minPlusPrograms.js';
import type { MinPlusArithmetic } from '../programs/wgsl/minPlusArithmetic.js';
import type { WgslProgram } from '../programs/wgslProgram.js';
import { GrowingBuffers } from '../runtime/growingBuffers.js';
import { RequestTurns } from '../runtime/requestTurns.js';
import { foldWorkgroups, settled, type Dispatch, type Pending, type WebgpuRunner } from '../runtime/webgpuRunner.js';
import { resolveWebgpuLimits, type WebgpuPopcountGemmOptions } from '../webgpuOptions.js';
import { IntegralOperands } from './integralOperands.js';
import { MIN_PLUS_WEBGPU_NAME } from '../../../kernelSetNames.js';
import { packPieces, pairPieces, scatterPieceSums, triplePieces, type PieceSubmit } from './minPlusPieces.js';

/** A request's dispatches for benchmarks: run again and again, nothing read back (tools/bench-gpu-czekanowski.ts). */
export interface MinPlusKernels {
  readonly arithmetic: MinPlusArithmetic;
  run(): Promise<void>;
}

/** One request made ready for submits: its program, operand chunks, submits and uniforms that do not change. */
interface PlannedRequest {
  readonly program: WgslProgram;
  readonly way: 2 | 3;
  readonly chunks: readonly (readonly PlaneChunk[])[];
  readonly submits: readonly PieceSubmit[];
  readonly arithmetic: MinPlusArithmetic;
  /** Uniforms of every dispatch: the operands' rowWords, and strictUpper (2-way) or lastMin (3-way). */
  readonly fixedUniforms: Readonly<Record<string, number>>;
}

export class MinPlusGemmWebgpu implements PopcountGemm {
  readonly name = MIN_PLUS_WEBGPU_NAME;
  /** The GPU is driven from the calling thread. */
  readonly numThreads = 1;
  private readonly resident: ResidentPlanes;
  private readonly scratch: GrowingBuffers<'minPlusOut' | 'minPlusPieces' | 'realSums'>;
  private readonly programs = new Map<string, WgslProgram>();
  private readonly turns = new RequestTurns();
  private readonly integral: IntegralOperands;
  /** Output words per group of one submit: its groups fit one binding and one read-back. */
  private readonly maxGroupWords: number;
  private closed = false;

  constructor(private readonly runner: WebgpuRunner, private readonly operands: RealOperands, options: WebgpuPopcountGemmOptions) {
    const limits = resolveWebgpuLimits(options, runner.capabilities);
    this.resident = new ResidentPlanes(runner, limits.maxBindingBytes, limits.residentBytes);
    this.scratch = new GrowingBuffers(runner);
    this.integral = new IntegralOperands(operands.precision, operands.numField);
    this.maxGroupWords = Math.floor(Math.min(limits.maxBindingBytes, limits.maxReadBackBytes) / (4 * sumWordsOf(operands.precision)));
  }

  get device(): ComputeDevice {
    const { description, position } = this.runner.capabilities;
    return { description, gpuIndex: position?.index ?? null, gpuCount: position?.count ?? null };
  }

  /** Compiles the programs of the run's requests (both arithmetics: which one a request takes depends on its data). */
  prepareStart(preview: RunPreview): void {
    const programs = [this.realSumsProgram()];
    for (const arithmetic of ['soft', 'integer'] as const) {
      if (preview.pairTermGroups !== null) programs.push(this.program(2, arithmetic));
      if (preview.triples !== null) programs.push(this.program(3, arithmetic));
    }
    this.runner.compileStart(programs);
  }

  run(request: PopcountGemmRequest): Promise<PopcountGemmResult> {
    return this.turns.submitThenCollect(async () => {
      const outputs = [this.allocateGroups(request.aCount * request.bCount)];
      const planned = await this.planRun(request);
      return this.submitPlanned(planned, outputs, () => outputs[0]);
    });
  }

  run3(request: PopcountGemm3Request): Promise<PopcountGemm3Result> {
    return this.turns.submitThenCollect(async () => {
      const outputs = request.slices.map((slice) => this.allocateGroups(slice.xCount * slice.zCount));
      const planned = await this.planRun3(request);
      return this.submitPlanned(planned, outputs, () => outputs);
    });
  }

  /** Σ_f of each row in field order, in the run's precision, where the planes lie (uploading them); counts are 0. */
  vectorSums(request: VectorSumsRequest): Promise<VectorSums> {
    return this.turns.submitThenCollect(async () => {
      this.checkOpen();
      const { planes } = request;
      const n = planes.numVectors;
      if (n === 0) return settled({ sums: new Float64Array(0), counts: new Float64Array(0) });
      this.checkPlanes(planes);
      const chunks = await this.resident.chunksOf(planes, [planes], request.rowsReady);
      const output = this.scratch.get('realSums', 8 * n);
      const program = this.realSumsProgram();
      const maxPerDimension = this.runner.capabilities.maxComputeWorkgroupsPerDimension;
      const dispatches: Dispatch[] = chunks.map((chunk) => {
        const workgroups = foldWorkgroups(Math.ceil(chunk.numRows / REAL_SUMS_WORKGROUP), maxPerDimension);
        return {
          program, storage: [chunk.buffer, output], workgroups,
          uniforms: { numRows: chunk.numRows, outRowFirst: chunk.firstRow, rowWords: this.rowWordsOf(planes), numField: this.operands.numField, numWorkgroupsX: workgroups[0] },
        };
      });
      const pending = await this.runner.submitWithReadBack(dispatches, [{ buffer: output, numBytes: 8 * n }]);
      return {
        collect: async () => {
          const [words] = await pending.collect();
          const sums = new Float64Array(n);
          const double = new Float64Array(words.buffer, words.byteOffset, n);
          const single = new Float32Array(words.buffer, words.byteOffset, 2 * n);
          for (let r = 0; r < n; r++) sums[r] = this.operands.precision === 'double' ? double[r] : single[2 * r];
          return { sums, counts: new Float64Array(n) };
        },
      };
    });
  }

  /** Starts uploading `planes` ahead of the requests that use them (ResidentPlanes.prefetch); returns at once. */
  prefetch(planes: PlaneMatrix, rowsReady?: (rowEnd: number) => Promise<void>): void {
    if (!this.closed) this.resident.prefetch(planes, rowsReady);
  }

  /**
   * Hands `use` the dispatches of a 2-way or 3-way request, planned and uploaded, in one turn of the kernel set: each
   * run() submits them all and waits for the GPU (outputs overwrite each other; nothing is read back).
   */
  withKernels<R>(request: PopcountGemmRequest | PopcountGemm3Request, use: (kernels: MinPlusKernels) => Promise<R>): Promise<R> {
    return this.turns.tracked(() => this.turns.inTurn(async () => {
      const planned = 'slices' in request ? await this.planRun3(request) : await this.planRun(request);
      const tables = planned.submits.map((submit) => this.runner.createStorageBufferFrom(submit.table, { readBack: false }));
      try {
        const output = this.outputFor(planned.submits);
        const dispatches = planned.submits.flatMap((submit, s) => this.dispatchesOf(planned, submit, tables[s], output));
        return await use({ arithmetic: planned.arithmetic, run: () => this.runner.runDispatches(dispatches) });
      } finally {
        for (const table of tables) table.destroy();
      }
    }));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.turns.allSettled();
    await this.resident.clear();
    this.scratch.destroy();
    await this.runner.destroy();
  }

  private async planRun(request: PopcountGemmRequest): Promise<PlannedRequest> {
    this.checkOpen();
    checkPopcountGemmRequest(request);
    this.checkPlanes(request.a);
    this.checkPlanes(request.b);
    const pinned = [request.a, request.b];
    const aChunks = await this.resident.chunksOf(request.a, pinned);
    const bChunks = await this.resident.chunksOf(request.b, pinned);
    const arithmetic = this.integral.arithmeticOf(pinned, 2);
    return {
      program: this.program(2, arithmetic), way: 2, chunks: [aChunks, bChunks], arithmetic,
      submits: packPieces(pairPieces(request, aChunks, bChunks), 2, this.maxGroupWords),
      fixedUniforms: { strictUpper: request.strictUpper ? 1 : 0, rowWords: this.rowWordsOf(request.a) },
    };
  }

  private async planRun3(request: PopcountGemm3Request): Promise<PlannedRequest> {
    this.checkOpen();
    checkPopcountGemm3Request(request);
    const pinned = [request.x, request.y, request.z];
    for (const m of pinned) this.checkPlanes(m);
    const x = await this.resident.chunksOf(request.x, pinned);
    const y = await this.resident.chunksOf(request.y, pinned);
    const z = await this.resident.chunksOf(request.z, pinned);
    const arithmetic = this.integral.arithmeticOf(pinned, 3);
    return {
      program: this.program(3, arithmetic), way: 3, chunks: [x, y, z], arithmetic,
      submits: packPieces(triplePieces(request, { x, y, z }), 3, this.maxGroupWords),
      fixedUniforms: { lastMin: pairMinOrder(request.blockIndices)[2], rowWords: this.rowWordsOf(request.x) },
    };
  }

  /** Each submit with its read-back, scattered into `outputs` ([target][group]); the result once all are back. */
  private async submitPlanned<R>(planned: PlannedRequest, outputs: readonly (readonly Uint32Array[])[], result: () => R): Promise<Pending<R>> {
    if (planned.submits.length === 0) return settled(result());
    const output = this.outputFor(planned.submits);
    const numGroups = sumWordsOf(this.operands.precision);
    const pending = await this.runner.submitEachWithReadBack(planned.submits, (submit) => {
      // The queue writes the table before this submit and after the ones before it, which read their own.
      const table = this.scratch.get('minPlusPieces', submit.table.byteLength);
      this.runner.upload(table, submit.table);
      return { dispatches: this.dispatchesOf(planned, submit, table, output), reads: [{ buffer: output, numBytes: 4 * numGroups * submit.groupWords }] };
    }, (submit, [words]) => scatterPieceSums(submit, words, outputs));
    return { collect: async () => { await pending.collect(); return result(); } };
  }

  private dispatchesOf(planned: PlannedRequest, submit: PieceSubmit, table: GPUBuffer, output: GPUBuffer): Dispatch[] {
    const maxPerDimension = this.runner.capabilities.maxComputeWorkgroupsPerDimension;
    return submit.dispatches.map((d) => {
      const workgroups = foldWorkgroups(d.numTiles, maxPerDimension);
      const operandBuffers = d.chunks.map((chunk, operand) => planned.chunks[operand][chunk].buffer);
      return {
        program: planned.program, storage: [table, ...operandBuffers, output], workgroups,
        uniforms: {
          pieceFirst: d.pieceFirst, numPieces: d.numPieces, numTiles: d.numTiles, numWorkgroupsX: workgroups[0],
          numField: this.operands.numField, groupWords: submit.groupWords, ...planned.fixedUniforms,
        },
      };
    });
  }

  /** The shared output buffer, large enough for every submit of a request (all its groups). */
  private outputFor(submits: readonly PieceSubmit[]): GPUBuffer {
    const maxWords = Math.max(...submits.map((s) => s.groupWords)) * sumWordsOf(this.operands.precision);
    return this.scratch.get('minPlusOut', 4 * Math.max(4, maxWords));
  }

  private program(way: 2 | 3, arithmetic: MinPlusArithmetic): WgslProgram {
    const key: MinPlusProgramKey = { precision: this.operands.precision, arithmetic };
    return this.cached(`minPlus${way}/${key.precision}/${arithmetic}`, () => (way === 2 ? createMinPlus2Program(key) : createMinPlus3Program(key)));
  }

  private realSumsProgram(): WgslProgram {
    return this.cached(`realSums/${this.operands.precision}`, () => createRealSumsProgram(this.operands.precision));
  }

  private cached(key: string, make: () => WgslProgram): WgslProgram {
    let program = this.programs.get(key);
    if (program === undefined) {
      program = make();
      this.programs.set(key, program);
    }
    return program;
  }

  private allocateGroups(count: number): Uint32Array[] {
    return Array.from({ length: sumWordsOf(this.operands.precision) }, () => new Uint32Array(count));
  }

  private rowWordsOf(planes: PlaneMatrix): number {
    return planes.numPlanes * planes.wordsPerPlane;
  }

  private checkPlanes(planes: PlaneMatrix): void {
    const bits = valueBits(this.operands.precision);
    if (planes.numPlanes !== bits) throw new Error(`a ${this.operands.precision} real-valued matrix has ${bits} planes, not ${planes.numPlanes}`);
    if (32 * planes.wordsPerPlane < this.operands.numField) throw new RangeError(`rows of ${32 * planes.wordsPerPlane} values hold no ${this.operands.numField} fields`);
  }

  private checkOpen(): void {
    if (this.closed) throw new Error(`${this.name}: request after close()`);
  }
}
