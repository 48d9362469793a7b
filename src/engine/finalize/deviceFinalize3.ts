// 3-way finalize on the device (mgemm/tripleFinalize.ts): when a run may use it, what the engine hands the kernel
// set (per-vector factors computed with finalize3.ts's own double operations, pair counts, the threshold as
// float32 bits), and how the small results go into the rank's checksum and records in the CPU path's order.
import type { Threshold } from '../../core/thresholds.js';
import {
  TRIPLE_VECTOR_WORDS, tripleFormulaOnDevice, type PopcountGemm, type PopcountGemm3Request, type TripleFinalizeResult, type TripleFormula,
  type TripleThresholdBits,
} from '../../mgemm/index.js';
import type { Communicator } from '../../parallel/index.js';
import { float32BitsAtMost } from './deviceFinalize2.js';
import { vectorFactors } from './finalize3.js';
import type { FinalizePlacement } from '../run/jobSpec.js';
import type { MetricContext } from './metricContext.js';
import type { TripleBatch } from '../pipeline/pipeline3.js';
import { tally3Plan } from './tallyLayout.js';
import type { VectorBlock } from '../blocks/vectorBlock.js';

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

/**
 * Per-vector words of a block's real vectors (mgemm/tripleFinalize.ts): s1, count, f_a = rc·s_a and
 * g_a = 1 − p·f_a with finalize3.ts's operations (dense rc = (1/C)·(1/m), sparse rc = (1/C)·(1/c)).
 */
export function tripleVectorWords(ctx: MetricContext, block: VectorBlock): Uint32Array {
  const sparse = ctx.layout.maskPlane !== null;
  const { f0, f1, g0, g1 } = vectorFactors(ctx, block, 0, block.numVectorReal);
  const words = new Uint32Array(block.numVectorReal * TRIPLE_VECTOR_WORDS);
  const doubles = new Float64Array(words.buffer);
  for (let v = 0; v < block.numVectorReal; v++) {
    const count = sparse ? block.counts[v] : ctx.numField;
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

/** Computes and finalizes a run's batches of j-slices on the device; `forRun` says whether the run may. */
export class DeviceTripleFinalizer {
  private readonly vectorWords = new WeakMap<VectorBlock, Uint32Array>();
  private readonly products: readonly number[];

  private constructor(
    private readonly ctx: MetricContext,
    private readonly finalizeTriples: FinalizeTriples,
    private readonly formula: TripleFormula,
    private readonly threshold: TripleThresholdBits,
    private readonly records: boolean,
  ) {
    this.products = tally3Plan(ctx.layout).products;
  }

  /**
   * The finalizer of a run, or null when it finalizes on the host: the reasons of DevicePairFinalizer.forRun
   * (`host` placement, no device finalize in the kernel set, not CCC/DUO, field slabs, --verify, constants
   * outside the device library's range, a threshold it cannot apply) and checksum uids beyond 2^52.
   */
  static forRun(
    ctx: MetricContext, gemm: PopcountGemm, fieldComm: Communicator, options: { readonly placement: FinalizePlacement; readonly writesRecords: boolean },
  ): DeviceTripleFinalizer | null {
    const finalizeTriples = gemm.finalizeTriples?.bind(gemm);
    if (options.placement === 'host' || finalizeTriples === undefined) return null;
    if (ctx.spec.metric === 'r2' || ctx.spec.numWay !== 3 || fieldComm.size !== 1 || ctx.verifier !== null) return null;
    const k = ctx.constants;
    const C = k.countedBits;
    const formula: TripleFormula = {
      sparse: ctx.layout.maskPlane !== null, countedBits: C === 1 ? 1 : 2, multiplier: k.multiplier, param: k.param,
      numField: ctx.numField,
      // As finalize3.ts computes it.
      denseRsum: (1 / (C * C * C)) * (1 / ctx.numField),
    };
    const threshold = tripleThresholdBits(ctx.sink.threshold);
    if (threshold === null || !tripleFormulaOnDevice(formula, ctx.numVector)) return null;
    return new DeviceTripleFinalizer(ctx, finalizeTriples, formula, threshold, options.writesRecords);
  }

  /**
   * Computes and finalizes a batch of j-slices on the device: `gemm` is its mGEMM3 request (x = own block, y = the
   * batch's J block, z = its K block); the kernel set builds the pair products itself.
   */
  start(own: VectorBlock, batch: TripleBatch, gemm: PopcountGemm3Request): Promise<TripleFinalizeResult> {
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
      numVector: this.ctx.numVector,
      threshold: this.threshold,
      records: this.records,
    });
  }

  /**
   * Adds a batch's device results to the checksum and its records (in the CPU path's order and file layout) to the
   * output; returns the batch's triples.
   */
  apply(batch: TripleBatch, result: DoneResult): number {
    const { sink } = this.ctx;
    sink.checksum.addExact(result.checksumSum, result.entries, result.zeros);
    sink.addRecordWords(result.records.words, result.records.count);
    let numTriples = 0;
    for (const { iRange, kRange } of batch.slices) numTriples += (iRange.end - iRange.first) * (kRange.end - kRange.first);
    return numTriples;
  }

  private vectorWordsOf(block: VectorBlock): Uint32Array {
    let words = this.vectorWords.get(block);
    if (words === undefined) {
      words = tripleVectorWords(this.ctx, block);
      this.vectorWords.set(block, words);
    }
    return words;
  }
}
