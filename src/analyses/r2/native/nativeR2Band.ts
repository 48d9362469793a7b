// Loads r²'s native window bands (build/r2/snptally_r2.node, see src/r2WindowBand.h) once per thread, on first use, or
// says why they cannot be used (analyses/nativeAddons.ts). Their values, checksum and records are the JS path's, bit for bit.
import { nativeAddonLoader, type NativeAddonStatus, type NativeBandBlocks, type NativeRecordSelection } from '../../index.js';
import type { NativeLdTextFunctions } from './nativeLdText.js';

/** A band as the addon reads it (r2WindowBand.ts builds it from a PairWindowBand; r2Planes.ts's 4 planes a vector). */
export interface NativeR2Band extends NativeBandBlocks {
  /** The run's vectors (the checksum's uids; the window arrays' length). */
  readonly numVector: number;
  readonly bandBegin: Uint32Array;
  readonly bandEnd: Uint32Array;
  readonly chrBegin: Uint32Array;
  readonly chrEnd: Uint32Array;
  readonly interChr: boolean;
}

/** The band's checksum part (ChecksumAccumulator.merge's limbs), counts and records written. */
export interface NativeR2BandOutcome {
  readonly checksumLimbs: Float64Array;
  readonly entries: number;
  readonly zeros: number;
  /** Pairs in the window. */
  readonly numPairs: number;
  /** Records written to the front of the call's `recordWords` (3 words each: 2i + 1, 2j + 1, float32 bits). */
  readonly numRecords: number;
}

/** The addon's functions (its `.ld` table's too). */
export interface NativeR2Addon extends NativeLdTextFunctions {
  r2WindowBand(band: NativeR2Band, selection: NativeRecordSelection, recordWords: Uint32Array): NativeR2BandOutcome;
  /** Whether its AVX-512 tallies run on this CPU. */
  avx512Usable(): boolean;
}

/** The addon, loaded once per thread, or why it is unavailable. */
export const loadNativeR2Addon: () => NativeAddonStatus<NativeR2Addon> = nativeAddonLoader<NativeR2Addon>('r2', "r²'s native window bands");
