// Tasks of the min-plus kernel set: row ranges of a 2-way request or of one 3-way slice, run by a worker (or inline).
import type { PairMinOrder, ValuePrecision } from '../../minPlusContract.js';
import { realValuesOf } from '../../minPlusContract.js';
import type { PlaneMatrix } from '../../contract.js';
import type { WasmModule } from '../wasm/webAssemblyApi.js';
import { KC, minPlus2Blocked, minPlus2Reference, minPlus3Blocked, minPlus3Reference } from './minPlusKernels.js';
import { runMinPlus2Wasm, runMinPlus3Wasm } from './minPlusWasmLoops.js';
import { MinPlusWasmInstance } from './minPlusWasmModule.js';

/** Which kernels a task runs: the reference (oracle), the blocked JavaScript ones, or the blocked wasm SIMD ones. */
export type MinPlusKernelKind = 'reference' | 'blocked' | 'wasm';

/** `workerData` of a min-plus worker: the compiled wasm module where the kernel set runs wasm (workers skip compiling). */
export interface MinPlusWorkerData {
  readonly module: WasmModule | null;
}

/** A task as posted to a worker: plain data, matrices and output in shared memory. */
export type MinPlusTask =
  | {
      readonly kind: 'pairs'; readonly kernel: MinPlusKernelKind; readonly precision: ValuePrecision; readonly numField: number;
      readonly a: PlaneMatrix; readonly aFirst: number; readonly b: PlaneMatrix; readonly bFirst: number; readonly bCount: number;
      readonly rowFirst: number; readonly rowEnd: number; readonly strictUpper: boolean; readonly out: Float64Array | Float32Array;
    }
  | {
      readonly kind: 'triples'; readonly kernel: MinPlusKernelKind; readonly precision: ValuePrecision; readonly numField: number;
      readonly x: PlaneMatrix; readonly xFirst: number; readonly y: PlaneMatrix; readonly yRow: number;
      readonly z: PlaneMatrix; readonly zFirst: number; readonly zCount: number;
      readonly rowFirst: number; readonly rowEnd: number; readonly order: PairMinOrder; readonly out: Float64Array | Float32Array;
    };

/** Runs tasks with a scratch buffer and (given `module`) a wasm instance of its own: one runner per thread. */
export async function createMinPlusTaskRunner(module: WasmModule | null): Promise<(task: MinPlusTask) => void> {
  const pairScratch = new Float64Array(KC);
  const instance = module === null ? null : await MinPlusWasmInstance.create(module);
  const wasm = (): MinPlusWasmInstance => {
    if (instance === null) throw new Error('a wasm min-plus task needs the compiled module');
    return instance;
  };
  return (task) => {
    if (task.kind === 'pairs') {
      const tile = { ...task, a: realValuesOf(task.a, task.precision), b: realValuesOf(task.b, task.precision) };
      if (task.kernel === 'reference') minPlus2Reference(tile);
      else if (task.kernel === 'wasm') runMinPlus2Wasm(wasm(), tile);
      else minPlus2Blocked(tile);
      return;
    }
    const tile = {
      ...task, x: realValuesOf(task.x, task.precision), y: realValuesOf(task.y, task.precision), z: realValuesOf(task.z, task.precision),
    };
    if (task.kernel === 'reference') minPlus3Reference(tile);
    else if (task.kernel === 'wasm') runMinPlus3Wasm(wasm(), tile);
    else minPlus3Blocked(tile, pairScratch);
  };
}
