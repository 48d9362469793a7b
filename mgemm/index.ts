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
export type { GpuCapabilities } from './kernels/webgpu/gpuAdapter.js';
export type { KernelFamily } from './kernels/webgpu/kernelChoice.js';
export type { U8GemmStaging } from './kernels/webgpu/u8GemmProgram.js';
