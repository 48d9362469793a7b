// Finding a WebGPU adapter through Dawn (the `webgpu` package) — one GPU per rank when a host has several
// (gpuSelection.ts) — and opening a device with the limits we tile from.
/// <reference types="@webgpu/types" />

import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { isMainThread } from 'node:worker_threads';
import { traced } from '../../../../core/trace.js';
import { GPU_PROFILE_REQUESTED } from './dispatchProfile.js';
import { SUBGROUP_MATRIX_FEATURE } from './gpuConstants.js';
import { parseGpuPosition, selectAdapter, stripGpuPosition, withGpuIndexLayer, type AdapterSource, type GpuPosition } from './gpuSelection.js';

/** What a kernel set needs to know about its device: limits it tiles from and optional features. */
export interface GpuCapabilities {
  readonly description: string;
  /** Which of the host's GPUs this is; null when unknown (the layer that numbers GPUs was not built). */
  readonly position: GpuPosition | null;
  readonly maxStorageBufferBindingSize: number;
  readonly maxBufferSize: number;
  readonly maxComputeWorkgroupStorageSize: number;
  readonly maxComputeInvocationsPerWorkgroup: number;
  readonly maxComputeWorkgroupsPerDimension: number;
  readonly minStorageBufferOffsetAlignment: number;
  /** Offsets of uniform bindings are multiples of this (one submit's uniforms share one buffer). */
  readonly minUniformBufferOffsetAlignment: number;
  /** The adapter multiplies u8 subgroup matrices (16×16×32 → u32) with 32-wide subgroups: tensor cores. */
  readonly hasSubgroupMatrix: boolean;
}

export interface OpenedGpu {
  readonly device: GPUDevice;
  readonly capabilities: GpuCapabilities;
}

/** `allow_unsafe_apis` exposes experimental features such as subgroup matrices. */
const BASE_FLAGS = ['enable-dawn-features=allow_unsafe_apis'];
const HIGH_PERFORMANCE: GPURequestAdapterOptions = { powerPreference: 'high-performance' };
/** dist/src/mgemm/kernels/webgpu/runtime/ → the repository's build/vulkan/ (tools/build-vulkan-layer.mjs). */
const LAYER_DIR = fileURLToPath(new URL('../../../../../../build/vulkan/', import.meta.url));
const LAYER_MANIFEST = `${LAYER_DIR}VkLayer_snptally_gpu_index.json`;

/** Dawn instances of this thread by flags (the default one, and one per selected GPU); kept alive with their adapters. */
const gpuInstances = new Map<string, GPU>();

/**
 * Enables the GPU-numbering layer for this process, before its first Vulkan instance. Only the main
 * thread can: a worker's process.env is a copy, while the Vulkan loader reads the process environment.
 * The main thread always probes the adapter before rank threads start (backendChoice.ts), so they see it.
 */
function enableGpuIndexLayer(): void {
  if (!isMainThread || !existsSync(LAYER_MANIFEST)) return;
  Object.assign(process.env, withGpuIndexLayer(process.env, LAYER_DIR.replace(/\/$/, '')));
}

/** The Dawn instance of this thread for `flags`; the native module loads on first use, so CPU-only runs never load it. */
async function gpu(flags: readonly string[]): Promise<GPU> {
  const key = flags.join('\n');
  let instance = gpuInstances.get(key);
  if (instance === undefined) {
    if (gpuInstances.size === 0) enableGpuIndexLayer();
    const { create } = await import('webgpu');
    instance = create([...flags]);
    gpuInstances.set(key, instance);
  }
  return instance;
}

const dawnAdapters: AdapterSource<GPUAdapter> = {
  first: async () => {
    try {
      return await traced('find adapter', async () => (await gpu(BASE_FLAGS)).requestAdapter(HIGH_PERFORMANCE));
    } catch {
      return null;
    }
  },
  matching: (adapterFlag) => traced(`find adapter ${adapterFlag}`, async () => (await gpu([...BASE_FLAGS, adapterFlag])).requestAdapter(HIGH_PERFORMANCE)),
  deviceName: (adapter) => adapter.info.device,
};

export interface GpuAdapterChoice {
  readonly adapter: GPUAdapter;
  readonly position: GpuPosition | null;
}

/**
 * The high-performance adapter of GPU slot `gpuSlot` (node-local rank; see chooseGpuIndex), or the
 * first adapter without a slot; null when there is none (no Vulkan driver, no GPU).
 * @throws UserError when the host lists the slot's GPU but it cannot be had.
 */
export function requestGpuAdapter(gpuSlot?: number): Promise<GpuAdapterChoice | null> {
  return selectAdapter(dawnAdapters, gpuSlot);
}

/** One line naming the adapter, e.g. `nvidia hopper nvidia-h100-80gb-hbm3 (NVIDIA: 580.159.04)`, without the layer's GPU number. */
export function describeAdapter(adapter: GPUAdapter): string {
  const info = adapter.info;
  const name = [info.vendor, info.architecture, stripGpuPosition(info.device)].filter((part) => part.length > 0).join(' ');
  return info.description.length > 0 ? `${name} (${info.description})` : name;
}

/** Opens a device with the adapter's largest buffer, binding and workgroup-memory limits. */
export async function openGpuDevice(adapter: GPUAdapter): Promise<OpenedGpu> {
  const position = parseGpuPosition(adapter.info.device);
  const l = adapter.limits;
  const hasSubgroupMatrix = adapterHasSubgroupMatrix(adapter);
  const requiredFeatures: GPUFeatureName[] = hasSubgroupMatrix ? ['subgroups', SUBGROUP_MATRIX_FEATURE as GPUFeatureName] : [];
  if (GPU_PROFILE_REQUESTED && adapter.features.has('timestamp-query')) requiredFeatures.push('timestamp-query');
  const device = await traced('open device', () => adapter.requestDevice({
    requiredFeatures,
    requiredLimits: {
      maxStorageBufferBindingSize: l.maxStorageBufferBindingSize,
      maxBufferSize: l.maxBufferSize,
      maxComputeWorkgroupStorageSize: l.maxComputeWorkgroupStorageSize,
      maxComputeInvocationsPerWorkgroup: l.maxComputeInvocationsPerWorkgroup,
      maxComputeWorkgroupSizeX: l.maxComputeWorkgroupSizeX,
      maxComputeWorkgroupSizeY: l.maxComputeWorkgroupSizeY,
    },
  }));

  const capabilities: GpuCapabilities = {
    description: describeAdapter(adapter),
    position,
    maxStorageBufferBindingSize: device.limits.maxStorageBufferBindingSize,
    maxBufferSize: device.limits.maxBufferSize,
    maxComputeWorkgroupStorageSize: device.limits.maxComputeWorkgroupStorageSize,
    maxComputeInvocationsPerWorkgroup: device.limits.maxComputeInvocationsPerWorkgroup,
    maxComputeWorkgroupsPerDimension: device.limits.maxComputeWorkgroupsPerDimension,
    minStorageBufferOffsetAlignment: device.limits.minStorageBufferOffsetAlignment,
    minUniformBufferOffsetAlignment: device.limits.minUniformBufferOffsetAlignment,
    hasSubgroupMatrix,
  };
  return { device, capabilities };
}

/** The adapter lists the subgroup-matrix feature with the u8 configuration the tensor-core kernel uses. */
export function adapterHasSubgroupMatrix(adapter: GPUAdapter): boolean {
  return adapter.features.has(SUBGROUP_MATRIX_FEATURE) && adapter.features.has('subgroups') && hasU8Config(adapter);
}

/** A subgroup-matrix configuration as Dawn reports it in `adapter.info.subgroupMatrixConfigs`. */
interface SubgroupMatrixConfig {
  readonly componentType: string;
  readonly resultComponentType: string;
  readonly M: number;
  readonly N: number;
  readonly K: number;
}

/** True when the adapter multiplies u8×u8→u32 16×16×32 matrices with subgroups of exactly 32 (the kernel's layout). */
function hasU8Config(adapter: GPUAdapter): boolean {
  const info = adapter.info as GPUAdapterInfo & { subgroupMatrixConfigs?: readonly SubgroupMatrixConfig[] };
  if (info.subgroupMinSize !== 32 || info.subgroupMaxSize !== 32) return false;
  return (info.subgroupMatrixConfigs ?? []).some((c) =>
    c.componentType === 'u8' && c.resultComponentType === 'u32' && c.M === 16 && c.N === 16 && c.K === 32);
}
