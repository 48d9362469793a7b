// Host side of 3-way finalize on the device: the finalize dispatch of one mGEMM3 sub-block, the per-call upload
// of the request's small per-vector and pair-count words, and the dense T[cmc] matrices kept on the device.
// Partials and records come back in 2-way finalize's layout (pairFinalizeWebgpu.ts sumPartials, sortedRecords).

import { RANDOMIZE_MAX } from '../../../src/core/randomize.js';
import { TRIPLE_VECTOR_WORDS, type TripleFinalizeRequest, type TripleThresholdBits } from '../../tripleFinalize.js';
import {
  FINALIZE3_MAX_WORKGROUPS, FINALIZE3_THRESHOLD_KIND, FINALIZE3_TILE, type Finalize3Program, type Finalize3Uniforms,
} from './finalize3Program.js';
import type { TallyBlock } from './pairFinalizeWebgpu.js';
import type { Dispatch, WebgpuRunner } from './webgpuRunner.js';

/** Buffers of a 3-way finalize dispatch; `pairIK` only for dense formulas. */
export interface Finalize3Buffers {
  readonly tallies: GPUBuffer;
  readonly sliceWords: GPUBuffer;
  readonly pairIK: GPUBuffer | null;
  readonly partials: GPUBuffer;
  readonly status: GPUBuffer;
  readonly records: GPUBuffer;
}

/** Workgroups (= partials) of a sub-block: one per tile, at most FINALIZE3_MAX_WORKGROUPS (they loop over tiles). */
export function finalize3Workgroups(block: { readonly numRows: number; readonly numCols: number }): number {
  return Math.min(FINALIZE3_MAX_WORKGROUPS, Math.ceil(block.numRows / FINALIZE3_TILE) * Math.ceil(block.numCols / FINALIZE3_TILE));
}

const bitsView = new DataView(new ArrayBuffer(8));
function doubleWords(x: number): [lo: number, hi: number] {
  bitsView.setFloat64(0, x, true);
  return [bitsView.getUint32(0, true), bitsView.getUint32(4, true)];
}

/** Threshold uniforms: single in threshold0; multi3 LLL, LLH, LHH, HHH, LLL+HHH in threshold0..4. */
function thresholdWords(threshold: TripleThresholdBits): [number, number, number, number, number] {
  switch (threshold.kind) {
    case 'none': return [0, 0, 0, 0, 0];
    case 'single': return [threshold.above, 0, 0, 0, 0];
    case 'multi3': return [threshold.lll, threshold.llh, threshold.lhh, threshold.hhh, threshold.lllhhh];
  }
}

/** The finalize dispatch of one sub-block whose partials start at `partialFirst`. */
export function finalize3Dispatch(
  program: Finalize3Program, request: TripleFinalizeRequest, block: TallyBlock, buffers: Finalize3Buffers,
  options: { readonly partialFirst: number; readonly recordCapacity: number },
): Dispatch {
  const { gemm, formula, pairCounts } = request;
  const tilesX = Math.ceil(block.numCols / FINALIZE3_TILE);
  const numWorkgroups = finalize3Workgroups(block);
  const [multLo, multHi] = doubleWords(formula.multiplier);
  const [rsumLo, rsumHi] = doubleWords(formula.denseRsum);
  const t = thresholdWords(request.threshold);
  const uniforms: Finalize3Uniforms = {
    numRows: block.numRows, numCols: block.numCols, rowStride: block.rowStride, groupWords: block.groupWords,
    rowFirst: block.rowFirst - gemm.aFirst, colFirst: block.colFirst - gemm.bFirst, requestRows: gemm.aCount, requestCols: gemm.bCount,
    iVectorFirst: request.iVectorFirst, jVectorGlobal: request.jVectorGlobal, kVectorFirst: request.kVectorFirst,
    numVectorMod: request.numVector % RANDOMIZE_MAX,
    ikStride: pairCounts?.ik.numCols ?? 0, ikRowFirst: pairCounts?.ikRowFirst ?? 0, ikColFirst: pairCounts?.ikColFirst ?? 0,
    tilesX, numTiles: tilesX * Math.ceil(block.numRows / FINALIZE3_TILE), numWorkgroups, partialFirst: options.partialFirst,
    thresholdKind: FINALIZE3_THRESHOLD_KIND[request.threshold.kind],
    threshold0: t[0], threshold1: t[1], threshold2: t[2], threshold3: t[3], threshold4: t[4],
    writeRecords: request.records ? 1 : 0, recordCapacity: options.recordCapacity,
    countedBits: formula.countedBits, numField: formula.numField, multLo, multHi, rsumLo, rsumHi,
  };
  const { tallies, sliceWords, pairIK, partials, status, records } = buffers;
  return {
    program,
    storage: pairIK === null ? [tallies, sliceWords, partials, status, records] : [tallies, sliceWords, pairIK, partials, status, records],
    uniforms,
    workgroups: [numWorkgroups, 1],
  };
}

/**
 * Uploads the request's rows' vector words, j's, the columns', then (dense) T[ccm] per row and T[mcc] per column
 * into one buffer from `bufferFor(numBytes)`. Why per call and not kept per block like 2-way's vector words: with
 * separate i, j, k words and pair counts a dense call would bind ten buffers, beyond the eight storage bindings
 * every device offers; and these words are O(rows + columns) against the call's O(rows · columns) triples.
 */
export function uploadSliceWords(runner: WebgpuRunner, request: TripleFinalizeRequest, bufferFor: (numBytes: number) => GPUBuffer): GPUBuffer {
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
  const buffer = bufferFor(words.byteLength);
  runner.upload(buffer, words);
  return buffer;
}

/** Dense T[cmc] matrices kept at most: a unit of the 3-way plan uses one for all its j, the next unit usually another. */
const MAX_RESIDENT_PAIR_COUNTS = 4;

/** GPU copies of dense T[cmc] block-pair matrices by their host array (never changed after first use), LRU-evicted. */
export class ResidentPairCounts {
  private readonly buffers = new Map<Uint32Array, GPUBuffer>();

  constructor(private readonly runner: WebgpuRunner) {}

  bufferOf(data: Uint32Array): GPUBuffer {
    const found = this.buffers.get(data);
    if (found !== undefined) {
      // Re-insert: Map order is the LRU order.
      this.buffers.delete(data);
      this.buffers.set(data, found);
      return found;
    }
    for (const [oldest, buffer] of this.buffers) {
      if (this.buffers.size < MAX_RESIDENT_PAIR_COUNTS) break;
      // Requests run one after another and each waits for its submit, so no queued work still reads it.
      buffer.destroy();
      this.buffers.delete(oldest);
    }
    const buffer = this.runner.createStorageBuffer(Math.max(16, data.byteLength), { readBack: false });
    this.runner.upload(buffer, data);
    this.buffers.set(data, buffer);
    return buffer;
  }

  clear(): void {
    for (const buffer of this.buffers.values()) buffer.destroy();
    this.buffers.clear();
  }
}
