// 3-way finalize on the device (mgemm/tripleFinalize.ts), for kernel sets that offer it: when a run may use it,
// what the engine precomputes for it (per-vector factors, thresholds as float32 bits), and how its results
// reach the EntrySink. A slice the device hands back ('needsHost') is finalized on the CPU by the pipeline.
import type { Threshold } from '../core/thresholds.js';
import {
  offersTripleFinalize, TRIPLE_VECTOR_WORDS, tripleFormulaOnDevice, type PopcountGemm, type PopcountGemmRequest,
  type TripleFinalizer, type TripleFinalizeResult, type TripleFormula, type TripleThresholdBits,
} from '../../mgemm/index.js';
import type { DensePairCounts, TripleSlice } from './finalize3.js';
import type { MetricContext } from './metricContext.js';
import { tally3Plan } from './tallyLayout.js';
import type { VectorBlock } from './vectorBlock.js';

/** Device finalize of a run's j-slices: start one (GEMM and finalize where the tallies lie), then apply its result. */
export interface TripleDeviceFinalize {
  start(gemm: PopcountGemmRequest, slice: TripleSlice, pairCounts: DensePairCounts | null): Promise<TripleFinalizeResult>;
  /** Adds a 'done' result to the sink and returns the slice's triples; null when the host must finalize the slice. */
  apply(slice: TripleSlice, result: TripleFinalizeResult): number | null;
}

const scratchFloat = new DataView(new ArrayBuffer(8));
/** Bits of the largest float32 ≤ t, for t ≥ 0: float32 v > t iff v ≥ 0 and bits(v) > these. */
export function float32BitsAtMost(t: number): number {
  scratchFloat.setFloat32(0, t, true);
  const bits = scratchFloat.getUint32(0, true);
  return Math.fround(t) > t ? bits - 1 : bits;
}

/** The threshold as float32 bits, or null when the device cannot apply it (negative values, 2-way forms). */
export function tripleThresholdBits(threshold: Threshold): TripleThresholdBits | null {
  switch (threshold.kind) {
    case 'none':
      return { kind: 'none' };
    case 'single':
      return threshold.value >= 0 ? { kind: 'single', above: float32BitsAtMost(threshold.value) } : null;
    case 'multi3': {
      const { tLLL, tLLH, tLHH, tHHH, tLLLHHH } = threshold;
      if (![tLLL, tLLH, tLHH, tHHH, tLLLHHH].every((t) => t >= 0)) return null;
      return {
        kind: 'multi3', lll: float32BitsAtMost(tLLL), llh: float32BitsAtMost(tLLH), lhh: float32BitsAtMost(tLHH),
        hhh: float32BitsAtMost(tHHH), lllhhh: float32BitsAtMost(tLLLHHH),
      };
    }
    case 'multi2':
      return null;
  }
}

function tripleFormula(ctx: MetricContext): TripleFormula {
  const C = ctx.constants.countedBits;
  return {
    sparse: ctx.layout.maskPlane !== null,
    countedBits: C === 1 ? 1 : 2,
    multiplier: ctx.constants.multiplier,
    numField: ctx.numField,
    // As src/engine/finalize3.ts computes it.
    denseRsum: (1 / (C * C * C)) * (1 / ctx.numField),
  };
}

/**
 * Per-vector words of a block's real vectors (mgemm/tripleFinalize.ts TripleVectorWords): f and g with the
 * operations of src/engine/finalize3.ts (dense rc = (1/C)·(1/m), sparse rc = (1/C)·(1/c); f = rc·s; g = 1 − p·f).
 */
export function tripleVectorWords(ctx: MetricContext, block: VectorBlock): Uint32Array {
  const C = ctx.constants.countedBits;
  const p = ctx.constants.param;
  const sparse = ctx.layout.maskPlane !== null;
  const nf = ctx.numField;
  const recipC = 1 / C;
  const recipCrc = recipC * (1 / nf);
  const words = new Uint32Array(block.numVectorReal * TRIPLE_VECTOR_WORDS);
  const doubles = new Float64Array(words.buffer);
  for (let v = 0; v < block.numVectorReal; v++) {
    const s1 = block.sums[v];
    const count = sparse ? block.counts[v] : nf;
    const at = v * TRIPLE_VECTOR_WORDS;
    words[at] = s1;
    words[at + 1] = count;
    // A sparse vector with no present field makes its triples' values 0: its factors are never used.
    if (count === 0) continue;
    const rc = sparse ? recipC * (1 / count) : recipCrc;
    const f0 = rc * (C * count - s1);
    const f1 = rc * s1;
    // Words 2..9 are doubles 1..4 of the row (TRIPLE_VECTOR_WORDS is even).
    doubles[at / 2 + 1] = f0;
    doubles[at / 2 + 2] = f1;
    doubles[at / 2 + 3] = 1 - p * f0;
    doubles[at / 2 + 4] = 1 - p * f1;
  }
  return words;
}

/**
 * Device finalize for this run, or null when it finalizes on the host: the kernel set must offer it, the
 * metric be CCC or DUO, tallies complete on this rank (one field slab), no analytic check of every value,
 * the formula within the device's exact range, and the threshold one the device applies.
 */
export function tripleDeviceFinalizeFor(ctx: MetricContext, gemm: PopcountGemm, numFieldSlabs: number): TripleDeviceFinalize | null {
  if (!offersTripleFinalize(gemm)) return null;
  if (ctx.spec.metric !== 'ccc' && ctx.spec.metric !== 'duo') return null;
  if (numFieldSlabs !== 1 || ctx.verifier !== null) return null;
  const formula = tripleFormula(ctx);
  if (!tripleFormulaOnDevice(formula, ctx.constants.param, ctx.numVector)) return null;
  const threshold = tripleThresholdBits(ctx.sink.threshold);
  if (threshold === null) return null;
  return new TripleDeviceFinalizeImpl(ctx, gemm, formula, threshold);
}

class TripleDeviceFinalizeImpl implements TripleDeviceFinalize {
  /** Per-vector words of each block, computed on first use. */
  private readonly vectorWords = new WeakMap<VectorBlock, Uint32Array>();
  private readonly products: readonly number[];

  constructor(
    private readonly ctx: MetricContext, private readonly finalizer: TripleFinalizer,
    private readonly formula: TripleFormula, private readonly threshold: TripleThresholdBits,
  ) {
    this.products = tally3Plan(ctx.layout).products;
  }

  start(gemm: PopcountGemmRequest, slice: TripleSlice, pairCounts: DensePairCounts | null): Promise<TripleFinalizeResult> {
    const vw = TRIPLE_VECTOR_WORDS;
    const { numI, numK, iFirst, kFirst, jLocal } = slice;
    const ij = pairCounts === null ? null : new Uint32Array(numI);
    if (pairCounts !== null && ij !== null) {
      for (let r = 0; r < numI; r++) ij[r] = pairCounts.ij.data[(iFirst + r) * pairCounts.ij.numCols + jLocal];
    }
    return this.finalizer.finalizeTriples({
      gemm,
      products: this.products,
      formula: this.formula,
      iVectors: this.wordsOf(slice.iBlock).subarray(iFirst * vw, (iFirst + numI) * vw),
      jVector: this.wordsOf(slice.jBlock).subarray(jLocal * vw, (jLocal + 1) * vw),
      kVectors: this.wordsOf(slice.kBlock).subarray(kFirst * vw, (kFirst + numK) * vw),
      pairCounts: pairCounts === null || ij === null ? null : {
        ij,
        jk: pairCounts.jk.data.subarray(jLocal * pairCounts.jk.numCols + kFirst, jLocal * pairCounts.jk.numCols + kFirst + numK),
        ik: pairCounts.ik, ikRowFirst: iFirst, ikColFirst: kFirst,
      },
      iVectorFirst: slice.iBlock.vectorFirst + iFirst,
      jVectorGlobal: slice.jBlock.vectorFirst + jLocal,
      kVectorFirst: slice.kBlock.vectorFirst + kFirst,
      numVector: this.ctx.numVector,
      threshold: this.threshold,
      records: this.ctx.sink.writesRecords,
    });
  }

  apply(slice: TripleSlice, result: TripleFinalizeResult): number | null {
    if (result.kind === 'needsHost') return null;
    const j = slice.jBlock.vectorFirst + slice.jLocal;
    this.ctx.sink.addFinalizedTriples(
      result.checksumSum, result.entries, result.zeros, result.records,
      slice.iBlock.vectorFirst + slice.iFirst, j, slice.kBlock.vectorFirst + slice.kFirst, slice.numK,
    );
    return slice.numI * slice.numK;
  }

  private wordsOf(block: VectorBlock): Uint32Array {
    let words = this.vectorWords.get(block);
    if (words === undefined) {
      words = tripleVectorWords(this.ctx, block);
      this.vectorWords.set(block, words);
    }
    return words;
  }
}
