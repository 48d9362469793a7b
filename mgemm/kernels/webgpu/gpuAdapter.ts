/// <reference types="@webgpu/types" />
// Finding a WebGPU adapter through Dawn (the `webgpu` package) and opening a device with the limits we tile from.

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
  const hasSubgroupMatrix = adapter.features.has(SUBGROUP_MATRIX_FEATURE) && adapter.features.has('subgroups');
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
