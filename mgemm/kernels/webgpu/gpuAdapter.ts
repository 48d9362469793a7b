// Finding a WebGPU adapter through Dawn (the `webgpu` package) and opening a device with the limits we tile from.
/// <reference types="@webgpu/types" />

import { SUBGROUP_MATRIX_FEATURE } from './gpuConstants.js';

/** What a kernel set needs to know about its device: limits it tiles from and optional features. */
export interface GpuCapabilities {
  readonly description: string;
  readonly maxStorageBufferBindingSize: number;
  readonly maxBufferSize: number;
  readonly maxComputeWorkgroupStorageSize: number;
  readonly maxComputeInvocationsPerWorkgroup: number;
  readonly maxComputeWorkgroupsPerDimension: number;
  readonly minStorageBufferOffsetAlignment: number;
  /** The adapter multiplies u8 subgroup matrices (16×16×32 → u32) with 32-wide subgroups: tensor cores. */
  readonly hasSubgroupMatrix: boolean;
}

export interface OpenedGpu {
  readonly device: GPUDevice;
  readonly capabilities: GpuCapabilities;
}

let gpuInstance: GPU | undefined;

/**
 * One Dawn instance per thread; `allow_unsafe_apis` exposes experimental features such as subgroup
 * matrices. The native module loads on first use, so CPU-only runs never load it.
 */
async function gpu(): Promise<GPU> {
  if (gpuInstance === undefined) {
    const { create } = await import('webgpu');
    gpuInstance = create(['enable-dawn-features=allow_unsafe_apis']);
  }
  return gpuInstance;
}

/** The high-performance adapter, or null when there is none (no Vulkan driver, no GPU). */
export async function requestGpuAdapter(): Promise<GPUAdapter | null> {
  try {
    return await (await gpu()).requestAdapter({ powerPreference: 'high-performance' });
  } catch {
    return null;
  }
}

/** One line naming the adapter, e.g. `nvidia hopper (NVIDIA H100 80GB HBM3)`. */
export function describeAdapter(adapter: GPUAdapter): string {
  const info = adapter.info;
  return `${info.vendor} ${info.architecture} (${info.description || info.device})`;
}

/** Opens a device with the adapter's largest buffer, binding and workgroup-memory limits. */
export async function openGpuDevice(adapter: GPUAdapter): Promise<OpenedGpu> {
  const l = adapter.limits;
  const hasSubgroupMatrix = adapterHasSubgroupMatrix(adapter);
  const requiredFeatures: GPUFeatureName[] = hasSubgroupMatrix ? ['subgroups', SUBGROUP_MATRIX_FEATURE as GPUFeatureName] : [];
  const device = await adapter.requestDevice({
    requiredFeatures,
    requiredLimits: {
      maxStorageBufferBindingSize: l.maxStorageBufferBindingSize,
      maxBufferSize: l.maxBufferSize,
      maxComputeWorkgroupStorageSize: l.maxComputeWorkgroupStorageSize,
      maxComputeInvocationsPerWorkgroup: l.maxComputeInvocationsPerWorkgroup,
      maxComputeWorkgroupSizeX: l.maxComputeWorkgroupSizeX,
      maxComputeWorkgroupSizeY: l.maxComputeWorkgroupSizeY,
    },
  });
  const capabilities: GpuCapabilities = {
    description: describeAdapter(adapter),
    maxStorageBufferBindingSize: device.limits.maxStorageBufferBindingSize,
    maxBufferSize: device.limits.maxBufferSize,
    maxComputeWorkgroupStorageSize: device.limits.maxComputeWorkgroupStorageSize,
    maxComputeInvocationsPerWorkgroup: device.limits.maxComputeInvocationsPerWorkgroup,
    maxComputeWorkgroupsPerDimension: device.limits.maxComputeWorkgroupsPerDimension,
    minStorageBufferOffsetAlignment: device.limits.minStorageBufferOffsetAlignment,
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
