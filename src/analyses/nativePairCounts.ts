// Loads the native finalize of pair-count rows (build/paircounts/snptally_paircounts.node, see
// native/pairCounts/src/pairCountRows.h) once per thread, on first use, or says why it cannot be used (nativeAddons.ts).
// Its values and checksum are pairCountRows.ts's JS path's, bit for bit.
import { nativeAddonLoader, type NativeAddonStatus } from './nativeAddons.js';

/** Which analysis's counts and value a block takes (KING's four tally groups, or the distances' two). */
export type NativePairCountKind = 'king' | 'allele-distance' | 'squared-distance';

/** The addon's number for each kind (pairCountRows.h PairCountKind). */
export const NATIVE_PAIR_COUNT_KINDS: Readonly<Record<NativePairCountKind, number>> = { 'king': 0, 'allele-distance': 1, 'squared-distance': 2 };

/** A block of pairs as the addon reads it (pairCountRows.h PairCountBlock). */
export interface NativePairCountBlock {
  readonly kind: number;
  readonly tallies: readonly Uint32Array[];
  readonly tallyStride: number;
  readonly numRows: number;
  readonly numCols: number;
  readonly rowVector: number;
  readonly colVector: number;
  readonly rowFirst: number;
  readonly colFirst: number;
  readonly strictUpper: boolean;
  readonly numVector: number;
}

/** The block's checksum part (ChecksumAccumulator.merge's limbs) and counts. */
export interface NativePairCountOutcome {
  readonly checksumLimbs: Float64Array;
  readonly entries: number;
  readonly zeros: number;
  readonly numPairs: number;
}

export interface NativePairCountAddon {
  /** Values to `values[r · numCols + c]`; null where a count is out of range (the JS path then reports it). */
  pairCountRows(block: NativePairCountBlock, values: Float64Array): NativePairCountOutcome | null;
}

/** The addon, loaded once per thread, or why it is unavailable. */
export const loadNativePairCountAddon: () => NativeAddonStatus<NativePairCountAddon> =
  nativeAddonLoader<NativePairCountAddon>('paircounts', 'native pair-count finalize');
