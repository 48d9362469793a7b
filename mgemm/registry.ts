// The CPU kernel registry: which PopcountGemm implementation each backend name selects.

import type { CpuBackendName, PopcountGemm, PopcountGemmOptions } from './contract.js';
import { PopcountGemmRef } from './kernels/ref/popcountGemmRef.js';
import { createPopcountGemmWasm } from './kernels/wasm/popcountGemmWasm.js';

/** Every CPU backend, the reference first: it is the oracle the others are tested against. */
export const CPU_BACKEND_NAMES: readonly CpuBackendName[] = ['ref', 'cpu'];

/** Creates a ready kernel set: `ref` → the reference (inline, 1 thread), `cpu` → the wasm kernels. */
export async function createPopcountGemm(options: PopcountGemmOptions): Promise<PopcountGemm> {
  switch (options.backend) {
    case 'ref':
      return new PopcountGemmRef();
    case 'cpu':
      return createPopcountGemmWasm({ numThreads: options.numThreads });
  }
}
