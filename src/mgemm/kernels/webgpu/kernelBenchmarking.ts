// What benchmarks may drive on a WebGPU kernel set besides the contract (PopcountGemmWebgpu.benchmarking): a
// request's kernels alone, run again and again with no read-back, and an upload by each of the runner's ways in.
// It measures nothing itself: the timing loops are the tools' (tools/lib/webgpuTiming.ts). Everything runs in a
// request's turn of the kernel set (runtime/requestTurns.ts), so no other request changes the scratch buffers
// the dispatches use while a benchmark holds them.

import type { PopcountGemm3Request, PopcountGemmRequest } from '../../contract.js';
import { checkPopcountGemmRequest } from '../../requestChecks.js';
import type { KernelFamily } from './plan/kernelChoice.js';
import type { Dispatch, WebgpuRunner } from './runtime/webgpuRunner.js';

/** A request's kernels, planned, compiled and with their operands on the device. */
export interface RepeatableKernels {
  readonly family: KernelFamily;
  /** Submits all the request's dispatches at once and waits for the GPU to have run them (nothing is read back). */
  run(): Promise<void>;
}

/** The runner's ways of putting words into a new storage buffer (`staged` is the one resident operands use). */
export type UploadWay = 'mapped' | 'staged' | 'writes';

/** A storage buffer uploaded for a benchmark: free it with release(). */
export interface UploadedBuffer {
  release(): void;
}

/** What the benchmarking surface uses of the kernel set. */
export interface BenchmarkedKernelSet {
  readonly runner: WebgpuRunner;
  /** Runs `work` in a request's turn, as a request the kernel set's close() waits for. */
  inRequestTurn<R>(work: () => Promise<R>): Promise<R>;
  /** The dispatches of a 2-way request, writing into the shared output buffer; null when there is nothing to compute. */
  kernelDispatches(request: PopcountGemmRequest): Promise<{ readonly dispatches: readonly Dispatch[]; readonly family: KernelFamily } | null>;
  /** The dispatches of a 3-way request (pair products and GEMMs; tally3Webgpu.ts tally3KernelDispatches). */
  kernelDispatches3(request: PopcountGemm3Request): Promise<{ readonly dispatches: readonly Dispatch[]; readonly family: KernelFamily }>;
}

/** The benchmarking surface of one kernel set. */
export class WebgpuBenchmarking {
  constructor(private readonly kernelSet: BenchmarkedKernelSet) {}

  /**
   * Hands `use` the 2-way request's kernels (null when the request has nothing to compute) in one turn of the kernel
   * set: no other request runs until what `use` returns has settled.
   */
  withKernels<R>(request: PopcountGemmRequest, use: (kernels: RepeatableKernels | null) => Promise<R>): Promise<R> {
    return this.kernelSet.inRequestTurn(async () => {
      checkPopcountGemmRequest(request);
      const planned = await this.kernelSet.kernelDispatches(request);
      return use(planned === null ? null : this.repeatable(planned.dispatches, planned.family));
    });
  }

  /** As withKernels, for a 3-way request: all its dispatches (pair products built on the GPU, then the GEMMs). */
  withKernels3<R>(request: PopcountGemm3Request, use: (kernels: RepeatableKernels) => Promise<R>): Promise<R> {
    return this.kernelSet.inRequestTurn(async () => {
      const { dispatches, family } = await this.kernelSet.kernelDispatches3(request);
      return use(this.repeatable(dispatches, family));
    });
  }

  /**
   * Puts `words` into a new storage buffer by `how` (`mapped`: mapped at creation; `staged`: through the runner's
   * staging ring; `writes`: queue.writeBuffer pieces) and settles once the GPU holds them.
   */
  upload(words: Uint32Array, how: UploadWay): Promise<UploadedBuffer> {
    const { runner } = this.kernelSet;
    return this.kernelSet.inRequestTurn(async () => {
      const buffer = how === 'mapped' ? runner.createStorageBufferFrom(words, { readBack: false })
        : how === 'staged' ? await runner.createStorageBufferStaged(words, { readBack: false })
          : runner.createStorageBufferByWrites(words, { readBack: false });
      await runner.idle();
      return { release: () => buffer.destroy() };
    });
  }

  private repeatable(dispatches: readonly Dispatch[], family: KernelFamily): RepeatableKernels {
    return { family, run: () => this.kernelSet.runner.runDispatches(dispatches) };
  }
}
