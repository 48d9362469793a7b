// 3-way finalize on the device for PopcountGemmWebgpu: after each GEMM sub-block, the finalize program
// (finalize3Program.ts) reads its tallies from the GEMM's output buffer, in the same compute pass; only the
// per-workgroup checksum partials, a status and the passing records are read back, and summed / sorted here.

import { RANDOMIZE_MAX } from '../../../src/core/randomize.js';
import {
  TRIPLE_VECTOR_WORDS, tripleRecordKeysFit, type TripleFinalizeRequest, type TripleFinalizeResult, type TripleRecords,
  type TripleThresholdBits,
} from '../../tripleFinalize.js';
import {
  createFinalize3Program, FINALIZE3_MAX_WORKGROUPS, FINALIZE3_PARTIAL_WORDS, FINALIZE3_STATUS_WORDS, FINALIZE3_THRESHOLD_KIND,
  FINALIZE3_TILE, type Finalize3Program, type Finalize3Uniforms,
} from './finalize3Program.js';
import type { RequestPlan, SubBlock } from './popcountGemmWebgpu.js';
import type { Dispatch, WebgpuRunner } from './webgpuRunner.js';

/** Dense T[cmc] matrices kept on the device: a unit uses one, the next unit usually another. */
const MAX_RESIDENT_PAIR_COUNTS = 4;

const scratchDouble = new DataView(new ArrayBuffer(8));
/** The IEEE bits of a double as (lo, hi) words. */
function doubleWords(x: number): [number, number] {
  scratchDouble.setFloat64(0, x, true);
  return [scratchDouble.getUint32(0, true), scratchDouble.getUint32(4, true)];
}

function thresholdUniforms(threshold: TripleThresholdBits): Pick<Finalize3Uniforms, 'thresholdKind' | 'threshold0' | 'threshold1' | 'threshold2' | 'threshold3' | 'threshold4'> {
  switch (threshold.kind) {
    case 'none':
      return { thresholdKind: FINALIZE3_THRESHOLD_KIND.none, threshold0: 0, threshold1: 0, threshold2: 0, threshold3: 0, threshold4: 0 };
    case 'single':
      return { thresholdKind: FINALIZE3_THRESHOLD_KIND.single, threshold0: threshold.above, threshold1: 0, threshold2: 0, threshold3: 0, threshold4: 0 };
    case 'multi3':
      return {
        thresholdKind: FINALIZE3_THRESHOLD_KIND.multi3,
        threshold0: threshold.lll, threshold1: threshold.llh, threshold2: threshold.lhh, threshold3: threshold.hhh, threshold4: threshold.lllhhh,
      };
  }
}

export class TripleFinalizeWebgpu {
  private readonly programs = new Map<boolean, Finalize3Program>();
  private readonly scratch = new Map<string, GPUBuffer>();
  /** GPU copies of dense T[cmc] matrices by their host array, in LRU order. */
  private readonly pairCounts = new Map<Uint32Array, GPUBuffer>();

  constructor(private readonly runner: WebgpuRunner, private readonly maxBindingBytes: number) {}

  /** Finalizes `request`, whose GEMM `plan` (null: nothing to compute) leaves each sub-block's tallies in `plan.output`. */
  async run(request: TripleFinalizeRequest, plan: RequestPlan | null): Promise<TripleFinalizeResult> {
    const numI = request.gemm.aCount;
    const numK = request.gemm.bCount;
    if (request.records && !tripleRecordKeysFit(numI, numK)) return { kind: 'needsHost', reason: 'record keys exceed 32 bits' };
    const ik = request.pairCounts?.ik;
    if (ik !== undefined && ik.data.byteLength > this.maxBindingBytes) return { kind: 'needsHost', reason: 'pair counts exceed a storage binding' };
    // The program reads group g as T[7 − g] (sparse) or T[7] (dense), tally3Plan's order.
    const expected = request.formula.sparse ? [7, 6, 5, 4, 3, 2, 1, 0] : [7];
    if (request.products.join() !== expected.join()) throw new Error(`finalizeTriples: products ${request.products.join()}, expected ${expected.join()}`);
    const empty: TripleFinalizeResult = { kind: 'done', checksumSum: 0n, entries: 0, zeros: 0, records: { count: 0, words: new Uint32Array(0) } };
    if (plan === null) return empty;

    const program = this.program(request.formula.sparse);
    await this.runner.pipelineFor(program);
    const sliceWords = this.uploadSliceWords(request);
    const pairIK = ik === undefined ? null : this.residentPairCounts(ik.data);
    const numPartialsOf = (blk: SubBlock): number =>
      Math.min(FINALIZE3_MAX_WORKGROUPS, Math.ceil(blk.numRows / FINALIZE3_TILE) * Math.ceil(blk.numCols / FINALIZE3_TILE));
    const numPartials = plan.blocks.reduce((n, blk) => n + numPartialsOf(blk), 0);
    const partials = this.scratchBuffer('partials', numPartials * FINALIZE3_PARTIAL_WORDS * 4, true);
    const status = this.scratchBuffer('status', FINALIZE3_STATUS_WORDS * 4, true);
    this.runner.upload(status, new Uint32Array(FINALIZE3_STATUS_WORDS));
    const recordCapacity = request.records ? Math.min(8 * numI * numK, Math.floor(this.maxBindingBytes / 8)) : 0;
    const records = this.scratchBuffer('records', recordCapacity * 8, true);

    const f = request.formula;
    const [multLo, multHi] = doubleWords(f.multiplier);
    const [rsumLo, rsumHi] = doubleWords(f.denseRsum);
    const dispatches: Dispatch[] = [];
    let partialFirst = 0;
    for (const blk of plan.blocks) {
      dispatches.push(...plan.dispatchesOf(blk));
      const shape = plan.shapeOf(blk);
      const tilesX = Math.ceil(blk.numCols / FINALIZE3_TILE);
      const numTiles = tilesX * Math.ceil(blk.numRows / FINALIZE3_TILE);
      const numWorkgroups = numPartialsOf(blk);
      const uniforms: Finalize3Uniforms = {
        numRows: blk.numRows, numCols: blk.numCols, rowStride: shape.rowStride, groupWords: shape.groupWords,
        rowFirst: blk.rowFirst - request.gemm.aFirst, colFirst: blk.colFirst - request.gemm.bFirst, requestRows: numI, requestCols: numK,
        iVectorFirst: request.iVectorFirst, jVectorGlobal: request.jVectorGlobal, kVectorFirst: request.kVectorFirst,
        numVectorMod: request.numVector % RANDOMIZE_MAX,
        ikStride: ik?.numCols ?? 0, ikRowFirst: request.pairCounts?.ikRowFirst ?? 0, ikColFirst: request.pairCounts?.ikColFirst ?? 0,
        tilesX, numTiles, numWorkgroups, partialFirst,
        ...thresholdUniforms(request.threshold),
        writeRecords: request.records ? 1 : 0, recordCapacity,
        countedBits: f.countedBits, numField: f.numField, multLo, multHi, rsumLo, rsumHi,
      };
      const storage = pairIK === null
        ? [plan.output, sliceWords, partials, status, records]
        : [plan.output, sliceWords, pairIK, partials, status, records];
      dispatches.push({ program, storage, uniforms, workgroups: [numWorkgroups, 1] });
      partialFirst += numWorkgroups;
    }
    const [partialWords, statusWords] = await this.runner.runAndReadBackMany(dispatches, [
      { buffer: partials, numBytes: numPartials * FINALIZE3_PARTIAL_WORDS * 4 },
      { buffer: status, numBytes: FINALIZE3_STATUS_WORDS * 4 },
    ]);
    if (statusWords[1] !== 0) return { kind: 'needsHost', reason: 'a passing value outside the checksum range [0, 16)' };
    const numRecords = statusWords[0];
    if (numRecords > recordCapacity) return { kind: 'needsHost', reason: `${numRecords} records exceed the device buffer (${recordCapacity})` };

    let checksumSum = 0n;
    let entries = 0;
    let zeros = 0;
    for (let p = 0; p < numPartials; p++) {
      const at = p * FINALIZE3_PARTIAL_WORDS;
      const low = BigInt(partialWords[at]) | (BigInt(partialWords[at + 1]) << 32n);
      const high = BigInt(partialWords[at + 2]) | (BigInt(partialWords[at + 3]) << 32n);
      checksumSum += low | (high << 64n);
      entries += partialWords[at + 4];
      zeros += partialWords[at + 5];
    }
    return { kind: 'done', checksumSum, entries, zeros, records: await this.sortedRecords(records, numRecords) };
  }

  /** The first `count` records, sorted by key: as little-endian u64s (value bits low, key high) keys order them. */
  private async sortedRecords(buffer: GPUBuffer, count: number): Promise<TripleRecords> {
    if (count === 0) return { count: 0, words: new Uint32Array(0) };
    const [words] = await this.runner.runAndReadBackMany([], [{ buffer, numBytes: count * 8 }]);
    new BigUint64Array(words.buffer, words.byteOffset, count).sort();
    return { count, words };
  }

  /** Rows' vector words, j's, columns', then (dense) T[ccm] per row and T[mcc] per column, in one upload. */
  private uploadSliceWords(request: TripleFinalizeRequest): GPUBuffer {
    const numI = request.gemm.aCount;
    const numK = request.gemm.bCount;
    const vw = TRIPLE_VECTOR_WORDS;
    const pc = request.pairCounts;
    const words = new Uint32Array((numI + 1 + numK) * vw + (pc === null ? 0 : numI + numK));
    words.set(request.iVectors.subarray(0, numI * vw), 0);
    words.set(request.jVector.subarray(0, vw), numI * vw);
    words.set(request.kVectors.subarray(0, numK * vw), (numI + 1) * vw);
    if (pc !== null) {
      words.set(pc.ij.subarray(0, numI), (numI + 1 + numK) * vw);
      words.set(pc.jk.subarray(0, numK), (numI + 1 + numK) * vw + numI);
    }
    const buffer = this.scratchBuffer('sliceWords', words.byteLength, false);
    this.runner.upload(buffer, words);
    return buffer;
  }

  /** The GPU copy of a dense T[cmc] matrix, uploaded on first use (the engine never changes it afterwards). */
  private residentPairCounts(data: Uint32Array): GPUBuffer {
    const found = this.pairCounts.get(data);
    if (found !== undefined) {
      this.pairCounts.delete(data);
      this.pairCounts.set(data, found);
      return found;
    }
    // Evicted buffers may still be read by submitted work; destroy() waits for it (WebGPU defers the free).
    while (this.pairCounts.size >= MAX_RESIDENT_PAIR_COUNTS) {
      const [oldest, buffer] = this.pairCounts.entries().next().value as [Uint32Array, GPUBuffer];
      buffer.destroy();
      this.pairCounts.delete(oldest);
    }
    const buffer = this.runner.createStorageBuffer(Math.max(16, data.byteLength), { readBack: false });
    this.runner.upload(buffer, data);
    this.pairCounts.set(data, buffer);
    return buffer;
  }

  private program(sparse: boolean): Finalize3Program {
    let program = this.programs.get(sparse);
    if (program === undefined) {
      program = createFinalize3Program({ sparse });
      this.programs.set(sparse, program);
    }
    return program;
  }

  /** A named scratch buffer of at least `numBytes`, grown (and replaced) when too small. */
  private scratchBuffer(name: string, numBytes: number, readBack: boolean): GPUBuffer {
    const existing = this.scratch.get(name);
    if (existing !== undefined && existing.size >= numBytes) return existing;
    existing?.destroy();
    const buffer = this.runner.createStorageBuffer(Math.max(16, numBytes), { readBack });
    this.scratch.set(name, buffer);
    return buffer;
  }

  destroy(): void {
    for (const b of this.scratch.values()) b.destroy();
    for (const b of this.pairCounts.values()) b.destroy();
    this.scratch.clear();
    this.pairCounts.clear();
  }
}
