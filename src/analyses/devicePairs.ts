// 2-way finalize on the device for any analysis with a value program (mgemm's PairValueProgram): the kernel set
// computes a panel's tallies, runs the program on them where they lie, applies the threshold on float32 bits, sums
// the exact checksum and writes the passing records in the host's order; only those come back. An analysis supplies
// its PairValues (program, run constants, the term groups it reads, per-vector words); this file does the rest.
import type { Threshold } from '../core/thresholds.js';
import type { HistogramLayout } from '../core/histogramLayout.js';
import type { PairWindowLimits } from '../core/pairWindow.js';
import {
  NO_OTHER_CHROMOSOME, PAIR_WINDOW_WORDS, pairUidsOnDevice, valuesFillTable, type DenseValueKind, type PairFinalizeRequest, type PairFinalizeResult, type PairThresholdBits,
  type PairValueProgram, type PlaneWordRange, type PopcountGemm, type TermGroup,
} from '../mgemm/index.js';
import type { DeviceFinalizeOptions, DevicePairFinalizer, PairBlock, RecordBarSource, ResultSink, VectorBlockView } from './analysis.js';

type DoneResult = Extract<PairFinalizeResult, { kind: 'done' }>;

const scratch = new DataView(new ArrayBuffer(8));

/** Bits of the largest float32 ≤ t (t ≥ 0): fround(v) > t ⟺ fround(v) > that float32. */
export function float32BitsAtMost(t: number): number {
  scratch.setFloat32(0, t, true);
  const bits = scratch.getUint32(0, true);
  return scratch.getFloat32(0, true) > t ? bits - 1 : bits;
}

/** The threshold as float32 bits, or null when the device cannot apply it (a 3-way form, a negative value). */
export function pairThresholdBits(threshold: Threshold): PairThresholdBits | null {
  switch (threshold.kind) {
    case 'none': return { kind: 'none' };
    case 'single': return threshold.value >= 0 ? { kind: 'single', above: float32BitsAtMost(threshold.value) } : null;
    case 'multi2': {
      const { tLL, tLH, tHH, tLLHH } = threshold;
      if (!(tLL >= 0 && tLH >= 0 && tHH >= 0 && tLLHH >= 0)) return null;
      return { kind: 'multi2', ll: float32BitsAtMost(tLL), lh: float32BitsAtMost(tLH), hh: float32BitsAtMost(tHH), llhh: float32BitsAtMost(tLLHH) };
    }
    case 'multi3': return null;
  }
}

/**
 * The threshold of a pair-count program (PairValueProgram.pairCounts) as its double's words: a pair is recorded when its
 * value is not ≤ the run's single value (pairCountRows.ts); null for per-entry forms (the CLI refuses them).
 */
export function pairValueThresholdBits(threshold: Threshold): PairThresholdBits | null {
  if (threshold.kind === 'none') return { kind: 'none' };
  if (threshold.kind !== 'single') return null;
  const words = new Uint32Array(new Float64Array([threshold.value]).buffer);
  return { kind: 'pairValue', lo: words[0], hi: words[1] };
}

/** What the device computes of a run's pairs: the analysis's value program, its run constants, tallies and per-vector words. */
export interface PairValues {
  readonly program: PairValueProgram;
  readonly constants: readonly number[];
  readonly termGroups: readonly TermGroup[];
  /** Per-vector words of a block's rows (from its real vectors' sums and counts). */
  wordsOf(block: VectorBlockView): Uint32Array;
  /** The GEMM's planeWordRanges (mgemm/contract.ts: words outside which a plane has no bit); absent: none. */
  readonly planeWordRanges?: readonly (PlaneWordRange | null)[] | null;
}

/** The kernel set's device finalize, typed as present. */
type FinalizePairs = NonNullable<PopcountGemm['finalizePairs']>;

/** Finalizes a run's pair panels on the device with an analysis's value program. */
export class ProgramDevicePairs implements DevicePairFinalizer {
  private readonly vectorWords = new WeakMap<VectorBlockView, Uint32Array>();

  private constructor(
    private readonly values: PairValues,
    private readonly finalizePairs: FinalizePairs,
    private readonly threshold: PairThresholdBits,
    private readonly numVector: number,
    private readonly records: boolean,
    private readonly denseValues: DenseValueKind | null,
    private readonly histogram: HistogramLayout | null,
    private readonly window: PairWindowLimits | null,
    private readonly recordBar: RecordBarSource | null,
  ) {}

  /**
   * The finalizer, or null when the host finalizes: no value program for the run (`values` null: constants outside
   * the device library's range), a kernel set without device finalize, checksum uids beyond the device's range, a
   * threshold it cannot apply, or a per-entry threshold of a program with fewer entries than a whole table.
   */
  static create(
    values: PairValues | null, gemm: PopcountGemm, threshold: Threshold, numVector: number, options: DeviceFinalizeOptions,
  ): ProgramDevicePairs | null {
    const finalizePairs = gemm.finalizePairs?.bind(gemm);
    if (values === null || finalizePairs === undefined || !pairUidsOnDevice(numVector)) return null;
    const pairCounts = values.program.pairCounts ?? false;
    const bits = pairCounts ? pairValueThresholdBits(threshold) : pairThresholdBits(threshold);
    if (bits === null || (bits.kind === 'multi2' && !valuesFillTable(values.program))) return null;
    const denseValues = options.denseValues ?? null;
    // Dense values are one per pair (a pair-count program's own value).
    if (denseValues !== null && values.program.entryBits.length !== 1 && !pairCounts) return null;
    // Pair counts go with neither histograms (of counts) nor LD windows nor top N: none is a KING result.
    if (pairCounts && ((options.histogram ?? null) !== null || (options.window ?? null) !== null || (options.recordBar ?? null) !== null)) return null;
    return new ProgramDevicePairs(
      values, finalizePairs, bits, numVector, options.writesRecords, denseValues, options.histogram ?? null, options.window ?? null,
      options.recordBar ?? null,
    );
  }

  get program(): PairValueProgram {
    return this.values.program;
  }

  /** Computes and finalizes a panel on the device. */
  start(block: PairBlock): Promise<PairFinalizeResult> {
    const { rows, cols } = block;
    const request: PairFinalizeRequest = {
      gemm: {
        a: rows.planes, aFirst: block.rowFirst, aCount: block.numRows,
        b: cols.planes, bFirst: block.colFirst, bCount: block.numCols,
        termGroups: [...this.values.termGroups], strictUpper: block.strictUpper, planeWordRanges: this.values.planeWordRanges ?? null,
      },
      values: this.values.program,
      constants: this.values.constants,
      rowVectors: this.vectorWordsOf(rows),
      colVectors: this.vectorWordsOf(cols),
      rowVectorFirst: rows.vectorFirst,
      colVectorFirst: cols.vectorFirst,
      numVector: this.numVector,
      threshold: this.threshold,
      records: this.records,
      denseValues: this.denseValues,
      histogram: this.histogram,
      windowed: this.window !== null,
      recordBar: this.records ? this.recordBar?.() ?? null : null,
    };
    return this.finalizePairs(request);
  }

  /**
   * Adds a panel's device results to the checksum, its histogram counts, and its records (in the host's order and
   * file layout) to the output, then releases the records (they may lie in the device's read-back memory).
   */
  apply(result: DoneResult, sink: ResultSink): void {
    try {
      sink.checksum.addExact(result.checksumSum, result.entries, result.zeros);
      if (result.histogram !== null) sink.addHistogramCounts(result.histogram);
      sink.addRecordWords(result.records.words, result.records.count);
    } finally {
      result.records.release();
    }
  }

  /** Per-vector words of a block, computed once per block. */
  private vectorWordsOf(block: VectorBlockView): Uint32Array {
    let words = this.vectorWords.get(block);
    if (words === undefined) {
      words = this.values.wordsOf(block);
      if (this.window !== null) words = withWindowWords(words, this.values.program.vectorWords, block, this.window);
      this.vectorWords.set(block, words);
    }
    return words;
  }
}

/**
 * A block's per-vector words with the LD window's after each row's (mgemm/pairFinalize.ts PAIR_WINDOW_WORDS): its
 * vector's band end and, with inter-chr, its chromosome's end. Pad rows are never computed: their words stay 0.
 */
function withWindowWords(valueWords: Uint32Array, perVector: number, block: VectorBlockView, window: PairWindowLimits): Uint32Array {
  const stride = perVector + PAIR_WINDOW_WORDS;
  const numRows = block.planes.numVectors;
  const words = new Uint32Array(stride * numRows);
  for (let r = 0; r < numRows; r++) {
    words.set(valueWords.subarray(perVector * r, perVector * (r + 1)), stride * r);
    if (r >= block.numVectorReal) continue;
    const v = block.vectorFirst + r;
    words[stride * r + perVector] = window.bandEnd[v];
    words[stride * r + perVector + 1] = window.spec.interChr ? window.chrEnd[v] : NO_OTHER_CHROMOSOME;
  }
  return words;
}
