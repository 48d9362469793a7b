// Host side of 3-way finalize on the device: the finalize dispatch of one sub-block (a table of its slices'
// rectangles), the per-request finalize words (vector words once per request, j's words and pair counts per slice),
// and the dense T[cmc] matrices kept on the device.
// Partials and records come back in 2-way finalize's layout (pairFinalizeWebgpu.ts sumPartials, recordOrder.ts).

import { RANDOMIZE_MAX } from '../../../../core/randomize.js';
import type { Tally3Slice } from '../../../contract.js';
import { isProgramTripleRequest, triplePairCountsOf, tripleVectorWordsOf, type TripleFinalizeRequest, type TripleThresholdBits } from '../../../tripleFinalize.js';
import {
  FINALIZE3_MAX_WORKGROUPS, FINALIZE3_RECT_FIELDS, FINALIZE3_RECT_WORDS, FINALIZE3_THRESHOLD_KIND, FINALIZE3_TILE, type Finalize3Program,
  type Finalize3Rect, type Finalize3Uniforms,
} from './finalize3Program.js';
import type { TallyBlock } from './pairFinalizeWebgpu.js';
import { recordBarUniforms } from './recordBar.js';
import type { BlockShape } from '../plan/requestPlan.js';
import type { BufferRange, Dispatch, WebgpuRunner } from '../runtime/webgpuRunner.js';

/**
 * A slice's rectangle of a (stacked) GEMM sub-block: slice rows [rowFirst, +numRows) (row 0 = x row xFirst), z rows
 * [colFirst, +numCols); group g's tally of rectangle row r, column c at g·groupWords + tallyFirst + r·rowStride + c
 * of the tallies range.
 */
export interface TallyRect extends TallyBlock {
  readonly tallyFirst: number;
}

/**
 * Buffers of a 3-way finalize dispatch: the sub-block's tallies (a range), its request's finalize words; `pairIK` only
 * dense formulas and value programs with pair counts, `runWords` only value programs.
 */
export interface Finalize3Buffers {
  readonly tallies: BufferRange;
  readonly sliceWords: GPUBuffer;
  readonly pairIK: GPUBuffer | null;
  readonly runWords: GPUBuffer | null;
  readonly partials: GPUBuffer;
  readonly status: GPUBuffer;
  readonly records: GPUBuffer;
  /** The request's histogram counts (bound only by a program that counts them). */
  readonly histogram: GPUBuffer;
}

/**
 * One rectangle of a finalize dispatch: its slice, where its tallies lie, its slice's first record key (its first
 * triple in the request · 8) and finalize words.
 */
export interface FinalizeRect {
  readonly slice: Tally3Slice;
  readonly rect: TallyRect;
  readonly keyFirst: number;
  readonly words: SliceWordOffsets;
}

/** The rectangle table of one finalize dispatch (finalize3Program.ts FINALIZE3_RECT_FIELDS), and its tiles in all. */
export interface RectTable {
  readonly words: Uint32Array;
  readonly numRects: number;
  readonly numTiles: number;
}

/** The table of a sub-block's rectangles (all of one sub-block: one tally layout). */
export function finalize3RectTable(request: TripleFinalizeRequest, rects: readonly FinalizeRect[]): RectTable {
  const words = new Uint32Array(rects.length * FINALIZE3_RECT_WORDS);
  let numTiles = 0;
  rects.forEach(({ slice, rect, keyFirst, words: at }, k) => {
    const tilesX = Math.ceil(rect.numCols / FINALIZE3_TILE);
    const fields: Finalize3Rect = {
      tileFirst: numTiles, tilesX, numRows: rect.numRows, numCols: rect.numCols, tallyFirst: rect.tallyFirst,
      rowFirst: rect.rowFirst, colFirst: rect.colFirst - slice.zFirst, requestRows: slice.xCount, requestCols: slice.zCount, keyFirst,
      iVectorFirst: request.xVectorFirst + slice.xFirst, jVectorGlobal: request.yVectorFirst + slice.yRow, kVectorFirst: request.zVectorFirst + slice.zFirst,
      ikRowFirst: slice.xFirst, ikColFirst: slice.zFirst,
      rowWordsFirst: at.rows, jWordsFirst: at.j, colWordsFirst: at.cols, pairWordsFirst: at.pairs,
    };
    FINALIZE3_RECT_FIELDS.forEach((name, idx) => {
      const value = fields[name];
      if (!Number.isInteger(value) || value < 0 || value > 0xffffffff) throw new RangeError(`finalize3RectTable: ${name} ${value} is not a u32`);
      words[k * FINALIZE3_RECT_WORDS + idx] = value;
    });
    numTiles += tilesX * Math.ceil(rect.numRows / FINALIZE3_TILE);
  });
  if (numTiles > 0xffffffff) throw new RangeError(`finalize3RectTable: ${numTiles} tiles exceed 32 bits`);
  return { words, numRects: rects.length, numTiles };
}

/** Workgroups (= partials) of a dispatch of `numTiles` tiles: one per tile, at most FINALIZE3_MAX_WORKGROUPS (they loop over tiles). */
export function finalize3Workgroups(numTiles: number): number {
  return Math.min(FINALIZE3_MAX_WORKGROUPS, numTiles);
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
 * The finalize dispatch of one sub-block (tally layout `shape`): its rectangles' table lies in `buffers.sliceWords`
 * at word `rectsFirst`; its partials start at `partialFirst`.
 */
export function finalize3Dispatch(
  program: Finalize3Program, request: TripleFinalizeRequest, table: RectTable & { readonly rectsFirst: number }, shape: BlockShape,
  buffers: Finalize3Buffers, options: { readonly partialFirst: number; readonly recordCapacity: number },
): Dispatch {
  const numWorkgroups = finalize3Workgroups(table.numTiles);
  const t = thresholdWords(request.threshold);
  const scaffolding = {
    rowStride: shape.rowStride, groupWords: shape.groupWords,
    rectsFirst: table.rectsFirst, numRects: table.numRects, numTiles: table.numTiles,
    numVectorMod: request.numVector % RANDOMIZE_MAX,
    numWorkgroups, partialFirst: options.partialFirst,
    thresholdKind: FINALIZE3_THRESHOLD_KIND[request.threshold.kind],
    threshold0: t[0], threshold1: t[1], threshold2: t[2], threshold3: t[3], threshold4: t[4],
    writeRecords: request.records ? 1 : 0, recordCapacity: options.recordCapacity,
    ...recordBarUniforms(request.recordBar ?? null),
  };
  let uniforms: Finalize3Uniforms;
  const pc = triplePairCountsOf(request);
  // T[cmc] of each group: the block-pair matrix's row stride, and its words per group.
  const ik = { ikStride: pc?.counts.xz.numCols ?? 0, ikGroupWords: pc === null ? 0 : pc.counts.xz.data.length / pc.numGroups };
  if (isProgramTripleRequest(request)) {
    const constants = Object.fromEntries(request.values.constantNames.map((name, idx) => [name, request.constants[idx]]));
    uniforms = { ...scaffolding, ...ik, countedBits: 0, numField: 0, multLo: 0, multHi: 0, rsumLo: 0, rsumHi: 0, ...constants };
  } else {
    const { formula } = request;
    const [multLo, multHi] = doubleWords(formula.multiplier);
    const [rsumLo, rsumHi] = doubleWords(formula.denseRsum);
    uniforms = { ...scaffolding, ...ik, countedBits: formula.countedBits, numField: formula.numField, multLo, multHi, rsumLo, rsumHi };
  }
  const { tallies, sliceWords, pairIK, runWords, partials, status, records, histogram } = buffers;
  return {
    program,
    storage: [tallies, sliceWords, ...(pairIK === null ? [] : [pairIK]), ...(runWords === null ? [] : [runWords]), partials, status, records, ...(program.countsHistogram ? [histogram] : [])],
    uniforms,
    workgroups: [numWorkgroups, 1],
  };
}

/** Where one slice's finalize words lie in its request's words (word offsets; finalize3Program's uniforms). */
export interface SliceWordOffsets {
  /** Vector words of the slice's row 0 (x row xFirst) and column 0 (z row zFirst). */
  readonly rows: number;
  readonly cols: number;
  /** j's vector words, then per pair-count group (dense formulas: one) T[ccm] of each row and T[mcc] of each column. */
  readonly j: number;
  readonly pairs: number;
}

/**
 * The finalize words of a request's slices, in one array: the vector words of every x row and z row the slices
 * use, once per request (the slices of a batch share them), then per slice j's vector words and, per pair-count group
 * (dense formulas: one; a value program's pairCountGroups), T[ccm] per row and T[mcc] per column, gathered from the
 * request's whole-block words and matrices. Per slice only O(rows +
 * columns) pair counts and one vector's words are added, against its O(rows · columns) triples. Why not kept per
 * block like 2-way's vector words: with separate i, j, k words and pair counts a dense call would bind ten
 * buffers, beyond the eight storage bindings every device offers.
 */
export function requestFinalizeWords(request: TripleFinalizeRequest, sliceIdxs: readonly number[]): {
  readonly words: Uint32Array;
  readonly offsetsOf: (sliceIdx: number) => SliceWordOffsets;
} {
  const vw = tripleVectorWordsOf(request);
  const slices = sliceIdxs.map((idx) => request.gemm.slices[idx]);
  const xLo = Math.min(...slices.map((s) => s.xFirst));
  const xHi = Math.max(...slices.map((s) => s.xFirst + s.xCount));
  const zLo = Math.min(...slices.map((s) => s.zFirst));
  const zHi = Math.max(...slices.map((s) => s.zFirst + s.zCount));
  const pc = triplePairCountsOf(request);
  const numGroups = pc?.numGroups ?? 0;
  const colsAt = (xHi - xLo) * vw;
  let numWords = colsAt + (zHi - zLo) * vw;
  const perSlice = new Map<number, SliceWordOffsets>();
  for (const idx of sliceIdxs) {
    if (perSlice.has(idx)) continue;
    const s = request.gemm.slices[idx];
    perSlice.set(idx, { rows: (s.xFirst - xLo) * vw, cols: colsAt + (s.zFirst - zLo) * vw, j: numWords, pairs: numWords + vw });
    numWords += vw + numGroups * (s.xCount + s.zCount);
  }
  const words = new Uint32Array(Math.max(1, numWords));
  words.set(request.xVectors.subarray(xLo * vw, xHi * vw), 0);
  words.set(request.zVectors.subarray(zLo * vw, zHi * vw), colsAt);
  for (const [idx, at] of perSlice) {
    const { xFirst, xCount, yRow, zFirst, zCount } = request.gemm.slices[idx];
    words.set(request.yVectors.subarray(yRow * vw, (yRow + 1) * vw), at.j);
    if (pc === null) continue;
    const { yx, yz } = pc.counts;
    for (let g = 0; g < numGroups; g++) {
      const yxRow = g * (yx.data.length / numGroups) + yRow * yx.numCols;
      const yzRow = g * (yz.data.length / numGroups) + yRow * yz.numCols;
      const pairs = at.pairs + g * (xCount + zCount);
      words.set(yx.data.subarray(yxRow + xFirst, yxRow + xFirst + xCount), pairs);
      words.set(yz.data.subarray(yzRow + zFirst, yzRow + zFirst + zCount), pairs + xCount);
    }
  }
  return {
    words,
    offsetsOf: (idx) => {
      const found = perSlice.get(idx);
      if (found === undefined) throw new Error(`slice ${idx} has no finalize words`);
      return found;
    },
  };
}

/**
 * Arrays kept at most: a unit of the 3-way plan uses one dense T[cmc] for all its j, the next unit usually another; a
 * value program's run words are one array for the whole run.
 */
const MAX_RESIDENT_ARRAYS = 4;

/**
 * GPU copies of arrays that requests bind whole and the engine never changes after first use — dense T[cmc]
 * block-pair matrices, a value program's run words — by their host array, LRU-evicted.
 */
export class ResidentArrays {
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
      if (this.buffers.size < MAX_RESIDENT_ARRAYS) break;
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
