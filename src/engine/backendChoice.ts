// Resolving `--backend auto`: the GPU through WebGPU when an adapter exists, otherwise the CPU kernels.
import { probeWebgpu, type BackendName } from '../../mgemm/index.js';
import type { JobSpec } from './jobSpec.js';

export interface BackendChoice {
  readonly backend: BackendName;
  /** One line saying what `auto` found; null when the backend was named explicitly. */
  readonly note: string | null;
}

export async function resolveBackend(requested: JobSpec['backend']): Promise<BackendChoice> {
  if (requested !== 'auto') return { backend: requested, note: null };
  const probe = await probeWebgpu();
  return probe.available
    ? { backend: 'webgpu', note: `--backend auto: using webgpu on ${probe.description}` }
    : { backend: 'cpu', note: `--backend auto: ${probe.description}, using cpu` };
}
