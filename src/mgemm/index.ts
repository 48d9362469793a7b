// Entry of the mgemm module: the popcount-GEMM contract, the kernel registry and plane-matrix helpers.

export * from './contract.js';
export * from './pairFinalize.js';
export { BACKEND_NAMES, CPU_BACKEND_NAMES, createPopcountGemm, startPopcountGemm } from './registry.js';
// Which CPU microkernel a run can use here, and why not the native one (run reports); the addon's code-row packing.
export {
  loadNativeCodePlanes, loadNativePopcountKernel, NATIVE_KERNEL_NAME, nativeKernelSetName, type NativeAmxStatus, type NativeCodePlanes, type NativeComplementChoice, type NativeKernelLayout,
  type NativeKernelStatus,
} from './kernels/native/nativePopcount.js';
// The GRM's float64 product (OpenBLAS dsyrk through the native addon).
export { loadOpenBlas, type OpenBlasStatus, type SymmetricRankUpdate } from './kernels/native/openBlas.js';
export { WASM_KERNEL_SET_NAME } from './kernels/wasm/popcountGemmWasm.js';
// The CPU kernel set's GEMM on another thread of the process (PopcountGemm.threadKernel).
export { openThreadGemm, type ThreadGemm, type ThreadGemmKernel } from './kernels/wasm/threadGemm.js';
export { allocatePlaneMatrix, planeWordsFor, toSharedPlaneMatrix } from './planeMatrix.js';
export { pairPlaneMatrix } from './mgemm4.js';
export { checkPopcountGemm3Request, checkPopcountGemmRequest } from './requestChecks.js';
export * from './tripleFinalize.js';
export * from './minPlusContract.js';
export { loadMinPlusModule, MinPlusWasmInstance } from './kernels/minplus/minPlusWasmModule.js';
// Kernel sets loaded on demand (min-plus, WebGPU): their names here, their modules only when a run opens one.
export { MIN_PLUS_CPU_NAME, MIN_PLUS_REF_NAME, MIN_PLUS_WEBGPU_NAME, minPlusWasmName, WEBGPU_KERNEL_SET_PREFIX } from './kernelSetNames.js';
export { createMinPlusGemmWebgpu, createPopcountGemmWebgpu, loadWebgpuRuntime, probeWebgpu } from './onDemandKernels.js';
export type { WebgpuProbe } from './kernels/webgpu/openWebgpu.js';
export type { PopcountGemmWebgpu } from './kernels/webgpu/popcountGemmWebgpu.js';
export type { MinPlusGemmWebgpu, MinPlusKernels } from './kernels/webgpu/minplus/minPlusGemmWebgpu.js';
export type { WebgpuPopcountGemmOptions } from './kernels/webgpu/webgpuOptions.js';
// What benchmarks drive on the webgpu kernel set (PopcountGemmWebgpu.benchmarking; tools/lib/webgpuTiming.ts).
export type { RepeatableKernels, UploadedBuffer, UploadWay, WebgpuBenchmarking } from './kernels/webgpu/kernelBenchmarking.js';
export type { GpuCapabilities } from './kernels/webgpu/runtime/gpuAdapter.js';
export type { KernelFamily } from './kernels/webgpu/plan/kernelChoice.js';
export type { U8GemmStaging } from './kernels/webgpu/programs/u8GemmProgram.js';
// WebGPU building blocks for tools that probe the device directly (tools/probe-tensor-cores): loadWebgpuRuntime.
export type { WgslProgram } from './kernels/webgpu/programs/wgslProgram.js';
