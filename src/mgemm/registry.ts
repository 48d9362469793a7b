// The kernel registry: which PopcountGemm implementation each backend name selects.

import type { BackendName, CpuBackendName, PopcountGemm, PopcountGemmOptions, PopcountGemmStart, PopcountGemmStartOptions } from './contract.js';
import { PopcountGemmRef } from './kernels/ref/popcountGemmRef.js';
import { createPopcountGemmWasm, startPopcountGemmWasm } from './kernels/wasm/popcountGemmWasm.js';
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

/**
 * Starts a kernel set before its run's data are known: the CPU popcount set's worker threads start now (and load the
 * preloaded guest module); the others open when completed (their opening needs nothing of the data either, but
 * nothing of theirs is started ahead yet).
 */
export function startPopcountGemm(options: PopcountGemmStartOptions): PopcountGemmStart {
  const { workerGuestPreload, ...creation } = options;
  if (options.backend === 'cpu' && (options.realOperands ?? null) === null) {
    const started = startPopcountGemmWasm({ numThreads: options.numThreads, guestPreload: workerGuestPreload ?? null });
    return { options, complete: (workerGuest) => started.complete(workerGuest), cancel: () => started.cancel() };
  }
  let completed = false;
  return {
    options,
    complete: (workerGuest) => {
      if (completed) return Promise.reject(new Error(`${options.backend} kernel set: complete() twice`));
      completed = true;
      return createPopcountGemm({ ...creation, workerGuest });
    },
    cancel: () => Promise.resolve(),
  };
}
