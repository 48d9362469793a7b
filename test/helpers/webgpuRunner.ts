// A WebGPU runner on the default adapter, for tests that dispatch WGSL programs directly (no kernel set).
import { openGpuDevice, requestGpuAdapter } from '../../mgemm/kernels/webgpu/gpuAdapter.js';
import { WebgpuRunner } from '../../mgemm/kernels/webgpu/webgpuRunner.js';

/** Opens the default adapter's device; throws when there is none (callers skip on webgpuGate first). */
export async function openTestRunner(): Promise<WebgpuRunner> {
  const choice = await requestGpuAdapter();
  if (choice === null) throw new Error('no adapter');
  return new WebgpuRunner(await openGpuDevice(choice.adapter));
}
