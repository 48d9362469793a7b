// WebGPU building blocks for tools that probe the device directly, loaded on demand (onDemandKernels.ts loadWebgpuRuntime).
export { BUFFER_USAGE } from './runtime/gpuConstants.js';
export { openGpuDevice, requestGpuAdapter } from './runtime/gpuAdapter.js';
export { emitShader } from './programs/wgslProgram.js';
