// The kernel registry: which PopcountGemm implementation each backend name selects.

import type { BackendName, CpuBackendName, PopcountGemm, PopcountGemmOptions } from './contract.js';
import { PopcountGemmRef } from './kernels/ref/popcountGemmRef.js';
import { createPopcountGemmWasm } from './kernels/wasm/popcountGemmWasm.js';
import { createMinPlusGemmWebgpu, createPopcountGemmWebgpu } from './onDemandKernels.js';
import { availableParallelism } from 'node:os';

/** Every CPU backend, the reference first: it is the oracle the others are tested against. */
export const CPU_BACKEND_NAMES: readonly CpuBackendName[] = ['ref', 'cpu'];

/** Every backend; `webgpu` needs an adapter (see probeWebgpu). */
export const BACKEND_NAMES: readonly BackendName[] = ['ref', 'cpu', 'webgpu'];

/**
 * Creates a ready kernel set: `ref` → the reference (inline, 1 thread), `cpu` → the wasm kernels, `webgpu` → the GPU;
 * with realOperands the min-plus kernel set of each (minPlusContract.ts).
 */
export async function createPopcountGemm(options: PopcountGemmOptions): Promise<PopcountGemm> {
  const operands = options.realOperands ?? null;
  if (operands !== null) {
    if (options.backend === 'webgpu') return createMinPlusGemmWebgpu(operands, { gpuSlot: options.gpuSlot });
    // Loaded here only: a popcount run's threads never need the min-plus kernels.
    const { MinPlusGemm, resolveMinPlusCpuKernel } = await import('./kernels/minplus/minPlusGemm.js');
    // `cpu`: the wasm SIMD kernels where the runtime has wasm SIMD, else the blocked JS kernels (same bits).
    const kernel = options.backend === 'ref' ? 'reference' : await resolveMinPlusCpuKernel();
    return MinPlusGemm.create({ operands, kernel, numThreads: options.numThreads ?? availableParallelism() });
  }
  switch (options.backend) {
    case 'ref':
      return new PopcountGemmRef();
    case 'cpu':
      return createPopcountGemmWasm({ numThreads: options.numThreads, guest: options.workerGuest ?? null });
    case 'webgpu':
      return createPopcountGemmWebgpu({ gpuSlot: options.gpuSlot });
  }
}
