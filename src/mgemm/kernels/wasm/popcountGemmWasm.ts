// The optimized CPU kernel set: row panels of each request computed inline on one thread or on a worker
// pool, by one of two microkernel families — the blocked wasm kernel (`wasm-i64_4x4`, any CPU) or the
// native AVX-512 kernel (`avx512-vpopcntq_4x4`, x86-64 with AVX512_VPOPCNTDQ, several times faster).

import { availableParallelism } from 'node:os';
import {
  CPU_DEVICE, type PlaneMatrix, type PopcountGemm, type PopcountGemm3Request, type PopcountGemm3Result, type PopcountGemmRequest,
  type PopcountGemmResult, type VectorSums, type VectorSumsRequest,
} from '../../contract.js';
import { toSharedPlaneMatrix } from '../../planeMatrix.js';
import { checkPopcountGemm3Request, checkPopcountGemmRequest } from '../../requestChecks.js';
import { MICROKERNEL_MR } from './blockSizes.js';
import { operandIdOf, planRowPanels, type RowPanelPlanOptions } from './gemmTask.js';
import { loadPopcountGemmModule } from './wasmModule.js';
import { ProductScratch, runTally3Task, sliceShapeRequest, type Tally3Task } from './tally3Task.js';
import { TallyBuffers } from './tallyBuffers.js';
import {
  TaskWorkerPool, type GuestTaskRunner, type TaskRunOptions, type TaskWorkerPoolStart, type WorkerGuestPreload, type WorkerGuestSpec,
} from '../../../core/taskWorkerPool.js';
import { hostVectorSums, type HostVectorSumsOptions } from '../ref/popcountGemmRef.js';
import { amxAllowedFor, loadNativeCodePlanes, loadNativePopcountKernel, nativeKernelSetName } from '../native/nativePopcount.js';
import { createTaskRunner, startKernelTasks, type GemmTaskRunner } from './kernelTasks.js';
import { GEMM_WORKER_URL, type CpuMicrokernel, type GemmWorkerData, type GemmWorkerLateSetup, type KernelTask } from './workerProtocol.js';
import type { ThreadGemmKernel } from './threadGemm.js';

/** Name of this kernel set: wasm, scalar 64-bit popcount, 4×4 microkernel. */
export const WASM_KERNEL_SET_NAME = 'wasm-i64_4x4';

/** Options of the wasm kernel set beyond the registry's PopcountGemmOptions. */
export interface WasmPopcountGemmOptions {
  /** Threads (default `os.availableParallelism()`); 1 computes inline in the calling thread, no worker. */
  readonly numThreads?: number;
  /**
   * Least work per thread, in u32 word-pair operations, before a request is split further. Default
   * 2^21: about as long on one thread as posting to a worker takes, so smaller shares do not pay.
   * Tests set 0 to split even tiny requests.
   */
  readonly minWordOpsPerThread?: number;
  /**
   * Which microkernel: `native` (AVX-512; an error where unavailable), `wasm`, or `auto` (default): native
   * where the CPU and build allow, else wasm.
   */
  readonly microkernel?: CpuMicrokernel | 'auto';
  /** A module the worker threads also run tasks of (PopcountGemm.guestTasks); one thread has no workers and ignores it. */
  readonly guest?: WorkerGuestSpec | null;
}

/** startPopcountGemmWasm's options: the guest module to load while the threads wait for its data. */
export interface WasmPopcountGemmStartOptions extends Omit<WasmPopcountGemmOptions, 'guest'> {
  readonly guestPreload?: WorkerGuestPreload | null;
}

/** The CPU kernel set while its threads start (registry.ts startPopcountGemm). */
export interface WasmPopcountGemmStart {
  complete(guest: WorkerGuestSpec | null): Promise<PopcountGemm>;
  cancel(): Promise<void>;
}

/** The microkernel `auto` picks on this machine, or the one asked for (checked). */
export function resolveMicrokernel(choice: CpuMicrokernel | 'auto'): CpuMicrokernel {
  const native = loadNativePopcountKernel();
  if (choice === 'wasm') return 'wasm';
  if (native.available) return 'native';
  if (choice === 'native') throw new Error(native.reason);
  return 'wasm';
}

/** The native kernel set sums rows in the addon (its popcounts are the same integers); the wasm one in JS. */
function vectorSumsOptionsOf(threadKernel: ThreadGemmKernel): HostVectorSumsOptions {
  const native = threadKernel.microkernel === 'native' ? loadNativeCodePlanes() : null;
  return native === null ? {} : { addRows: native.planeRowSums };
}

/** Kernel-set name of a microkernel family in a set of `numThreads` threads. */
function kernelSetName(microkernel: CpuMicrokernel, numThreads: number): string {
  return microkernel === 'native' ? nativeKernelSetName(numThreads) : WASM_KERNEL_SET_NAME;
}

const DEFAULT_MIN_WORD_OPS_PER_THREAD = 1 << 21;

/**
 * Row panels per thread of a request, at most. Threads given the same work finish up to 2× apart (H200 host, 16
 * threads: a 128-row panel took 22–43 ms), and a request ends with its slowest panel; several smaller panels each,
 * handed to whichever thread is free, let the fast ones take more.
 */
const PANELS_PER_THREAD = 8;

/**
 * Outputs of a 2-way request, on recycled memory where there is some. Both microkernels write every entry a request
 * needs (the native one stores its first K block, the wasm one copies whole C blocks; entries below a strictUpper
 * diagonal are unspecified), so recycled memory is not zeroed: zeroing sparse r²'s 112 MiB per panel on the calling
 * thread cost 0.19 s of a 2-thread run's ~2 s. A group without words leaves its output unwritten: that one is zeroed.
 */
function takeOutputs(request: PopcountGemmRequest, buffers: TallyBuffers): Uint32Array[] {
  const lengths = request.termGroups.map(() => request.aCount * request.bCount);
  const writesAll = request.a.wordsPerPlane > 0 && request.termGroups.every((group) => group.length > 0);
  return writesAll ? buffers.takeContiguous(lengths) : buffers.take(lengths);
}

/**
 * The 3-way tasks of a request: per slice, its outputs and its row panels (planned as the 2-way request
 * over the slice's pair products), each a Tally3Task.
 */
function tally3Tasks(
  request: PopcountGemm3Request, planOptions: RowPanelPlanOptions, buffers: TallyBuffers,
): { readonly outputs: PopcountGemm3Result; readonly tasks: Tally3Task[] } {
  const { x, y, z, planePairs, termGroups } = request;
  const tasks: Tally3Task[] = [];
  // Every element of a slice's outputs is computed (no strict triangle), so recycled memory need not be zeroed.
  const lengths = request.slices.flatMap((slice) => termGroups.map(() => slice.xCount * slice.zCount));
  const arrays = buffers.takeContiguous(lengths);
  const outputs = request.slices.map((slice, s) => {
    const shape = sliceShapeRequest(request, slice);
    const sliceOutputs = arrays.slice(s * termGroups.length, (s + 1) * termGroups.length);
    for (const panel of planRowPanels(shape, planOptions)) tasks.push({ x, y, z, planePairs, termGroups, slice, panel, outputs: sliceOutputs });
    return sliceOutputs;
  });
  return { outputs, tasks };
}

/** One thread: the calling one (e.g. a rank that is itself a worker thread). */
class InlinePopcountGemm implements PopcountGemm {
  readonly numThreads = 1;
  readonly device = CPU_DEVICE;
  private runTask: GemmTaskRunner | undefined;
  private readonly productScratch = new ProductScratch();
  private readonly tallyBuffers = new TallyBuffers(false);

  constructor(readonly name: string, runTask: GemmTaskRunner, readonly threadKernel: ThreadGemmKernel) {
    this.runTask = runTask;
  }

  async run(request: PopcountGemmRequest): Promise<PopcountGemmResult> {
    if (this.runTask === undefined) throw new Error(`${this.name}: run() after close()`);
    checkPopcountGemmRequest(request);
    const outputs = takeOutputs(request, this.tallyBuffers);
    const planOptions: RowPanelPlanOptions = { maxPanels: 1, rowAlign: MICROKERNEL_MR, minWordOpsPerPanel: 0 };
    const operandIds = { a: operandIdOf(request.a), b: operandIdOf(request.b) };
    for (const panel of planRowPanels(request, planOptions)) this.runTask({ request, panel, outputs, operandIds });
    return outputs;
  }

  async run3(request: PopcountGemm3Request): Promise<PopcountGemm3Result> {
    const runTask = this.runTask;
    if (runTask === undefined) throw new Error(`${this.name}: run3() after close()`);
    checkPopcountGemm3Request(request);
    const { outputs, tasks } = tally3Tasks(request, { maxPanels: 1, rowAlign: MICROKERNEL_MR, minWordOpsPerPanel: 0 }, this.tallyBuffers);
    for (const task of tasks) runTally3Task(task, runTask, this.productScratch);
    return outputs;
  }

  vectorSums(request: VectorSumsRequest): Promise<VectorSums> {
    return hostVectorSums(request, vectorSumsOptionsOf(this.threadKernel));
  }

  recycle(tallies: PopcountGemmResult): void {
    this.tallyBuffers.give(tallies);
  }

  async close(): Promise<void> {
    this.runTask = undefined;
  }
}

/** Several threads: row panels of each request go to a pool of workers; outputs are shared memory. */
class PooledPopcountGemm implements PopcountGemm {
  readonly device = CPU_DEVICE;
  private readonly tallyBuffers = new TallyBuffers(true);
  readonly guestTasks?: GuestTaskRunner;

  constructor(
    readonly name: string,
    private readonly pool: TaskWorkerPool<KernelTask, unknown>,
    private readonly minWordOpsPerThread: number,
    readonly threadKernel: ThreadGemmKernel,
    options: { readonly hostsGuest: boolean },
  ) {
    if (options.hostsGuest) {
      this.guestTasks = {
        numThreads: pool.numThreads,
        run: (task: unknown, runOptions?: TaskRunOptions) => pool.run({ kind: 'guest', task }, runOptions),
      };
    }
  }

  get numThreads(): number {
    return this.pool.numThreads;
  }

  async run(request: PopcountGemmRequest): Promise<PopcountGemmResult> {
    checkPopcountGemmRequest(request);
    const sharedRequest = withSharedOperands(request);
    const outputs = takeOutputs(request, this.tallyBuffers);
    const panels = planRowPanels(request, {
      maxPanels: PANELS_PER_THREAD * this.pool.numThreads,
      rowAlign: MICROKERNEL_MR,
      minWordOpsPerPanel: this.minWordOpsPerThread,
    });
    // Named by the caller's objects, which stay the same across requests where the shared copies may not.
    const operandIds = { a: operandIdOf(request.a), b: operandIdOf(request.b) };
    await Promise.all(panels.map((panel) => this.pool.run({ kind: 'gemm', task: { request: sharedRequest, panel, outputs, operandIds } })));
    return outputs;
  }

  /** Every panel of every slice is posted at once; workers build their panels' pair products. */
  async run3(request: PopcountGemm3Request): Promise<PopcountGemm3Result> {
    checkPopcountGemm3Request(request);
    const x = toSharedPlaneMatrix(request.x);
    const y = request.y === request.x ? x : toSharedPlaneMatrix(request.y);
    const z = request.z === request.x ? x : request.z === request.y ? y : toSharedPlaneMatrix(request.z);
    // Slices are cut into row panels only as far as balance needs: PANELS_PER_THREAD tasks per thread in all (a
    // request of many slices makes one task per slice, not one per slice and thread: each task is a round trip
    // through this thread, which at 2 threads and 382 slices of nv 384 was 764 messages for 0.8 s of GEMM).
    const panelsPerSlice = Math.min(this.pool.numThreads, Math.ceil((PANELS_PER_THREAD * this.pool.numThreads) / Math.max(1, request.slices.length)));
    const { outputs, tasks } = tally3Tasks({ ...request, x, y, z }, {
      maxPanels: panelsPerSlice, rowAlign: MICROKERNEL_MR, minWordOpsPerPanel: this.minWordOpsPerThread,
    }, this.tallyBuffers);
    await Promise.all(tasks.map((task) => this.pool.run({ kind: 'tally3', task })));
    return outputs;
  }

  vectorSums(request: VectorSumsRequest): Promise<VectorSums> {
    return hostVectorSums(request, vectorSumsOptionsOf(this.threadKernel));
  }

  recycle(tallies: PopcountGemmResult): void {
    this.tallyBuffers.give(tallies);
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}

/** The request with operands in shared memory (copied once if not; `a === b` stays one copy). */
function withSharedOperands(request: PopcountGemmRequest): PopcountGemmRequest {
  const a: PlaneMatrix = toSharedPlaneMatrix(request.a);
  const b: PlaneMatrix = request.b === request.a ? a : toSharedPlaneMatrix(request.b);
  return { ...request, a, b };
}

/** Creates the optimized CPU kernel set with its threads started and its microkernels ready. */
export function createPopcountGemmWasm(options: WasmPopcountGemmOptions = {}): Promise<PopcountGemm> {
  return startPopcountGemmWasm(options).complete(options.guest ?? null);
}

/**
 * Starts the optimized CPU kernel set: its microkernel chosen (the wasm module compiled) and its worker threads
 * started at once, each loading its microkernel and `guestPreload`'s module; `complete(guest)` gives them the guest
 * and resolves with the kernel set once every thread is ready.
 */
export function startPopcountGemmWasm(options: WasmPopcountGemmStartOptions = {}): WasmPopcountGemmStart {
  const numThreads = options.numThreads ?? availableParallelism();
  if (!Number.isInteger(numThreads) || numThreads < 1) throw new RangeError(`numThreads must be a positive integer, got ${numThreads}`);
  const starting = startThreads(options, numThreads);
  starting.catch(() => undefined);
  let phase: 'starting' | 'completed' | 'cancelled' = 'starting';
  return {
    complete: async (guest) => {
      if (phase !== 'starting') throw new Error(`${WASM_KERNEL_SET_NAME}: complete() after ${phase === 'completed' ? 'complete()' : 'cancel()'}`);
      phase = 'completed';
      const { name, threadKernel, pool } = await starting;
      if (pool === null) return new InlinePopcountGemm(name, await createTaskRunner(threadKernel), threadKernel);
      const lateSetup: GemmWorkerLateSetup = { guest };
      const minWordOps = options.minWordOpsPerThread ?? DEFAULT_MIN_WORD_OPS_PER_THREAD;
      return new PooledPopcountGemm(name, await pool.complete(lateSetup), minWordOps, threadKernel, { hostsGuest: guest !== null });
    },
    cancel: async () => {
      if (phase !== 'starting') return;
      phase = 'cancelled';
      const started = await starting.catch(() => null);
      await started?.pool?.cancel();
    },
  };
}

/** The microkernel, and the pool's threads starting (null for one thread: the calling thread computes inline). */
async function startThreads(options: WasmPopcountGemmStartOptions, numThreads: number): Promise<{
  readonly name: string; readonly threadKernel: ThreadGemmKernel; readonly pool: TaskWorkerPoolStart<KernelTask, unknown> | null;
}> {
  const microkernel = resolveMicrokernel(options.microkernel ?? 'auto');
  const module = microkernel === 'wasm' ? await loadPopcountGemmModule() : null;
  const name = kernelSetName(microkernel, numThreads);
  const threadKernel: ThreadGemmKernel = { microkernel, module, amx: amxAllowedFor(numThreads) };
  if (numThreads === 1) return { name, threadKernel, pool: null };
  const workerData: GemmWorkerData = { ...threadKernel, guestPreload: options.guestPreload ?? null };
  // The calling thread computes too where the pool allows it (core/taskWorkerPool.ts CALLER_RUNS_MAX_THREADS).
  const pool = TaskWorkerPool.start<KernelTask, unknown>({
    workerUrl: GEMM_WORKER_URL, numThreads, workerData, name: 'kernel worker',
    callerRuns: (data, lateSetup) => startKernelTasks(data as GemmWorkerData, lateSetup),
  });
  return { name, threadKernel, pool };
}
