// 3-way finalize on the device for any analysis with a triple value program (mgemm's TripleValueProgram): the kernel
// set computes a batch's tallies, runs the program on them where they lie — one value per triple, named by the triple
// as ResultSink.addTupleValueRow names it —, applies the threshold to records on float32 bits, sums the exact checksum
// of every triple and returns the passing records in the host's order; only those come back. An analysis supplies its
// TripleValues (program, run constants, run words, per-vector words); this file does the rest.
import type { Threshold } from '../core/thresholds.js';
import {
  tripleValueUidsOnDevice, type GroupedTriplePairCounts, type PairCountMatrix, type PopcountGemm, type PopcountGemm3Request, type TripleFinalizeResult,
  type TripleFinalizeValues, type TripleThresholdBits, type TripleValueProgram,
} from '../mgemm/index.js';
import type {
  BlockPairCounts, DeviceFinalizeOptions, DeviceTripleFinalizer, PairCounts, RecordBarSource, ResultSink, TripleBatch, VectorBlockView,
} from './analysis.js';
import { float32BitsAtMost } from './devicePairs.js';

type DoneResult = Extract<TripleFinalizeResult, { kind: 'done' }>;

/** The threshold as float32 bits, or null when the device cannot apply it (a 2-way form, a negative value). */
export function tripleThresholdBits(threshold: Threshold): TripleThresholdBits | null {
  switch (threshold.kind) {
    case 'none': return { kind: 'none' };
    case 'single': return threshold.value >= 0 ? { kind: 'single', above: float32BitsAtMost(threshold.value) } : null;
    case 'multi3': {
      const { tLLL, tLLH, tLHH, tHHH, tLLLHHH } = threshold;
      if (!(tLLL >= 0 && tLLH >= 0 && tLHH >= 0 && tHHH >= 0 && tLLLHHH >= 0)) return null;
      return {
        kind: 'multi3', lll: float32BitsAtMost(tLLL), llh: float32BitsAtMost(tLLH), lhh: float32BitsAtMost(tLHH),
        hhh: float32BitsAtMost(tHHH), lllhhh: float32BitsAtMost(tLLLHHH),
      };
    }
    case 'multi2': return null;
  }
}

/** What the device computes of a run's triples: the analysis's value program, its run constants and words, per-vector words. */
export interface TripleValues {
  readonly program: TripleValueProgram;
  readonly constants: readonly number[];
  /** Words of the whole run (a table), the same array for every request. */
  readonly runWords: Uint32Array;
  /** Per-vector words of a block's rows (program.vectorWords each; from its real vectors' planes, sums and counts). */
  wordsOf(block: VectorBlockView): Uint32Array;
}

/**
 * A batch's block-pair counts as a value program reads them (mgemm GroupedTriplePairCounts): each matrix's groups one
 * after another — yx from the transposed ji, as the engine computes it for device finalize.
 */
export function groupedTriplePairCounts(counts: BlockPairCounts, numGroups: number): GroupedTriplePairCounts {
  if (counts.ji === null) throw new Error('device finalize of a batch with pair counts needs their transpose (ji)');
  const stacked = (pc: PairCounts): PairCountMatrix => {
    const groups = pc.groups ?? [pc.data];
    if (groups.length !== numGroups) throw new Error(`the value program reads ${numGroups} pair-count groups, the batch has ${groups.length}`);
    const data = new Uint32Array(groups.reduce((sum, group) => sum + group.length, 0));
    let at = 0;
    for (const group of groups) {
      data.set(group, at);
      at += group.length;
    }
    return { data, numCols: pc.numCols };
  };
  const xz = stacked(counts.ik);
  return { numGroups, yx: stacked(counts.ji), yz: stacked(counts.jk), xz };
}

/** The kernel set's device finalize, typed as present. */
type FinalizeTriples = NonNullable<PopcountGemm['finalizeTriples']>;

/** Finalizes a run's batches of j-slices on the device with an analysis's triple value program. */
export class ProgramDeviceTriples implements DeviceTripleFinalizer {
  private readonly vectorWords = new WeakMap<VectorBlockView, Uint32Array>();
  /** A unit's stacked pair counts, made once for all its batches (the device keeps their T[cmc] by its array). */
  private readonly pairCounts = new WeakMap<BlockPairCounts, GroupedTriplePairCounts>();
  readonly values: TripleFinalizeValues;

  private constructor(
    private readonly tripleValues: TripleValues,
    private readonly finalizeTriples: FinalizeTriples,
    private readonly threshold: TripleThresholdBits,
    private readonly numVector: number,
    private readonly records: boolean,
    private readonly recordBar: RecordBarSource | null,
  ) {
    this.values = { kind: 'program', program: tripleValues.program };
  }

  /**
   * The finalizer, or null when the host finalizes: no value program for the run (`values` null), a kernel set without
   * device finalize, checksum uids beyond the device's range, a threshold other than one value ≥ 0 (a per-entry form
   * needs entries), or a histogram (one value per triple counts in none).
   */
  static create(
    values: TripleValues | null, gemm: PopcountGemm, threshold: Threshold, numVector: number, options: DeviceFinalizeOptions,
  ): ProgramDeviceTriples | null {
    const finalizeTriples = gemm.finalizeTriples?.bind(gemm);
    if (values === null || finalizeTriples === undefined || !tripleValueUidsOnDevice(numVector) || (options.histogram ?? null) !== null) return null;
    const bits = tripleThresholdBits(threshold);
    if (bits === null || bits.kind === 'multi3') return null;
    return new ProgramDeviceTriples(values, finalizeTriples, bits, numVector, options.writesRecords, options.recordBar ?? null);
  }

  /** Computes and finalizes a batch of j-slices on the device (x = own block, y = the batch's J block, z = its K block). */
  start(own: VectorBlockView, batch: TripleBatch, gemm: PopcountGemm3Request): Promise<TripleFinalizeResult> {
    const { program, constants, runWords } = this.tripleValues;
    const numGroups = program.pairCountGroups ?? 0;
    return this.finalizeTriples({
      gemm, values: program, constants, runWords,
      ...(numGroups === 0 ? {} : { pairCounts: this.pairCountsOf(batch, numGroups) }),
      xVectors: this.vectorWordsOf(own),
      yVectors: this.vectorWordsOf(batch.jb),
      zVectors: this.vectorWordsOf(batch.kb),
      xVectorFirst: own.vectorFirst,
      yVectorFirst: batch.jb.vectorFirst,
      zVectorFirst: batch.kb.vectorFirst,
      numVector: this.numVector,
      threshold: this.threshold,
      records: this.records,
      recordBar: this.records ? this.recordBar?.() ?? null : null,
    });
  }

  /** Adds a batch's device results to the checksum and its records (in the host's order and file layout) to the output. */
  apply(result: DoneResult, sink: ResultSink): void {
    sink.checksum.addExact(result.checksumSum, result.entries, result.zeros);
    sink.addRecordWords(result.records.words, result.records.count);
  }

  private pairCountsOf(batch: TripleBatch, numGroups: number): GroupedTriplePairCounts {
    const counts = batch.pairCounts;
    if (counts === null) throw new Error(`${this.tripleValues.program.cacheKey}: a batch without the pair counts its program reads`);
    let grouped = this.pairCounts.get(counts);
    if (grouped === undefined) {
      grouped = groupedTriplePairCounts(counts, numGroups);
      this.pairCounts.set(counts, grouped);
    }
    return grouped;
  }

  /** Per-vector words of a block, computed once per block. */
  private vectorWordsOf(block: VectorBlockView): Uint32Array {
    let words = this.vectorWords.get(block);
    if (words === undefined) {
      words = this.tripleValues.wordsOf(block);
      this.vectorWords.set(block, words);
    }
    return words;
  }
}
