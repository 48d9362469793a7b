// Entry of the mgemm module: the popcount-GEMM contract, the kernel registry and plane-matrix helpers.

export * from './contract.js';
export { CPU_BACKEND_NAMES, createPopcountGemm } from './registry.js';
export { allocatePlaneMatrix, pairProductPlanes, planeWordsFor, toSharedPlaneMatrix } from './planeMatrix.js';
export { checkPopcountGemmRequest } from './requestChecks.js';
