// 4-way finalize on the device for an analysis with a quadruple value program (naming 'quads', mgemm/pairFinalize.ts):
// a request is a 2-way GEMM of row-pair planes × column-pair planes that the kernel set finalizes where its tallies
// lie (its finalizePairs), so only the checksum partial sum, counts and the records past the threshold (and a top-N
// run's bar) come back; this file builds the request and puts the records back as the host writes them.
import type { Threshold } from '../core/thresholds.js';
import {
  quadNamingOnDevice, type PairFinalizeRequest, type PairFinalizeResult, type PairThresholdBits, type PairValueProgram, type PlaneWordRange,
  type PopcountGemm,
} from '../mgemm/index.js';
import { colPairsOf, rowPairJ, rowPairIndex } from '../parallel/index.js';
import type { DeviceFinalizeOptions, DeviceQuadFinalizer, QuadDeviceRequest, QuadTallyPlan, RecordBarSource, ResultSink } from './analysis.js';
import { pairThresholdBits } from './devicePairs.js';

/** What 4-way device finalize computes of a run: the program, its constants and table, the plan and class word ranges. */
export interface QuadValues {
  readonly program: PairValueProgram;
  readonly constants: readonly number[];
  /** The run's table (the program's row words; the same array for every request: uploaded once). */
  readonly tableWords: Uint32Array;
  readonly plan: QuadTallyPlan;
  /** Per pair plane of either operand (one layout on both sides), the words outside which it has no bit (PlaneMatrix). */
  readonly planeWordRanges: readonly PlaneWordRange[];
}

type DoneResult = Extract<PairFinalizeResult, { kind: 'done' }>;
type FinalizePairs = NonNullable<PopcountGemm['finalizePairs']>;

/** Words of a 4-way record as the file lays it out: i, j, k, l, float32 bits (SPEC §7 with plain indices). */
const QUAD_RECORD_WORDS = 5;
/** Words of a record as the device returns it: row pair index, column pair index, float32 bits. */
const DEVICE_RECORD_WORDS = 3;

/** Finalizes a run's quad requests on the device with an analysis's value program. */
export class ProgramDeviceQuads implements DeviceQuadFinalizer {
  private constructor(
    private readonly values: QuadValues,
    private readonly gemm: PopcountGemm,
    private readonly finalizePairs: FinalizePairs,
    private readonly threshold: PairThresholdBits,
    private readonly numVector: number,
    private readonly records: boolean,
    private readonly recordBar: RecordBarSource | null,
  ) {}

  /**
   * The finalizer, or null when the host finalizes: no value program (`values` null), a kernel set without device
   * finalize, a run the device cannot name by quads, a threshold it cannot apply, or results no quadruple has (a
   * histogram, a dense matrix, an LD window).
   */
  static create(values: QuadValues | null, gemm: PopcountGemm, threshold: Threshold, numVector: number, options: DeviceFinalizeOptions): ProgramDeviceQuads | null {
    const finalizePairs = gemm.finalizePairs?.bind(gemm);
    if (values === null || finalizePairs === undefined || !quadNamingOnDevice(numVector)) return null;
    const bits = pairThresholdBits(threshold);
    if (bits === null || bits.kind === 'multi2') return null;
    if ((options.histogram ?? null) !== null || (options.denseValues ?? null) !== null || (options.window ?? null) !== null) return null;
    return new ProgramDeviceQuads(values, gemm, finalizePairs, bits, numVector, options.writesRecords, options.recordBar ?? null);
  }

  get plan(): QuadTallyPlan {
    return this.values.plan;
  }

  readonly fullRatePairs = (wordsPerPlane: number): number =>
    this.gemm.fullRatePairs?.({ termGroups: this.values.plan.termGroups, numPlanes: this.values.plan.rowPlanePairs.length, wordsPerPlane }) ?? 0;

  /** Computes and finalizes a request on the device. */
  start(request: QuadDeviceRequest): Promise<PairFinalizeResult> {
    const { rows, cols } = request;
    const finalize: PairFinalizeRequest = {
      gemm: {
        a: rows, aFirst: 0, aCount: rows.numVectors, b: cols, bFirst: request.colFirst, bCount: request.numCols,
        termGroups: [...this.values.plan.termGroups], strictUpper: false, planeWordRanges: this.values.planeWordRanges,
      },
      values: this.values.program,
      constants: this.values.constants,
      // The table is the program's row words; the column words are never read (the same array: nothing more to upload).
      rowVectors: this.values.tableWords,
      colVectors: this.values.tableWords,
      rowVectorFirst: request.rowPairFirst,
      colVectorFirst: request.colPairFirst,
      numVector: this.numVector,
      threshold: this.threshold,
      records: this.records,
      recordBar: this.records ? this.recordBar?.() ?? null : null,
    };
    return this.finalizePairs(finalize);
  }

  /** Adds a request's checksum and records (as (i, j, k, l) in the host's order) to the sink, then releases them. */
  apply(result: DoneResult, request: QuadDeviceRequest, sink: ResultSink): void {
    try {
      sink.checksum.addExact(result.checksumSum, result.entries, result.zeros);
      if (result.records.count > 0) sink.addRecordWords(quadRecordWords(result.records.words, result.records.count, request, this.numVector), result.records.count);
    } finally {
      result.records.release();
    }
  }
}

/**
 * The device's records (row pair, column pair, value bits), which come in request order (row-major), as the host's
 * 4-way records (i, j, k, l, value bits) in its order: tile by tile of the quad plan (row tiles outer), row-major
 * within a tile (epistasisQuads.ts finalizes tile by tile).
 */
export function quadRecordWords(words: Uint32Array, count: number, request: QuadDeviceRequest, numVector: number): Uint32Array {
  const order = Array.from({ length: count }, (_, n) => n);
  const rowPair = (n: number): number => words[DEVICE_RECORD_WORDS * n];
  const colPair = (n: number): number => words[DEVICE_RECORD_WORDS * n + 1];
  const rowTile = (n: number): number => Math.floor(rowPair(n) / request.tileRows);
  const colTile = (n: number): number => Math.floor(colPair(n) / request.tileCols);
  order.sort((a, b) => rowTile(a) - rowTile(b) || colTile(a) - colTile(b) || rowPair(a) - rowPair(b) || colPair(a) - colPair(b));
  const out = new Uint32Array(QUAD_RECORD_WORDS * count);
  order.forEach((n, at) => {
    const j = rowPairJ(rowPair(n));
    const { k, l } = colPairsOf(numVector, colPair(n), colPair(n) + 1);
    out.set([rowPair(n) - rowPairIndex(0, j), j, k[0], l[0], words[DEVICE_RECORD_WORDS * n + 2]], QUAD_RECORD_WORDS * at);
  });
  return out;
}
