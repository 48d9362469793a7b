// 2-way finalize on the device: when a run may use it, what the engine hands the kernel set (the analysis's value
// program — cometPairProgram.ts for CCC/DUO, r2PairProgram.ts for r² — with its constants and per-vector words, the
// term groups it reads, the threshold as float32 bits), and how the small results go into the rank's checksum and
// records in the CPU path's order.
import type { Threshold } from '../../core/thresholds.js';
import {
  pairUidsOnDevice, valuesFillTable, type PairFinalizeRequest, type PairFinalizeResult, type PairThresholdBits, type PairValueProgram,
  type PopcountGemm, type TermGroup,
} from '../../mgemm/index.js';
import type { Communicator } from '../../parallel/index.js';
import { cometPairConstants, cometPairProgram, cometPairVectorWords } from './cometPairProgram.js';
import type { PairBlock } from './finalize2.js';
import { termGroupsR2 } from './finalizeR2.js';
import type { FinalizePlacement } from '../run/jobSpec.js';
import type { MetricContext } from './metricContext.js';
import { r2PairConstants, r2PairProgram, r2PairVectorWords } from './r2PairProgram.js';
import { termGroups2 } from './tallyLayout.js';
import type { VectorBlock } from '../blocks/vectorBlock.js';

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

/** What the device computes of a run's pairs: the analysis's value program, its run constants, tallies and per-vector words. */
interface PairValues {
  readonly program: PairValueProgram;
  readonly constants: readonly number[];
  readonly termGroups: readonly TermGroup[];
  /** Per-vector words of a block's rows (its real vectors' sums and counts). */
  wordsOf(block: VectorBlock): Uint32Array;
}

/** The run's pair values on the device, or null when its constants are outside the device library's range. */
function pairValuesOf(ctx: MetricContext): PairValues | null {
  const { spec, numField } = ctx;
  if (spec.metric === 'r2') {
    const constants = r2PairConstants(spec.sparse, numField);
    if (constants === null) return null;
    return {
      program: r2PairProgram(spec.sparse), constants, termGroups: termGroupsR2(spec.sparse),
      wordsOf: (block) => r2PairVectorWords(spec.sparse, block.planes.numVectors, block.numVectorReal, block.sums),
    };
  }
  const k = ctx.constants;
  const sparse = ctx.layout.maskPlane !== null;
  const constants = cometPairConstants(k, numField);
  if (constants === null) return null;
  return {
    program: cometPairProgram(sparse), constants, termGroups: termGroups2(ctx.layout),
    wordsOf: (block) => cometPairVectorWords(k, numField, sparse, block.planes.numVectors, block.numVectorReal, block.sums, block.counts),
  };
}

/** The kernel set's device finalize, typed as present. */
type FinalizePairs = NonNullable<PopcountGemm['finalizePairs']>;

/** Finalizes a run's pair panels on the device; `forRun` says whether the run may. */
export class DevicePairFinalizer {
  private readonly vectorWords = new WeakMap<VectorBlock, Uint32Array>();

  private constructor(
    private readonly ctx: MetricContext,
    private readonly finalizePairs: FinalizePairs,
    private readonly values: PairValues,
    private readonly threshold: PairThresholdBits,
    private readonly records: boolean,
  ) {}

  /**
   * The finalizer of a run, or null when it finalizes on the host: field slabs (tallies are summed across ranks
   * first), --verify (needs every value), `host` placement, a kernel set without device finalize, constants outside
   * the device library's range, or a per-entry threshold of an analysis with fewer entries than a whole table.
   */
  static forRun(
    ctx: MetricContext, gemm: PopcountGemm, fieldComm: Communicator, options: { readonly placement: FinalizePlacement; readonly writesRecords: boolean },
  ): DevicePairFinalizer | null {
    const finalizePairs = gemm.finalizePairs?.bind(gemm);
    if (options.placement === 'host' || finalizePairs === undefined) return null;
    if (ctx.spec.numWay !== 2 || fieldComm.size !== 1 || ctx.verifier !== null || !pairUidsOnDevice(ctx.numVector)) return null;
    const values = pairValuesOf(ctx);
    const threshold = thresholdBits(ctx.sink.threshold);
    if (values === null || threshold === null) return null;
    if (threshold.kind === 'multi2' && !valuesFillTable(values.program)) return null;
    return new DevicePairFinalizer(ctx, finalizePairs, values, threshold, options.writesRecords);
  }

  /** The value program the kernel set compiles (runPreview.ts). */
  get valueProgram(): PairValueProgram {
    return this.values.program;
  }

  /** Computes and finalizes a panel on the device. */
  start(block: PairBlock): Promise<PairFinalizeResult> {
    const { rows, cols } = block;
    const request: PairFinalizeRequest = {
      gemm: {
        a: rows.planes, aFirst: block.rowFirst, aCount: block.numRows,
        b: cols.planes, bFirst: block.colFirst, bCount: block.numCols,
        termGroups: this.values.termGroups, strictUpper: block.strictUpper,
      },
      values: this.values.program,
      constants: this.values.constants,
      rowVectors: this.vectorWordsOf(rows),
      colVectors: this.vectorWordsOf(cols),
      rowVectorFirst: rows.vectorFirst,
      colVectorFirst: cols.vectorFirst,
      numVector: this.ctx.numVector,
      threshold: this.threshold,
      records: this.records,
    };
    return this.finalizePairs(request);
  }

  /**
   * Adds a panel's device results to the checksum and its records (in the CPU path's order and file layout) to the
   * output, then releases the records (they may lie in the device's read-back memory).
   */
  apply(result: DoneResult): void {
    const { sink } = this.ctx;
    try {
      sink.checksum.addExact(result.checksumSum, result.entries, result.zeros);
      sink.addRecordWords(result.records.words, result.records.count);
    } finally {
      result.records.release();
    }
  }

  /** Per-vector words of a block, computed once per block. */
  private vectorWordsOf(block: VectorBlock): Uint32Array {
    let words = this.vectorWords.get(block);
    if (words !== undefined) return words;
    words = this.values.wordsOf(block);
    this.vectorWords.set(block, words);
    return words;
  }
}
