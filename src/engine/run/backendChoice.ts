// Resolving `--backend auto`: the GPU through WebGPU when a hardware adapter exists, otherwise the CPU kernels.
import { probeWebgpu, type BackendName } from '../../mgemm/index.js';
import { UserError } from '../../core/errors.js';
import type { JobSpec } from './jobSpec.js';

export interface BackendChoice {
  readonly backend: BackendName;
  /** One line saying what `auto` found; null when the backend was named explicitly. */
  readonly note: string | null;
  /** The chosen GPU has u8 subgroup matrices (its kernels expand operands to u8); false on the CPU. */
  readonly gpuHasSubgroupMatrix: boolean;
  /** The chosen GPU is a CPU implementation (lavapipe): its memory is the host's. */
  readonly gpuIsSoftware: boolean;
}

/**
 * The backend of a run as asked: `auto` is webgpu on a hardware adapter, else cpu; `webgpu` needs an adapter. Every
 * analysis has kernel sets on each backend (bit planes: popcount sets; real values: min-plus sets).
 */
export async function resolveBackend(requested: JobSpec['backend']): Promise<BackendChoice> {
  if (requested === 'webgpu') {
    // Probing here fails early with a clear message, and it loads Dawn in this (the launching) thread, which
    // outlives the rank threads: unloading Dawn's addon when the last thread holding it ends crashes the process.
    const probe = await probeWebgpu();
    if (!probe.available) {
      throw new UserError('--backend webgpu: no WebGPU adapter found (a GPU with a Vulkan driver, or the Vulkan CPU driver lavapipe, is needed)');
    }
    return { backend: 'webgpu', note: null, gpuHasSubgroupMatrix: probe.hasSubgroupMatrix, gpuIsSoftware: probe.isSoftware };
  }
  if (requested !== 'auto') return { backend: requested, note: null, gpuHasSubgroupMatrix: false, gpuIsSoftware: false };
  const probe = await probeWebgpu();
  if (!probe.available) return { backend: 'cpu', note: `--backend auto: ${probe.description}, using cpu`, gpuHasSubgroupMatrix: false, gpuIsSoftware: false };
  // A software adapter computes the same values several times slower than the CPU kernels (docs/performance.md).
  if (probe.isSoftware) {
    return { backend: 'cpu', note: `--backend auto: only a software WebGPU adapter (${probe.description}), using cpu`, gpuHasSubgroupMatrix: false, gpuIsSoftware: false };
  }
  return { backend: 'webgpu', note: `--backend auto: using webgpu on ${probe.description}`, gpuHasSubgroupMatrix: probe.hasSubgroupMatrix, gpuIsSoftware: probe.isSoftware };
}
