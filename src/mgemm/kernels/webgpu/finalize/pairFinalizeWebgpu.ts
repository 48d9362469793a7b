// Host side of 2-way finalize on the device: the finalize dispatch of one GEMM sub-block, the dispatches that
// write a request's records in key order (pairRecordPrograms.ts), and combining the per-workgroup checksum
// partials into the result of mgemm/pairFinalize.ts.

import { valuesFillTable, type DenseValueKind, type PairFinalizeRequest } from '../../../pairFinalize.js';
import { RANDOMIZE_MAX } from '../../../../core/randomize.js';
import { FINALIZE2_DENSE_VALUES, FINALIZE2_PARTIAL_WORDS, FINALIZE2_THRESHOLD_KIND, FINALIZE2_TILE, type Finalize2Program, type Finalize2Uniforms } from './finalize2Program.js';
import { PAIR_RECORDS_WORKGROUP, PAIRS_PER_SLOT } from './pairRecordPrograms.js';
import { foldWorkgroups, type Dispatch } from '../runtime/webgpuRunner.js';
import type { WgslProgram } from '../programs/wgslProgram.js';
import { recordBarUniforms } from './recordBar.js';

/** Where a sub-block's tallies lie in the GEMM's output buffer, and which rows and columns they are. */
export interface TallyBlock {
  /** Matrix rows of A / B of sub-block row / column 0. */
  readonly rowFirst: number;
  readonly numRows: number;
  readonly colFirst: number;
  readonly numCols: number;
  readonly groupWords: number;
  readonly rowStride: number;
}

/** Buffers of a finalize dispatch, in the program's binding order after the tallies. */
export interface FinalizeBuffers {
  readonly tallies: GPUBuffer;
  readonly rowVectors: GPUBuffer;
  readonly colVectors: GPUBuffer;
  readonly partials: GPUBuffer;
  readonly status: GPUBuffer;
  /** Pass mask and values of each pair of the request (pairRecordPrograms.ts); any buffer when records are not wanted. */
  readonly passMasks: GPUBuffer;
  readonly passValues: GPUBuffer;
  /** The request's histogram counts (bound only by a program that counts them). */
  readonly histogram: GPUBuffer;
}

/**
 * Bytes of the pass masks and values of a request of `numPairs` pairs: 4 and 16 per pair with records; the values
 * hold its dense values instead (4 or 8 per pair) when it asks for them.
 */
export function pairRecordScratchBytes(
  numPairs: number, options: { readonly records: boolean; readonly denseValues: DenseValueKind | null },
): { readonly passMasks: number; readonly passValues: number } {
  const denseBytes = options.denseValues === null ? 0 : options.denseValues === 'float32' ? 4 : 8;
  return { passMasks: options.records ? 4 * numPairs : 0, passValues: Math.max(options.records ? 16 : 0, denseBytes) * numPairs };
}

/** Workgroup tiles of a sub-block. */
export function finalizeTiles(block: TallyBlock): { readonly tilesX: number; readonly numTiles: number } {
  const tilesX = Math.ceil(block.numCols / FINALIZE2_TILE);
  return { tilesX, numTiles: tilesX * Math.ceil(block.numRows / FINALIZE2_TILE) };
}

/** The request's value program's constants as uniforms, after checking the request fits the program. */
function valueConstants(request: PairFinalizeRequest): Record<string, number> {
  const { values, constants, threshold } = request;
  if (constants.length !== values.constantNames.length) {
    throw new Error(`${values.cacheKey}: ${constants.length} constants for ${values.constantNames.length} names`);
  }
  if (threshold.kind === 'multi2' && !valuesFillTable(values)) throw new Error(`${values.cacheKey}: per-entry thresholds need a whole 2 × 2 table`);
  const pairCounts = values.pairCounts ?? false;
  if ((request.denseValues ?? null) !== null && values.entryBits.length !== 1 && !pairCounts) {
    throw new Error(`${values.cacheKey}: dense values need one entry per pair`);
  }
  // A pair-count program's records follow its pair value's threshold alone.
  if (pairCounts ? threshold.kind !== 'none' && threshold.kind !== 'pairValue' : threshold.kind === 'pairValue') {
    throw new Error(`${values.cacheKey}: a ${threshold.kind} threshold for ${pairCounts ? 'a' : 'no'} pair-count program`);
  }
  if (pairCounts && (request.recordBar ?? null) !== null) throw new Error(`${values.cacheKey}: a pair-count program takes no record bar`);
  return Object.fromEntries(values.constantNames.map((name, idx) => [name, constants[idx]]));
}

/** The finalize dispatch of one sub-block whose partials start at `partialFirst`. */
export function finalizeDispatch(
  program: Finalize2Program, request: PairFinalizeRequest, block: TallyBlock, buffers: FinalizeBuffers,
  options: { readonly partialFirst: number; readonly maxWorkgroupsPerDimension: number },
): Dispatch {
  const { gemm, threshold } = request;
  const { tilesX, numTiles } = finalizeTiles(block);
  const workgroups = foldWorkgroups(numTiles, options.maxWorkgroupsPerDimension);
  const dispatchX = workgroups[0];
  const t = threshold.kind === 'single' ? [threshold.above, 0, 0, 0]
    : threshold.kind === 'multi2' ? [threshold.ll, threshold.lh, threshold.hh, threshold.llhh]
      : threshold.kind === 'pairValue' ? [threshold.lo, threshold.hi, 0, 0] : [0, 0, 0, 0];
  const uniforms: Finalize2Uniforms = {
    ...valueConstants(request),
    numRows: block.numRows, numCols: block.numCols, rowStride: block.rowStride, groupWords: block.groupWords,
    rowFirst: block.rowFirst, colFirst: block.colFirst, strictUpper: gemm.strictUpper ? 1 : 0,
    rowVectorFirst: request.rowVectorFirst, colVectorFirst: request.colVectorFirst, numVectorMod: request.numVector % RANDOMIZE_MAX,
    keyRowFirst: block.rowFirst - gemm.aFirst, keyColFirst: block.colFirst - gemm.bFirst, keyNumCols: gemm.bCount,
    tilesX, numTiles, dispatchX, partialFirst: options.partialFirst,
    thresholdKind: FINALIZE2_THRESHOLD_KIND[threshold.kind], threshold0: t[0], threshold1: t[1], threshold2: t[2], threshold3: t[3],
    writeRecords: request.records ? 1 : 0,
    ...recordBarUniforms(request.recordBar ?? null),
    denseValues: FINALIZE2_DENSE_VALUES[request.denseValues ?? 'none'],
  };
  return {
    program,
    storage: [
      buffers.tallies, buffers.rowVectors, buffers.colVectors, buffers.partials, buffers.status, buffers.passMasks, buffers.passValues,
      ...(program.countsHistogram ? [buffers.histogram] : []),
    ],
    uniforms,
    workgroups,
  };
}

/** The three programs of pairRecordPrograms.ts. */
export interface PairRecordPrograms {
  readonly slotCounts: WgslProgram;
  readonly slotOffsets: WgslProgram;
  readonly recordWrites: WgslProgram;
}

/** What the record writes need of a request: its rows and columns, and the global vectors of its matrices' row 0. */
export type PairRecordPlace = Pick<PairFinalizeRequest, 'rowVectorFirst' | 'colVectorFirst'> & {
  readonly gemm: Pick<PairFinalizeRequest['gemm'], 'aFirst' | 'aCount' | 'bFirst' | 'bCount'>;
  /** How the records name the values (absent: table entries). */
  readonly values?: Pick<PairFinalizeRequest['values'], 'naming'>;
};

/**
 * The dispatches that follow a request's finalize dispatches and write its records, in key order, into `records`
 * (room for `recordCapacity`); status[0] gets their number. `slotOffsets` holds a word per slot and one more.
 */
export function pairRecordDispatches(
  programs: PairRecordPrograms, request: PairRecordPlace,
  buffers: Pick<FinalizeBuffers, 'status' | 'passMasks' | 'passValues'> & { readonly slotOffsets: GPUBuffer; readonly records: GPUBuffer },
  options: { readonly recordCapacity: number; readonly maxWorkgroupsPerDimension: number },
): Dispatch[] {
  const { aFirst, aCount, bFirst, bCount } = request.gemm;
  const numPairs = aCount * bCount;
  const numSlots = pairSlots(numPairs);
  const numWorkgroups = Math.ceil(numSlots / PAIR_RECORDS_WORKGROUP);
  const workgroups = foldWorkgroups(numWorkgroups, options.maxWorkgroupsPerDimension);
  const dispatchX = workgroups[0];
  const { status, passMasks, passValues, slotOffsets, records } = buffers;
  return [
    { program: programs.slotCounts, storage: [passMasks, slotOffsets], uniforms: { numPairs, numSlots, dispatchX }, workgroups },
    { program: programs.slotOffsets, storage: [slotOffsets, status], uniforms: { numSlots }, workgroups: [1, 1] },
    {
      program: programs.recordWrites,
      storage: [passMasks, passValues, slotOffsets, records],
      uniforms: {
        numPairs, numSlots, dispatchX, numCols: bCount,
        twiceRowFirst: 2 * (request.rowVectorFirst + aFirst), twiceColFirst: 2 * (request.colVectorFirst + bFirst),
        recordCapacity: options.recordCapacity,
        // Values named by pairs or quads: plain indices (quads: of the row and column pairs, mgemm/pairFinalize.ts).
        coordinateShift: request.values?.naming === 'pairs' || request.values?.naming === 'quads' ? 1 : 0,
      },
      workgroups,
    },
  ];
}

/** Slots of PAIRS_PER_SLOT pairs of a request. */
export function pairSlots(numPairs: number): number {
  return Math.ceil(numPairs / PAIRS_PER_SLOT);
}

/** Σ of the partials' 128-bit sums (exact: 16-bit columns summed in doubles, then one BigInt) and counts. */
export function sumPartials(words: Uint32Array, numTiles: number): { checksumSum: bigint; entries: number; zeros: number } {
  const columns = new Float64Array(8);
  let entries = 0;
  let zeros = 0;
  for (let t = 0; t < numTiles; t++) {
    const at = t * FINALIZE2_PARTIAL_WORDS;
    for (let w = 0; w < 4; w++) {
      const x = words[at + w];
      columns[2 * w] += x & 0xffff;
      columns[2 * w + 1] += x >>> 16;
    }
    entries += words[at + 4];
    zeros += words[at + 5];
  }
  let checksumSum = 0n;
  for (let k = 7; k >= 0; k--) checksumSum = (checksumSum << 16n) + BigInt(columns[k]);
  return { checksumSum, entries, zeros };
}
