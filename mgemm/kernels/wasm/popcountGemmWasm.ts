// Kernel set `wasm-i64_4x4`: the blocked wasm popcount-GEMM, inline on one thread or on a worker pool.

import { availableParallelism } from 'node:os';
import type { PlaneMatrix, PopcountGemm, PopcountGemmRequest, PopcountGemmResult } from '../../contract.js';
import { toSharedPlaneMatrix } from '../../planeMatrix.js';
import { checkPopcountGemmRequest } from '../../requestChecks.js';
import { MICROKERNEL_MR } from './blockSizes.js';
import { runGemmTask } from './blockedLoops.js';
import { planRowPanels, type RowPanelPlanOptions } from './gemmTask.js';
import { loadPopcountGemmModule, PopcountGemmWasmInstance } from './wasmModule.js';
import { GemmWorkerPool } from './workerPool.js';

/** Name of this kernel set: wasm, scalar 64-bit popcount, 4×4 microkernel. */
export const WASM_KERNEL_SET_NAME = 'wasm-i64_4x4';

/** Options of the wasm kernel set beyond the registry's PopcountGemmOptions. */
export interface WasmPopcountGemmOptions {
  /** Threads (default `os.availableParallelism()`); 1 computes inline in the calling thread, no worker. */
  readonly numThreads?: number;
  /**
   * Least work per thread, in u32 word-pair operations, before a request is split further. Default
   * 2^21 ≈ 0.15 ms of one thread (≈ 1.5e10 word-pairs/s), about the cost of posting to a worker.
   * Tests set 0 to split even tiny requests.
   */
  readonly minWordOpsPerThread?: number;
}

const DEFAULT_MIN_WORD_OPS_PER_THREAD = 1 << 21;

function allocateOutputs(request: PopcountGemmRequest, shared: boolean): Uint32Array[] {
  const numBytes = request.aCount * request.bCount * 4;
  return request.termGroups.map(() => new Uint32Array(shared ? new SharedArrayBuffer(numBytes) : new ArrayBuffer(numBytes)));
}

/** One thread: the calling one (e.g. a rank that is itself a worker thread). */
class InlineWasmPopcountGemm implements PopcountGemm {
  readonly name = WASM_KERNEL_SET_NAME;
  readonly numThreads = 1;
  private instance: PopcountGemmWasmInstance | undefined;

  constructor(instance: PopcountGemmWasmInstance) {
    this.instance = instance;
  }

  async run(request: PopcountGemmRequest): Promise<PopcountGemmResult> {
    if (this.instance === undefined) throw new Error(`${this.name}: run() after close()`);
    checkPopcountGemmRequest(request);
    const outputs = allocateOutputs(request, false);
    const planOptions: RowPanelPlanOptions = { maxPanels: 1, rowAlign: MICROKERNEL_MR, minWordOpsPerPanel: 0 };
    for (const panel of planRowPanels(request, planOptions)) runGemmTask(this.instance, { request, panel, outputs });
    return outputs;
  }

  async close(): Promise<void> {
    this.instance = undefined;
  }
}

/** Several threads: row panels of each request go to a pool of workers; outputs are shared memory. */
class PooledWasmPopcountGemm implements PopcountGemm {
  readonly name = WASM_KERNEL_SET_NAME;

  constructor(
    private readonly pool: GemmWorkerPool,
    private readonly minWordOpsPerThread: number,
  ) {}

  get numThreads(): number {
    return this.pool.numThreads;
  }

  async run(request: PopcountGemmRequest): Promise<PopcountGemmResult> {
    checkPopcountGemmRequest(request);
    const sharedRequest = withSharedOperands(request);
    const outputs = allocateOutputs(request, true);
    const panels = planRowPanels(request, {
      maxPanels: this.pool.numThreads,
      rowAlign: MICROKERNEL_MR,
      minWordOpsPerPanel: this.minWordOpsPerThread,
    });
    await Promise.all(panels.map((panel) => this.pool.run({ request: sharedRequest, panel, outputs })));
    return outputs;
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

/** Creates kernel set `wasm-i64_4x4` with its threads started and its wasm instances ready. */
export async function createPopcountGemmWasm(options: WasmPopcountGemmOptions = {}): Promise<PopcountGemm> {
  const numThreads = options.numThreads ?? availableParallelism();
  if (!Number.isInteger(numThreads) || numThreads < 1) throw new RangeError(`numThreads must be a positive integer, got ${numThreads}`);
  const module = await loadPopcountGemmModule();
  if (numThreads === 1) return new InlineWasmPopcountGemm(await PopcountGemmWasmInstance.create(module));
  const pool = await GemmWorkerPool.create(numThreads, module);
  return new PooledWasmPopcountGemm(pool, options.minWordOpsPerThread ?? DEFAULT_MIN_WORD_OPS_PER_THREAD);
}
