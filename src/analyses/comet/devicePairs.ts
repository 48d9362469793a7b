// CoMet's 2-way finalize on the device: when a run may use it, what it hands the kernel set (per-vector factors
// computed with the CPU path's own double operations, the threshold as float32 bits), and how the small results go
// into the rank's checksum and records in the CPU path's order.
import { denseFactors2, type FormulaConstants } from '../../core/formulas.js';
import type { Threshold } from '../../core/thresholds.js';
import {
  PAIR_VECTOR_WORDS, pairFormulaOnDevice, type PairFinalizeRequest, type PairFinalizeResult, type PairFormula,
  type PairThresholdBits, type PopcountGemm,
} from '../../mgemm/index.js';
import type { DeviceFinalizeOptions, DevicePairFinalizer, PairBlock, ResultSink, VectorBlockView } from '../analysis.js';
import type { CometSettings } from './cometSettings.js';
import { termGroups2 } from './cometTallies.js';

type DoneResult = Extract<PairFinalizeResult, { kind: 'done' }>;

const scratch = new DataView(new ArrayBuffer(8));

/** Bits of the largest float32 ≤ t (t ≥ 0): fround(v) > t ⟺ fround(v) > that float32. */
export function float32BitsAtMost(t: number): number {
  scratch.setFloat32(0, t, true);
  const bits = scratch.getUint32(0, true);
  return scratch.getFloat32(0, true) > t ? bits - 1 : bits;
}

/** The threshold as float32 bits, or null when the device cannot apply it (a 3-way form, a negative value). */
function thresholdBits(threshold: Threshold): PairThresholdBits | null {
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

/** The kernel set's device finalize, typed as present. */
type FinalizePairs = NonNullable<PopcountGemm['finalizePairs']>;

/** Finalizes a run's pair panels on the device; `create` says whether the run may. */
export class CometDevicePairs implements DevicePairFinalizer {
  private readonly vectorWords = new WeakMap<VectorBlockView, Uint32Array>();

  private constructor(
    private readonly run: CometSettings,
    private readonly finalizePairs: FinalizePairs,
    private readonly formula: PairFormula,
    private readonly threshold: PairThresholdBits,
    private readonly records: boolean,
  ) {}

  /**
   * The finalizer of a run, or null when it finalizes on the host: a kernel set without device finalize, constants
   * outside the device library's range, or a threshold it cannot apply.
   */
  static create(run: CometSettings, gemm: PopcountGemm, threshold: Threshold, options: DeviceFinalizeOptions): CometDevicePairs | null {
    const finalizePairs = gemm.finalizePairs?.bind(gemm);
    if (finalizePairs === undefined) return null;
    const k = run.constants;
    const { recipC, rsum } = denseFactors2(k, run.numField);
    const formula: PairFormula = {
      sparse: run.sparse, countedBits: k.countedBits === 1 ? 1 : 2,
      multiplier: k.multiplier, param: k.param, numField: run.numField, rsum, recipC,
    };
    const bits = thresholdBits(threshold);
    if (bits === null || !pairFormulaOnDevice(formula, run.numVector)) return null;
    return new CometDevicePairs(run, finalizePairs, formula, bits, options.writesRecords);
  }

  /** Computes and finalizes a panel on the device. */
  start(block: PairBlock): Promise<PairFinalizeResult> {
    const { rows, cols } = block;
    const request: PairFinalizeRequest = {
      gemm: {
        a: rows.planes, aFirst: block.rowFirst, aCount: block.numRows,
        b: cols.planes, bFirst: block.colFirst, bCount: block.numCols,
        termGroups: termGroups2(this.run.layout), strictUpper: block.strictUpper,
      },
      formula: this.formula,
      rowVectors: this.vectorWordsOf(rows),
      colVectors: this.vectorWordsOf(cols),
      rowVectorFirst: rows.vectorFirst,
      colVectorFirst: cols.vectorFirst,
      numVector: this.run.numVector,
      threshold: this.threshold,
      records: this.records,
    };
    return this.finalizePairs(request);
  }

  /**
   * Adds a panel's device results to the checksum and its records (in the CPU path's order and file layout) to the
   * output, then releases the records (they may lie in the device's read-back memory).
   */
  apply(result: DoneResult, sink: ResultSink): void {
    try {
      sink.checksum.addExact(result.checksumSum, result.entries, result.zeros);
      sink.addRecordWords(result.records.words, result.records.count);
    } finally {
      result.records.release();
    }
  }

  /** Per-vector words of a block, computed once per block. */
  private vectorWordsOf(block: VectorBlockView): Uint32Array {
    let words = this.vectorWords.get(block);
    if (words !== undefined) return words;
    words = pairVectorWords(this.run.constants, this.run.numField, this.formula.sparse, block.planes.numVectors, block.numVectorReal, block.sums, block.counts);
    this.vectorWords.set(block, words);
    return words;
  }
}

/**
 * Per-vector words of mgemm/pairFinalize.ts for `numVectors` rows (the first `numReal` real): s1, count, and for
 * dense formulas g_a = 1 − p·f_a with f_a = ((1/C)·(1/m))·s_a — the operations of finalize2.ts and combine2.
 */
export function pairVectorWords(
  k: FormulaConstants, numField: number, sparse: boolean, numVectors: number, numReal: number,
  sums: ArrayLike<number>, counts: ArrayLike<number>,
): Uint32Array {
  const words = new Uint32Array(numVectors * PAIR_VECTOR_WORDS);
  const C = k.countedBits;
  const { recipCrc } = denseFactors2(k, numField);
  const doubles = new Float64Array(words.buffer);
  for (let l = 0; l < numReal; l++) {
    const s1 = sums[l];
    const at = l * PAIR_VECTOR_WORDS;
    words[at] = s1;
    words[at + 1] = sparse ? counts[l] : numField;
    if (!sparse) {
      doubles[at / 2 + 1] = 1 - k.param * (recipCrc * (C * numField - s1));
      doubles[at / 2 + 2] = 1 - k.param * (recipCrc * s1);
    }
  }
  return words;
}
