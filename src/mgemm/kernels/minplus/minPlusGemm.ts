// The min-plus kernel sets (minPlusContract.ts): `ref` runs the reference kernels inline, `cpu` the blocked wasm SIMD
// kernels (or, on a runtime without wasm SIMD, the blocked JS kernels) on a pool of worker threads, row ranges as
// tasks. All give the same bits: every sum is added in field order.
import { TaskWorkerPool } from '../../../core/taskWorkerPool.js';
import {
  CPU_DEVICE, type ComputeDevice, type PlaneMatrix, type PopcountGemm, type PopcountGemm3Request, type PopcountGemm3Result,
  type PopcountGemmRequest, type PopcountGemmResult, type VectorSums, type VectorSumsRequest,
} from '../../contract.js';
import { toSharedPlaneMatrix } from '../../planeMatrix.js';
import { pairMinOrder, realValuesOf, sumWordGroups, type RealOperands, type ValuePrecision } from '../../minPlusContract.js';
import { MR } from './minPlusKernels.js';
import { createMinPlusTaskRunner, type MinPlusKernelKind, type MinPlusTask, type MinPlusWorkerData } from './minPlusTasks.js';
import { loadMinPlusModule } from './minPlusWasmModule.js';
import { minPlusTilesOf } from './minPlusBlockSizes.js';
import { MIN_PLUS_CPU_NAME, MIN_PLUS_REF_NAME, minPlusWasmName } from '../../kernelSetNames.js';

const WORKER_URL = new URL('./minPlusWorker.js', import.meta.url);

/** Tasks per thread of a request: enough that threads finish together when tiles differ (strictUpper). */
const TASKS_PER_THREAD = 4;


/** The kernel `cpu` runs here: wasm SIMD where the module compiles, else the blocked JS kernels. */
export async function resolveMinPlusCpuKernel(): Promise<MinPlusKernelKind> {
  return (await loadMinPlusModule()).available ? 'wasm' : 'blocked';
}

export interface MinPlusGemmOptions {
  readonly operands: RealOperands;
  readonly kernel: MinPlusKernelKind;
  /** Worker threads (blocked JS and wasm kernels); the reference runs inline on the calling thread. */
  readonly numThreads: number;
}

/** A min-plus kernel set: PopcountGemm over real-valued matrices (minPlusContract.ts). */
export class MinPlusGemm implements PopcountGemm {
  readonly device: ComputeDevice = CPU_DEVICE;

  /** Tasks run on `pool`, or inline on the calling thread by `inline` (the reference). */
  private constructor(
    private readonly options: MinPlusGemmOptions,
    private readonly pool: TaskWorkerPool<MinPlusTask, null> | null,
    private readonly inline: ((task: MinPlusTask) => void) | null,
  ) {}

  /** @throws Error when `kernel` is 'wasm' and the wasm module is missing or does not compile here. */
  static async create(options: MinPlusGemmOptions): Promise<MinPlusGemm> {
    if (options.kernel === 'reference') return new MinPlusGemm(options, null, await createMinPlusTaskRunner(null));
    let module = null;
    if (options.kernel === 'wasm') {
      const probe = await loadMinPlusModule();
      if (!probe.available) throw new Error(probe.reason);
      module = probe.module;
    }
    const workerData: MinPlusWorkerData = { module };
    const pool = await TaskWorkerPool.create<MinPlusTask, null>({ workerUrl: WORKER_URL, numThreads: options.numThreads, workerData, name: 'min-plus kernel worker' });
    return new MinPlusGemm(options, pool, null);
  }

  get name(): string {
    switch (this.options.kernel) {
      case 'reference':
        return MIN_PLUS_REF_NAME;
      case 'blocked':
        return MIN_PLUS_CPU_NAME;
      case 'wasm':
        return minPlusWasmName(this.options.operands.precision);
    }
  }

  get numThreads(): number {
    return this.pool?.numThreads ?? 1;
  }

  async run(request: PopcountGemmRequest): Promise<PopcountGemmResult> {
    const out = this.allocateSums(request.aCount * request.bCount);
    const { precision, numField } = this.options.operands;
    const a = toSharedPlaneMatrix(request.a);
    const b = request.b === request.a ? a : toSharedPlaneMatrix(request.b);
    await Promise.all(this.rowRanges(request.aCount).map(([rowFirst, rowEnd]) => this.runTask({
      kind: 'pairs', kernel: this.options.kernel, precision, numField, a, aFirst: request.aFirst, b, bFirst: request.bFirst,
      bCount: request.bCount, rowFirst, rowEnd, strictUpper: request.strictUpper, out,
    })));
    return sumWordGroups(out);
  }

  async run3(request: PopcountGemm3Request): Promise<PopcountGemm3Result> {
    const { precision, numField } = this.options.operands;
    const shared = new Map<PlaneMatrix, PlaneMatrix>();
    const sharedOf = (m: PlaneMatrix): PlaneMatrix => {
      let s = shared.get(m);
      if (s === undefined) shared.set(m, (s = toSharedPlaneMatrix(m)));
      return s;
    };
    const [x, y, z] = [sharedOf(request.x), sharedOf(request.y), sharedOf(request.z)];
    const order = pairMinOrder(request.blockIndices);
    const outs = request.slices.map((slice) => this.allocateSums(slice.xCount * slice.zCount));
    const tasks: Promise<void>[] = [];
    for (const [s, slice] of request.slices.entries()) {
      for (const [rowFirst, rowEnd] of this.rowRanges(slice.xCount, request.slices.length)) {
        tasks.push(this.runTask({
          kind: 'triples', kernel: this.options.kernel, precision, numField, x, xFirst: slice.xFirst, y, yRow: slice.yRow,
          z, zFirst: slice.zFirst, zCount: slice.zCount, rowFirst, rowEnd, order, out: outs[s],
        }));
      }
    }
    await Promise.all(tasks);
    return outs.map(sumWordGroups);
  }

  /** Σ_f of each row in field order, in the run's precision; counts are 0 (real-valued layouts have no mask plane). */
  async vectorSums(request: VectorSumsRequest): Promise<VectorSums> {
    const { planes } = request;
    await request.rowsReady?.(planes.numVectors);
    const { values, rowStride } = realValuesOf(planes, this.options.operands.precision);
    const sums = new Float64Array(planes.numVectors);
    const round = this.options.operands.precision === 'double' ? (x: number) => x : Math.fround;
    for (let r = 0; r < planes.numVectors; r++) {
      let s = 0;
      for (let f = 0; f < this.options.operands.numField; f++) s = round(s + values[r * rowStride + f]);
      sums[r] = s;
    }
    return { sums, counts: new Float64Array(planes.numVectors) };
  }

  async close(): Promise<void> {
    await this.pool?.close();
  }

  private allocateSums(count: number): Float64Array | Float32Array {
    return this.options.operands.precision === 'double'
      ? new Float64Array(new SharedArrayBuffer(8 * count)) : new Float32Array(new SharedArrayBuffer(4 * count));
  }

  /** Rows [0, count) in ranges of whole MR tiles, about TASKS_PER_THREAD per thread over `numRequests` requests. */
  private rowRanges(count: number, numRequests = 1): [number, number][] {
    const numTasks = Math.max(1, Math.ceil((TASKS_PER_THREAD * this.numThreads) / numRequests));
    const step = Math.max(MR, Math.ceil(count / numTasks / MR) * MR);
    const ranges: [number, number][] = [];
    for (let r = 0; r < count; r += step) ranges.push([r, Math.min(count, r + step)]);
    return ranges;
  }

  private async runTask(task: MinPlusTask): Promise<void> {
    if (this.pool !== null) await this.pool.run(task);
    else if (this.inline !== null) this.inline(task);
    else throw new Error('a min-plus kernel set has neither a worker pool nor an inline runner');
  }
}
