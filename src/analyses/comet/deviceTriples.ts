// CoMet's 3-way finalize on the device (mgemm/tripleFinalize.ts): when a run may use it, what it hands the kernel
// set (per-vector factors computed with tripleValues.ts's own double operations, pair counts, the threshold as
// float32 bits), and how the small results go into the rank's checksum and records in the CPU path's order.
import type { Threshold } from '../../core/thresholds.js';
import type { HistogramLayout } from '../../core/histogramLayout.js';
import {
  TRIPLE_VECTOR_WORDS, tripleFormulaOnDevice, type PopcountGemm, type PopcountGemm3Request, type TripleFinalizeResult, type TripleFormula,
  type TripleFinalizeValues, type TripleThresholdBits,
} from '../../mgemm/index.js';
import type { DeviceFinalizeOptions, DeviceTripleFinalizer, RecordBarSource, ResultSink, TripleBatch, VectorBlockView } from '../index.js';
import type { CometSettings } from './cometSettings.js';
import { tally3Plan } from './cometTallies.js';
import { tripleThresholdBits } from '../index.js';
import { vectorFactors } from './tripleValues.js';

type DoneResult = Extract<TripleFinalizeResult, { kind: 'done' }>;

/**
 * Per-vector words of a block's real vectors (mgemm/tripleFinalize.ts): s1, count, f_a = rc·s_a and
 * g_a = 1 − p·f_a with tripleValues.ts's operations (dense rc = (1/C)·(1/m), sparse rc = (1/C)·(1/c)).
 */
export function tripleVectorWords(run: CometSettings, block: VectorBlockView): Uint32Array {
  const sparse = run.sparse;
  const { f0, f1, g0, g1 } = vectorFactors(run, block, 0, block.numVectorReal);
  const words = new Uint32Array(block.numVectorReal * TRIPLE_VECTOR_WORDS);
  const doubles = new Float64Array(words.buffer);
  for (let v = 0; v < block.numVectorReal; v++) {
    const count = sparse ? block.counts[v] : run.numField;
    const at = v * TRIPLE_VECTOR_WORDS;
    words[at] = block.sums[v];
    words[at + 1] = count;
    // A sparse vector without present fields makes its triples' values 0: its factors are never used.
    if (count === 0) continue;
    // Words 2..9 are doubles 1..4 of the vector (TRIPLE_VECTOR_WORDS is even).
    doubles[at / 2 + 1] = f0[v];
    doubles[at / 2 + 2] = f1[v];
    doubles[at / 2 + 3] = g0[v];
    doubles[at / 2 + 4] = g1[v];
  }
  return words;
}

/** The kernel set's device finalize, typed as present. */
type FinalizeTriples = NonNullable<PopcountGemm['finalizeTriples']>;

/** Computes and finalizes a run's batches of j-slices on the device; `create` says whether the run may. */
export class CometDeviceTriples implements DeviceTripleFinalizer {
  private readonly vectorWords = new WeakMap<VectorBlockView, Uint32Array>();
  private readonly products: readonly number[];
  readonly values: TripleFinalizeValues;

  private constructor(
    private readonly run: CometSettings,
    private readonly finalizeTriples: FinalizeTriples,
    private readonly formula: TripleFormula,
    private readonly threshold: TripleThresholdBits,
    private readonly records: boolean,
    private readonly histogram: HistogramLayout | null,
    private readonly recordBar: RecordBarSource | null,
  ) {
    this.products = tally3Plan(run.layout).products;
    this.values = { kind: 'formula', sparse: run.sparse };
  }

  /**
   * The finalizer of a run, or null when it finalizes on the host: the reasons of CometDevicePairs.create and
   * checksum uids beyond 2^52.
   */
  static create(run: CometSettings, gemm: PopcountGemm, threshold: Threshold, options: DeviceFinalizeOptions): CometDeviceTriples | null {
    const finalizeTriples = gemm.finalizeTriples?.bind(gemm);
    if (finalizeTriples === undefined) return null;
    const k = run.constants;
    const C = k.countedBits;
    const formula: TripleFormula = {
      sparse: run.sparse, countedBits: C === 1 ? 1 : 2, multiplier: k.multiplier, param: k.param,
      numField: run.numField,
      // As tripleValues.ts computes it.
      denseRsum: (1 / (C * C * C)) * (1 / run.numField),
    };
    const bits = tripleThresholdBits(threshold);
    if (bits === null || !tripleFormulaOnDevice(formula, run.numVector)) return null;
    return new CometDeviceTriples(run, finalizeTriples, formula, bits, options.writesRecords, options.histogram ?? null, options.recordBar ?? null);
  }

  /**
   * Computes and finalizes a batch of j-slices on the device: `gemm` is its mGEMM3 request (x = own block, y = the
   * batch's J block, z = its K block); the kernel set builds the pair products itself.
   */
  start(own: VectorBlockView, batch: TripleBatch, gemm: PopcountGemm3Request): Promise<TripleFinalizeResult> {
    const pc = batch.pairCounts;
    if (pc !== null && pc.ji === null) throw new Error('device finalize of a dense batch needs its transposed pair counts (ji)');
    return this.finalizeTriples({
      gemm,
      products: this.products,
      formula: this.formula,
      xVectors: this.vectorWordsOf(own),
      yVectors: this.vectorWordsOf(batch.jb),
      zVectors: this.vectorWordsOf(batch.kb),
      pairCounts: pc === null || pc.ji === null ? null : { yx: pc.ji, yz: pc.jk, xz: pc.ik },
      xVectorFirst: own.vectorFirst,
      yVectorFirst: batch.jb.vectorFirst,
      zVectorFirst: batch.kb.vectorFirst,
      numVector: this.run.numVector,
      threshold: this.threshold,
      records: this.records,
      histogram: this.histogram,
      recordBar: this.records ? this.recordBar?.() ?? null : null,
    });
  }

  /** Adds a batch's device results to the checksum, its histogram counts, and its records (in the CPU path's order and file layout) to the output. */
  apply(result: DoneResult, sink: ResultSink): void {
    sink.checksum.addExact(result.checksumSum, result.entries, result.zeros);
    if (result.histogram !== null) sink.addHistogramCounts(result.histogram);
    sink.addRecordWords(result.records.words, result.records.count);
  }

  private vectorWordsOf(block: VectorBlockView): Uint32Array {
    let words = this.vectorWords.get(block);
    if (words === undefined) {
      words = tripleVectorWords(this.run, block);
      this.vectorWords.set(block, words);
    }
    return words;
  }
}
