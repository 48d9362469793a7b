// The one place where a run's host finalize functions are looked up, from plain data: finalize worker threads
// get them through it from a spec posted to them, and the main thread through it as well.
import type { MetricSpec } from '../../core/types.js';
import { finalizePairs, type PairBlock } from './finalize2.js';
import { finalizeR2Pairs } from './finalizeR2.js';
import { finalizeTriples, type DensePairCounts, type TripleSlice } from './finalize3.js';
import type { MetricContext } from './metricContext.js';

/** What selects a run's finalize functions; structured-cloneable, so that it travels to worker threads. */
export interface FinalizerSpec {
  readonly metricSpec: MetricSpec;
}

/** Values of a block of pairs into `ctx.sink` (and `ctx.verifier`); returns the pairs finalized. */
export type PairFinalizer = (ctx: MetricContext, block: PairBlock, tallies: readonly Uint32Array[]) => number;

/** Values of one j-slice of triples into `ctx.sink` (and `ctx.verifier`); returns the triples finalized. */
export type TripleFinalizer = (
  ctx: MetricContext, slice: TripleSlice, products: readonly number[], tallies: readonly Uint32Array[], pairCounts: DensePairCounts | null,
) => number;

export interface Finalizers {
  readonly pairs: PairFinalizer;
  readonly triples: TripleFinalizer;
}

/** The finalize functions of `spec`'s metric. */
export function loadFinalizers(spec: FinalizerSpec): Promise<Finalizers> {
  const pairs: PairFinalizer = spec.metricSpec.metric === 'r2' ? finalizeR2Pairs : finalizePairs;
  return Promise.resolve({ pairs, triples: finalizeTriples });
}
