// Timing of the webgpu kernel set for benchmarks (tools/bench-gpu.ts): kernel-only seconds of a 2-way or 3-way
// request (its dispatches run again and again, no read-back, after one untimed run that compiles and uploads), and
// seconds of an upload by each of the runner's ways in. The kernel set hands out only what runs
// (PopcountGemmWebgpu.benchmarking); what is timed, and how often, is decided here.

import type { KernelFamily, PopcountGemm3Request, PopcountGemmRequest, PopcountGemmWebgpu, RepeatableKernels, UploadWay } from '../../src/mgemm/index.js';

/** Seconds of each timed repetition, and the kernel family that ran. */
export interface KernelTiming {
  readonly seconds: number[];
  readonly family: KernelFamily;
}

/**
 * Kernel-only timing of a 2-way request: all its dispatches in one submit per repetition, `repetitions` times, after
 * one untimed run. A request with nothing to compute gives no seconds (and the bitwise family, which writes its zeros).
 */
export function timeKernels(gemm: PopcountGemmWebgpu, request: PopcountGemmRequest, repetitions: number): Promise<KernelTiming> {
  return gemm.benchmarking.withKernels(request, async (kernels) => (kernels === null ? { seconds: [], family: 'bitwise' } : timeRepetitions(kernels, repetitions)));
}

/** Kernel-only timing of a 3-way request (pair products built on the GPU, then the GEMMs), as timeKernels. */
export function timeKernels3(gemm: PopcountGemmWebgpu, request: PopcountGemm3Request, repetitions: number): Promise<KernelTiming> {
  return gemm.benchmarking.withKernels3(request, (kernels) => timeRepetitions(kernels, repetitions));
}

/** Seconds to put `words` into a new storage buffer by `how` until the GPU holds them (the buffer is freed after). */
export async function timeUpload(gemm: PopcountGemmWebgpu, words: Uint32Array, how: UploadWay): Promise<number> {
  const start = performance.now();
  const uploaded = await gemm.benchmarking.upload(words, how);
  const seconds = (performance.now() - start) / 1000;
  uploaded.release();
  return seconds;
}

async function timeRepetitions(kernels: RepeatableKernels, repetitions: number): Promise<KernelTiming> {
  await kernels.run();
  const seconds: number[] = [];
  for (let rep = 0; rep < repetitions; rep++) {
    const start = performance.now();
    await kernels.run();
    seconds.push((performance.now() - start) / 1000);
  }
  return { seconds, family: kernels.family };
}
