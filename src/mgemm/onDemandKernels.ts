// The WebGPU kernel sets, loaded only when a run uses them: Dawn's `webgpu` package and some sixty modules. Every way
// to them from outside src/mgemm goes through these functions, so that a CPU run's threads (and `--version`) never
// load them; the registry loads the min-plus kernel sets likewise.
import type { RealOperands } from './minPlusContract.js';
import type { WebgpuProbe } from './kernels/webgpu/openWebgpu.js';
import type { PopcountGemmWebgpu } from './kernels/webgpu/popcountGemmWebgpu.js';
import type { MinPlusGemmWebgpu } from './kernels/webgpu/minplus/minPlusGemmWebgpu.js';
import type { WebgpuPopcountGemmOptions } from './kernels/webgpu/webgpuOptions.js';

/** Opens the adapter's device and the WebGPU kernel set on it; a missing adapter is a UserError naming what is needed. */
export async function createPopcountGemmWebgpu(options: WebgpuPopcountGemmOptions = {}): Promise<PopcountGemmWebgpu> {
  const webgpu = await import('./kernels/webgpu/openWebgpu.js');
  return webgpu.createPopcountGemmWebgpu(options);
}

/** The WebGPU min-plus kernel set (real-valued operands) on the adapter's device. */
export async function createMinPlusGemmWebgpu(operands: RealOperands, options: WebgpuPopcountGemmOptions = {}): Promise<MinPlusGemmWebgpu> {
  const webgpu = await import('./kernels/webgpu/openWebgpu.js');
  return webgpu.createMinPlusGemmWebgpu(operands, options);
}

/** This thread's probe: whether an adapter exists does not change while a process runs, and finding it costs 0.1–0.5 s. */
let probed: Promise<WebgpuProbe> | null = null;

/**
 * Whether a WebGPU adapter exists (for `--backend auto`), its description, and whether it has tensor cores; probed once
 * per thread (Dawn's first adapter request blocks the thread meanwhile).
 */
export function probeWebgpu(): Promise<WebgpuProbe> {
  probed ??= import('./kernels/webgpu/openWebgpu.js').then((webgpu) => webgpu.probeWebgpu());
  return probed;
}

/** WebGPU building blocks for tools that probe the device directly (tools/probe-tensor-cores, tools/lib/u32OpRate). */
export function loadWebgpuRuntime(): Promise<typeof import('./kernels/webgpu/runtimeTools.js')> {
  return import('./kernels/webgpu/runtimeTools.js');
}
