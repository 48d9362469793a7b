// A windowed 2-way run's band (engine/finalize/pairBands.ts) as an analysis may compute it itself, GEMM and finalize in
// one (r²'s native path): the engine otherwise computes each panel's window sub-blocks with its kernel set's GEMM and
// hands their tallies to PairAnalysis.finalize.
import type { PairWindowLimits } from '../core/pairWindow.js';
import type { FinalizeContext, PairBlock, VectorBlockView } from './analysis.js';

/** One band: panels (local rows of `rows` × local columns of `cols`) in the order their records go to the file. */
export interface PairWindowBand {
  readonly rows: VectorBlockView;
  readonly cols: VectorBlockView;
  readonly panels: readonly Omit<PairBlock, 'rows' | 'cols'>[];
  readonly window: PairWindowLimits;
}

/** The optional band finalize of a PairAnalysis. */
export interface PairBandFinalize {
  /**
   * Computes and finalizes the band's pairs in the window into `ctx.sink` — the checksum, counts and records that
   * finalize would give for the panels' window sub-blocks, in the same order — and returns their number; or null when
   * it cannot for this band or sink (then the engine's path runs it).
   */
  finalizeWindowBand?(ctx: FinalizeContext, band: PairWindowBand): number | null;
}
