// Whether GPU tests can run here: a WebGPU adapter is needed; under CI=true (lavapipe installed) its absence fails.
import { probeWebgpu } from '../../mgemm/index.js';

export interface WebgpuGate {
  readonly available: boolean;
  /** The adapter, or why there is none. */
  readonly description: string;
  /** The adapter has u8 subgroup matrices (tensor cores). */
  readonly hasSubgroupMatrix: boolean;
}

/** Probes once; throws under CI=true when there is no adapter, so CI cannot silently skip GPU tests. */
export async function webgpuGate(): Promise<WebgpuGate> {
  process.env.XDG_RUNTIME_DIR ??= '/tmp';
  const probe = await probeWebgpu();
  if (!probe.available && process.env.CI === 'true') {
    throw new Error(`CI=true but ${probe.description}: the Vulkan CPU driver (scripts/install-system-packages.sh) is missing`);
  }
  return probe;
}
