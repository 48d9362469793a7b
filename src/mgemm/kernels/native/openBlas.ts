// The GRM's float64 product through OpenBLAS's cblas_dsyrk (src/openBlasSyrk.cc in the native addon, which opens
// OpenBLAS at run time): loaded once per thread, or the reason it cannot be used (addon not built, OpenBLAS absent).
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

/** C (n × n, row-major; its lower triangle, diagonal included) += A Aᵀ for A (n × k, row-major). */
export type SymmetricRankUpdate = (c: Float64Array, a: Float64Array, n: number, k: number) => void;

export type OpenBlasStatus =
  | { readonly available: true; readonly update: (threads: number) => SymmetricRankUpdate }
  | { readonly available: false; readonly reason: string };

interface OpenBlasAddon {
  openBlasStatus?: () => string | null;
  symmetricRankUpdate(c: Float64Array, a: Float64Array, n: number, k: number, threads: number): void;
}

/** dist/src/mgemm/kernels/native/ → the repository's build/native/. */
const ADDON_URL = new URL('../../../../../build/native/snptally_popcount.node', import.meta.url);

let status: OpenBlasStatus | undefined;

/** OpenBLAS's dsyrk through the native addon, or why it is unavailable. */
export function loadOpenBlas(): OpenBlasStatus {
  if (status !== undefined) return status;
  const addonPath = fileURLToPath(ADDON_URL);
  if (!existsSync(addonPath)) {
    status = { available: false, reason: 'the native addon is not built (npm run build:native)' };
    return status;
  }
  const addon = createRequire(import.meta.url)(addonPath) as OpenBlasAddon;
  // An addon built before the OpenBLAS entry existed lacks openBlasStatus.
  const reason = addon.openBlasStatus === undefined ? 'the native addon predates its OpenBLAS entry (npm run build:native)' : addon.openBlasStatus();
  status = reason === null
    ? { available: true, update: (threads) => (c, a, n, k) => addon.symmetricRankUpdate(c, a, n, k, threads) }
    : { available: false, reason };
  return status;
}
