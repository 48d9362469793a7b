// Host side of 3-way finalize on the device: the finalize dispatch of one sub-block of one j-slice, the per-submit
// upload of the slices' small per-vector and pair-count words, and the dense T[cmc] matrices kept on the device.
// Partials and records come back in 2-way finalize's layout (pairFinalizeWebgpu.ts sumPartials, sortedRecords).

import { RANDOMIZE_MAX } from '../../../src/core/randomize.js';
import type { Tally3Slice } from '../../contract.js';
import { TRIPLE_VECTOR_WORDS, type TripleFinalizeRequest, type TripleThresholdBits } from '../../tripleFinalize.js';
import {
  FINALIZE3_MAX_WORKGROUPS, FINALIZE3_THRESHOLD_KIND, FINALIZE3_TILE, type Finalize3Program, type Finalize3Uniforms,
} from './finalize3Program.js';
import type { TallyBlock } from './pairFinalizeWebgpu.js';
import type { BufferRange, Dispatch, WebgpuRunner } from './webgpuRunner.js';

/** Buffers of a 3-way finalize dispatch: the sub-block's tallies and its slice's words (ranges); `pairIK` only dense. */
export interface Finalize3Buffers {
  readonly tallies: BufferRange;
  readonly sliceWords: BufferRange;
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

/**
 * The finalize dispatch of one sub-block of `slice` (block rows are slice rows: row 0 = x row xFirst; columns are
 * z rows), whose partials start at `partialFirst` and whose record keys start at `keyFirst` (the slice's first
 * triple in the request · 8).
 */
export function finalize3Dispatch(
  program: Finalize3Program, request: TripleFinalizeRequest, slice: Tally3Slice, block: TallyBlock, buffers: Finalize3Buffers,
  options: { readonly partialFirst: number; readonly recordCapacity: number; readonly keyFirst: number },
): Dispatch {
  const { formula, pairCounts } = request;
  const tilesX = Math.ceil(block.numCols / FINALIZE3_TILE);
  const numWorkgroups = finalize3Workgroups(block);
  const [multLo, multHi] = doubleWords(formula.multiplier);
  const [rsumLo, rsumHi] = doubleWords(formula.denseRsum);
  const t = thresholdWords(request.threshold);
  const uniforms: Finalize3Uniforms = {
    numRows: block.numRows, numCols: block.numCols, rowStride: block.rowStride, groupWords: block.groupWords,
    rowFirst: block.rowFirst, colFirst: block.colFirst - slice.zFirst, requestRows: slice.xCount, requestCols: slice.zCount,
    keyFirst: options.keyFirst,
    iVectorFirst: request.xVectorFirst + slice.xFirst, jVectorGlobal: request.yVectorFirst + slice.yRow,
    kVectorFirst: request.zVectorFirst + slice.zFirst, numVectorMod: request.numVector % RANDOMIZE_MAX,
    ikStride: pairCounts?.xz.numCols ?? 0, ikRowFirst: slice.xFirst, ikColFirst: slice.zFirst,
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

/** u32 words of one slice's finalize words: rows', j's and columns' vector words, then (dense) T[ccm] and T[mcc]. */
export function sliceWordCount(request: TripleFinalizeRequest, slice: Tally3Slice): number {
  return (slice.xCount + 1 + slice.zCount) * TRIPLE_VECTOR_WORDS + (request.pairCounts === null ? 0 : slice.xCount + slice.zCount);
}

/**
 * Writes one slice's finalize words at `out[0..sliceWordCount)`: the rows' vector words, j's, the columns', then
 * (dense) T[ccm] per row and T[mcc] per column, gathered from the request's whole-block words and matrices. Why
 * per slice and not kept per block like 2-way's vector words: with separate i, j, k words and pair counts a dense
 * call would bind ten buffers, beyond the eight storage bindings every device offers; and these words are
 * O(rows + columns) against the slice's O(rows · columns) triples.
 */
export function writeSliceWords(request: TripleFinalizeRequest, slice: Tally3Slice, out: Uint32Array): void {
  const vw = TRIPLE_VECTOR_WORDS;
  const { xFirst, xCount, yRow, zFirst, zCount } = slice;
  out.set(request.xVectors.subarray(xFirst * vw, (xFirst + xCount) * vw), 0);
  out.set(request.yVectors.subarray(yRow * vw, (yRow + 1) * vw), xCount * vw);
  out.set(request.zVectors.subarray(zFirst * vw, (zFirst + zCount) * vw), (xCount + 1) * vw);
  const pc = request.pairCounts;
  if (pc === null) return;
  const at = (xCount + 1 + zCount) * vw;
  for (let r = 0; r < xCount; r++) out[at + r] = pc.xy.data[(xFirst + r) * pc.xy.numCols + yRow];
  out.set(pc.yz.data.subarray(yRow * pc.yz.numCols + zFirst, yRow * pc.yz.numCols + zFirst + zCount), at + xCount);
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
      // Requests submitted earlier may still read it; the request asking now does not.
      this.runner.destroyWhenIdle(buffer);
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
