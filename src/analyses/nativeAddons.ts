// Loads an analysis's optional native addon (build/<name>/snptally_<name>.node, built by `npm run build:native`) once
// per thread, on first use, and says why it cannot be used when it cannot: not built (no compiler, not x86-64, install
// scripts skipped; build/<name>/UNAVAILABLE holds the reason) or not loadable. The analysis then runs its JS path.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

export type NativeAddonStatus<Addon> =
  | { readonly available: true; readonly addon: Addon }
  | { readonly available: false; readonly reason: string };

/** A loader of build/<name>/snptally_<name>.node whose reasons start with `what` (e.g. 'native epistasis scorer'). */
export function nativeAddonLoader<Addon>(name: string, what: string): () => NativeAddonStatus<Addon> {
  let status: NativeAddonStatus<Addon> | undefined;
  return () => {
    status ??= loadAddon<Addon>(name, what);
    return status;
  };
}

function loadAddon<Addon>(name: string, what: string): NativeAddonStatus<Addon> {
  // dist/src/analyses/ → the repository's (or installed package's) build/<name>/.
  const addonPath = fileURLToPath(new URL(`../../../build/${name}/snptally_${name}.node`, import.meta.url));
  if (!existsSync(addonPath)) {
    const unavailablePath = fileURLToPath(new URL(`../../../build/${name}/UNAVAILABLE`, import.meta.url));
    const reason = existsSync(unavailablePath) ? readFileSync(unavailablePath, 'utf8').trim() : 'not built (in a source checkout: npm run build:native)';
    return { available: false, reason: `${what} unavailable: ${reason}` };
  }
  try {
    return { available: true, addon: createRequire(import.meta.url)(addonPath) as Addon };
  } catch (error) {
    // A stale build (another Node's ABI, a missing library): the JS path computes the same values.
    return { available: false, reason: `${what} unavailable: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}` };
  }
}

/**
 * The two blocks of a band as the analyses' native band kernels read them (r²'s window bands, epistasis's dense
 * bands): each block's planes vector-major, `wordsPerPlane` 32-bit words a plane, 8-byte aligned.
 */
export interface NativeBandBlocks {
  readonly rowWords: Uint32Array;
  readonly rowNumVectors: number;
  readonly rowVectorFirst: number;
  readonly rowsReal: number;
  readonly colWords: Uint32Array;
  readonly colNumVectors: number;
  readonly colVectorFirst: number;
  readonly colsReal: number;
  readonly wordsPerPlane: number;
  /** rowFirst, numRows, colFirst, numCols, strictUpper (0 or 1) per panel. */
  readonly panels: Int32Array;
  /** Tallies by 64-bit popcounts even where AVX-512 runs (tests compare the two). */
  readonly scalar?: boolean;
}
