// A 2-way run's band on the CPU (engine/finalize/pairBands.ts) as an analysis may compute it itself, GEMM and finalize
// in one — r²'s windowed bands, epistasis's dense ones: the engine otherwise computes each panel (a windowed run: its
// window sub-blocks) with its kernel set's GEMM and hands the tallies to PairAnalysis.finalize.
import type { PairWindowLimits } from '../core/pairWindow.js';
import type { FinalizeContext, PairBlock, VectorBlockView } from './analysis.js';

/** One band of a run without an LD window: panels (local rows of `rows` × local columns of `cols`) in the order their records go to the file. */
export interface PairDenseBand {
  readonly rows: VectorBlockView;
  readonly cols: VectorBlockView;
  readonly panels: readonly Omit<PairBlock, 'rows' | 'cols'>[];
}

/** One band of a windowed run: its panels and the window. */
export interface PairWindowBand extends PairDenseBand {
  readonly window: PairWindowLimits;
}

/** The optional band finalizes of a PairAnalysis. */
export interface PairBandFinalize {
  /**
   * Computes and finalizes the band's pairs in the window into `ctx.sink` — the checksum, counts and records that
   * finalize would give for the panels' window sub-blocks, in the same order — and returns their number; or null when
   * it cannot for this band or sink (then the engine's path runs it).
   */
  finalizeWindowBand?(ctx: FinalizeContext, band: PairWindowBand): number | null;
  /**
   * The same for a run without an LD window: every unique pair of the band's panels, as finalize would give them for
   * the panels' tallies. An analysis that has it makes the engine's CPU runs without a window compute in bands (a
   * panel's rows cut into bands, each computed and finalized on one thread while its tallies are in cache); null: the
   * engine computes the band's panels with its GEMM and finalizes them.
   */
  finalizeDenseBand?(ctx: FinalizeContext, band: PairDenseBand): number | null;
}
