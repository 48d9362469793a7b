// Which GPU a rank takes when its host has several: the choice, the names that tell identical GPUs
// apart, and the loader environment that enables the layer writing those names. No Dawn here: tested
// without a GPU.
//
// Dawn's Node bindings select an adapter only by a substring of its name (`create(['adapter=…'])`,
// first match); GPUs of one model share a name. The layer in gpuIndexLayer/ appends ` [gpu I of N]`
// (I: position in the Vulkan loader's order, the same in every process of the host), so
// `adapter=[gpu I of N]` names one GPU.

import { UserError } from '../../../../core/errors.js';

/** The layer's name in its manifest (build/vulkan/VkLayer_snptally_gpu_index.json). */
export const GPU_INDEX_LAYER_NAME = 'VK_LAYER_SNPTALLY_gpu_index';

/** A GPU's position among the host's GPUs, as the layer numbers them. */
export interface GpuPosition {
  readonly index: number;
  readonly count: number;
}

/**
 * The GPU of a rank: the ranks of one host take its GPUs in turn. `slot` is the node-local rank under
 * MPI, or the rank index of in-process ranks (all on this host).
 */
export function chooseGpuIndex(slot: number, numGpus: number): number {
  if (!Number.isSafeInteger(slot) || slot < 0) throw new Error(`GPU slot must be an integer ≥ 0 (got ${slot})`);
  if (!Number.isSafeInteger(numGpus) || numGpus < 1) throw new Error(`GPU count must be an integer ≥ 1 (got ${numGpus})`);
  return slot % numGpus;
}

/**
 * The position the layer wrote into an adapter's name, read from Dawn's `adapter.info.device`, which
 * WebGPU normalizes (lower case, runs of other characters → one `-`): `NVIDIA H200 [gpu 1 of 2]` →
 * `nvidia-h200-gpu-1-of-2-`. Null when the layer was not loaded.
 */
export function parseGpuPosition(normalizedDevice: string): GpuPosition | null {
  const match = /(?:^|-)gpu-(\d+)-of-(\d+)-?$/.exec(normalizedDevice);
  if (match === null) return null;
  const index = Number(match[1]);
  const count = Number(match[2]);
  return index < count ? { index, count } : null;
}

/** The adapter's name without the layer's suffix (`nvidia-h200-gpu-1-of-2-` → `nvidia-h200`). */
export function stripGpuPosition(normalizedDevice: string): string {
  return normalizedDevice.replace(/-?gpu-\d+-of-\d+-?$/, '');
}

/** The Dawn flag selecting exactly this GPU: a substring of the raw name the layer wrote. */
export function adapterFlagFor(position: GpuPosition): string {
  return `adapter=[gpu ${position.index} of ${position.count}]`;
}

/** The loader variables that matter here; others are left alone. */
export interface LayerEnvironment {
  readonly VK_LAYER_PATH?: string;
  readonly VK_INSTANCE_LAYERS?: string;
}

/**
 * `current` with the layer's folder on VK_LAYER_PATH and the layer in VK_INSTANCE_LAYERS, each added
 * once and after what is there (other layers the user enabled keep working).
 */
export function withGpuIndexLayer(current: LayerEnvironment, layerDir: string): Required<LayerEnvironment> {
  const add = (list: string | undefined, item: string): string => {
    const items = (list ?? '').split(':').filter((entry) => entry.length > 0);
    return (items.includes(item) ? items : [...items, item]).join(':');
  };
  return {
    VK_LAYER_PATH: add(current.VK_LAYER_PATH, layerDir),
    VK_INSTANCE_LAYERS: add(current.VK_INSTANCE_LAYERS, GPU_INDEX_LAYER_NAME),
  };
}

/** How adapters are found: Dawn in gpuAdapter.ts, fakes in tests. */
export interface AdapterSource<A> {
  /** The first (high-performance) adapter, or null when there is none. */
  first(): Promise<A | null>;
  /** The adapter matching a Dawn `adapter=` flag; null or a rejection when there is none. */
  matching(adapterFlag: string): Promise<A | null>;
  /** The adapter's normalized device name (`info.device`). */
  deviceName(adapter: A): string;
}

export interface SelectedAdapter<A> {
  readonly adapter: A;
  /** Null without the layer: then every rank has the first adapter. */
  readonly position: GpuPosition | null;
}

/**
 * The adapter of GPU slot `slot` (see chooseGpuIndex), or the first adapter when `slot` is undefined
 * or the host has one GPU. Null when there is no adapter at all.
 * @throws UserError naming the slot and the GPU when the host lists the GPU but it cannot be had.
 */
export async function selectAdapter<A>(source: AdapterSource<A>, slot: number | undefined): Promise<SelectedAdapter<A> | null> {
  const first = await source.first();
  if (first === null) return null;
  const firstPosition = parseGpuPosition(source.deviceName(first));
  if (slot === undefined || firstPosition === null) return { adapter: first, position: firstPosition };
  const wanted: GpuPosition = { index: chooseGpuIndex(slot, firstPosition.count), count: firstPosition.count };
  if (wanted.index === firstPosition.index) return { adapter: first, position: firstPosition };
  const what = `GPU ${wanted.index} of ${wanted.count} (for GPU slot ${slot})`;
  let adapter: A | null;
  try {
    adapter = await source.matching(adapterFlagFor(wanted));
  } catch (error) {
    throw new UserError(`${what} is not available: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
  }
  if (adapter === null) throw new UserError(`${what} is not available: no adapter answered`);
  const position = parseGpuPosition(source.deviceName(adapter));
  if (position === null || position.index !== wanted.index || position.count !== wanted.count) {
    throw new UserError(`${what}: asked for it, got adapter "${source.deviceName(adapter)}"`);
  }
  return { adapter, position };
}
