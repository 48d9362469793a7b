// Entry of the mgemm module: the popcount-GEMM contract, the kernel registry and plane-matrix helpers.

export * from './contract.js';
export * from './pairFinalize.js';
export { BACKEND_NAMES, CPU_BACKEND_NAMES, createPopcountGemm } from './registry.js';
export { allocatePlaneMatrix, planeWordsFor, toSharedPlaneMatrix } from './planeMatrix.js';
export { checkPopcountGemm3Request, checkPopcountGemmRequest } from './requestChecks.js';
export * from './tripleFinalize.js';
export {
  createPopcountGemmWebgpu, probeWebgpu, PopcountGemmWebgpu, WEBGPU_KERNEL_SET_PREFIX, type WebgpuPopcountGemmOptions, type WebgpuProbe,
} from './kernels/webgpu/popcountGemmWebgpu.js';
export type { GpuCapabilities } from './kernels/webgpu/runtime/gpuAdapter.js';
export type { KernelFamily } from './kernels/webgpu/plan/kernelChoice.js';
export type { U8GemmStaging } from './kernels/webgpu/programs/u8GemmProgram.js';
// WebGPU building blocks for tools that probe the device directly (tools/probe-tensor-cores).
export { BUFFER_USAGE } from './kernels/webgpu/runtime/gpuConstants.js';
export { openGpuDevice, requestGpuAdapter } from './kernels/webgpu/runtime/gpuAdapter.js';
export { emitShader, type WgslProgram } from './kernels/webgpu/programs/wgslProgram.js';
