// Tasks of the min-plus kernel set: row ranges of a 2-way request or of one 3-way slice, run by a worker (or inline).
import type { PairMinOrder, ValuePrecision } from '../../minPlusContract.js';
import { realValuesOf } from '../../minPlusContract.js';
import type { PlaneMatrix } from '../../contract.js';
import { KC, minPlus2Blocked, minPlus2Reference, minPlus3Blocked, minPlus3Reference } from './minPlusKernels.js';

/** Which kernels a task runs: the reference (oracle) or the blocked ones. */
export type MinPlusKernelKind = 'reference' | 'blocked';

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

/** Runs tasks with one scratch buffer of its own (one runner per thread). */
export function createMinPlusTaskRunner(): (task: MinPlusTask) => void {
  const pairScratch = new Float64Array(KC);
  return (task) => {
    if (task.kind === 'pairs') {
      const tile = { ...task, a: realValuesOf(task.a, task.precision), b: realValuesOf(task.b, task.precision) };
      if (task.kernel === 'reference') minPlus2Reference(tile);
      else minPlus2Blocked(tile);
      return;
    }
    const tile = {
      ...task, x: realValuesOf(task.x, task.precision), y: realValuesOf(task.y, task.precision), z: realValuesOf(task.z, task.precision),
    };
    if (task.kernel === 'reference') minPlus3Reference(tile);
    else minPlus3Blocked(tile, pairScratch);
  };
}
