// A WebGPU runner on the default adapter, for tests that dispatch WGSL programs directly (no kernel set).
import { openGpuDevice, requestGpuAdapter } from '../../src/mgemm/kernels/webgpu/runtime/gpuAdapter.js';
import { WebgpuRunner } from '../../src/mgemm/kernels/webgpu/runtime/webgpuRunner.js';

/** Opens the default adapter's device; throws when there is none (callers skip on webgpuGate first). */
export async function openTestRunner(): Promise<WebgpuRunner> {
  const choice = await requestGpuAdapter();
  if (choice === null) throw new Error('no adapter');
  return new WebgpuRunner(await openGpuDevice(choice.adapter));
}
