// Whether GPU tests can run here: a WebGPU adapter is needed; under CI=true (lavapipe installed) its absence fails.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { probeWebgpu } from '../../src/mgemm/index.js';

export interface WebgpuGate {
  readonly available: boolean;
  /** The adapter, or why there is none. */
  readonly description: string;
  /** The adapter has u8 subgroup matrices (tensor cores). */
  readonly hasSubgroupMatrix: boolean;
  /** A CPU implementation (lavapipe in CI): `--backend auto` does not choose it. */
  readonly isSoftware: boolean;
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

/** dist/test/helpers/ → the repository's build/vulkan/ (tools/build-vulkan-layer.mjs). */
const GPU_INDEX_LAYER = fileURLToPath(new URL('../../../build/vulkan/libVkLayer_snptally_gpu_index.so', import.meta.url));

/**
 * Whether the layer that numbers GPUs was built (it needs the Vulkan headers); under CI=true (which
 * installs them) its absence fails, so CI cannot silently skip the one-GPU-per-rank tests.
 */
export function gpuIndexLayerGate(): { readonly built: boolean; readonly reason: string } {
  const built = existsSync(GPU_INDEX_LAYER);
  if (!built && process.env.CI === 'true') {
    throw new Error(`CI=true but ${GPU_INDEX_LAYER} was not built: the Vulkan headers (scripts/install-system-packages.sh) are missing`);
  }
  return { built, reason: built ? 'layer built' : `skipped: ${GPU_INDEX_LAYER} not built` };
}
