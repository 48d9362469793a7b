// Loads the native scorer of dense 2-way epistasis panels and bands (build/epistasis/snptally_epistasis.node, see
// src/densePairScores.h and src/denseBand.h) once per thread, on first use, and says why it cannot be used when it cannot: not built (no
// compiler, not x86-64, install scripts skipped; analyses/nativeAddons.ts). Its values, checksum and records are the JS
// path's, bit for bit.
import type { EpistasisScore } from '../../../core/types.js';
import { nativeAddonLoader, type NativeBandBlocks, type NativeRecordSelection } from '../../index.js';

/** A dense panel of pairs as the addon reads it (epistasisPairs.ts builds it from a PairBlock). */
export interface NativeDensePanel {
  /** pairTermGroups(dense)'s 8 groups, rows × numCols each. */
  readonly tallies: readonly Uint32Array[];
  readonly numCols: number;
  readonly rowsReal: number;
  readonly colsReal: number;
  readonly strictUpper: boolean;
  /** Global indices of the panel's row 0 and column 0. */
  readonly rowVectorFirst: number;
  readonly colVectorFirst: number;
  /** Class genotype counts (4 per vector) of the panel's rows and columns, from its row 0 and column 0. */
  readonly rowCounts: Int32Array;
  readonly colCounts: Int32Array;
  readonly controls: number;
  readonly cases: number;
  readonly numVector: number;
  /** When given, each pair's engine value at r·numCols + c too (tests compare them with the JS path's doubles). */
  readonly values?: Float64Array | null;
}

/** The score and the JS path's tables and constants (so that the addon computes from the same doubles). */
export interface NativeScoring {
  readonly score: EpistasisScore;
  readonly logFactorial: Float64Array;
  readonly nLogN: Float64Array;
  readonly k2Scale: number;
  readonly ln2: number;
}

/** A band of panels as the addon computes and scores it (nativeDensePairs.ts builds it from a PairDenseBand). */
export interface NativeDenseBand extends NativeBandBlocks {
  /** Planes per vector (epistasisPlanes.ts's 6). */
  readonly numPlanes: number;
  /** The planes of genotype 0 and 1 of controls, then of cases. */
  readonly genotypePlanes: Int32Array;
  /** Each class's 32-bit words [first, end) of a plane (controls, then cases), where its planes may have bits. */
  readonly classWords: Int32Array;
  readonly controls: number;
  readonly cases: number;
  readonly numVector: number;
}

/** A panel's (or band's) exact checksum part and its records as the file lays them out (i, j, value bits). */
export interface NativePanelScores {
  /** The sum Σ rv·iv of ChecksumAccumulator.addEntries as its limbs (ChecksumAccumulator.merge). */
  readonly checksumLimbs: Float64Array;
  readonly entries: number;
  readonly zeros: number;
  readonly numPairs: number;
  readonly recordWords: Uint32Array;
  readonly numRecords: number;
}

/** The addon's functions. */
export interface NativePairScorer {
  scoreDensePairs(panel: NativeDensePanel, scoring: NativeScoring, selection: NativeRecordSelection): NativePanelScores;
  /** Computes the band's tallies and scores them: the outcome of scoreDensePairs over its panels' GEMM tallies. */
  scoreDenseBand(band: NativeDenseBand, scoring: NativeScoring, selection: NativeRecordSelection): NativePanelScores;
  /** Whether the band's AVX-512 tallies run on this CPU. */
  avx512TalliesUsable(): boolean;
}

export type NativePairScorerStatus =
  | { readonly available: true; readonly scorer: NativePairScorer }
  | { readonly available: false; readonly reason: string };

const loadScorer = nativeAddonLoader<NativePairScorer>('epistasis', 'native epistasis scorer');

/** The native scorer, loaded once per thread, or why it is unavailable. */
export function loadNativePairScorer(): NativePairScorerStatus {
  const loaded = loadScorer();
  return loaded.available ? { available: true, scorer: loaded.addon } : loaded;
}
