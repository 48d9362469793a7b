// Finding and opening a WebGPU adapter for the kernel set: createPopcountGemmWebgpu opens the device of the host's
// GPU of a given slot (runtime/gpuSelection.ts) and wraps it in the kernel set; probeWebgpu says whether there is
// an adapter at all (for `--backend auto`), and whether it has tensor cores or is a CPU implementation.

import { UserError } from '../../../core/errors.js';
import type { RealOperands } from '../../minPlusContract.js';
import { MinPlusGemmWebgpu } from './minplus/minPlusGemmWebgpu.js';
import { PopcountGemmWebgpu } from './popcountGemmWebgpu.js';
import { adapterHasSubgroupMatrix, describeAdapter, openGpuDevice, requestGpuAdapter } from './runtime/gpuAdapter.js';
import { WebgpuRunner } from './runtime/webgpuRunner.js';
import type { WebgpuPopcountGemmOptions } from './webgpuOptions.js';

/** Opens the adapter's device; a missing adapter is a UserError naming what is needed. */
export async function createPopcountGemmWebgpu(options: WebgpuPopcountGemmOptions = {}): Promise<PopcountGemmWebgpu> {
  return new PopcountGemmWebgpu(await openRunner(options), options);
}

/** The min-plus kernel set (real-valued operands, minplus/minPlusGemmWebgpu.ts) on the adapter's device. */
export async function createMinPlusGemmWebgpu(operands: RealOperands, options: WebgpuPopcountGemmOptions = {}): Promise<MinPlusGemmWebgpu> {
  return new MinPlusGemmWebgpu(await openRunner(options), operands, options);
}

async function openRunner(options: WebgpuPopcountGemmOptions): Promise<WebgpuRunner> {
  const choice = await requestGpuAdapter(options.gpuSlot);
  if (choice === null) {
    throw new UserError('--backend webgpu: no WebGPU adapter found (a GPU with a Vulkan driver, or the Vulkan CPU driver lavapipe, is needed)');
  }
  return new WebgpuRunner(await openGpuDevice(choice.adapter));
}

/** What probeWebgpu found. */
export interface WebgpuProbe {
  readonly available: boolean;
  /** The adapter, or why there is none. */
  readonly description: string;
  readonly hasSubgroupMatrix: boolean;
  /** A CPU implementation (Dawn's fallback adapter, e.g. lavapipe): correct, but slower than the CPU kernels. */
  readonly isSoftware: boolean;
}

/** Whether a WebGPU adapter exists (for `--backend auto`), its description, and whether it has tensor cores. */
export async function probeWebgpu(): Promise<WebgpuProbe> {
  const choice = await requestGpuAdapter();
  return choice === null
    ? { available: false, description: 'no WebGPU adapter', hasSubgroupMatrix: false, isSoftware: false }
    : {
      available: true,
      description: describeAdapter(choice.adapter),
      hasSubgroupMatrix: adapterHasSubgroupMatrix(choice.adapter),
      isSoftware: choice.adapter.info.isFallbackAdapter,
    };
}
