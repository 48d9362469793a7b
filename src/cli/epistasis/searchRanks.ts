// Where an epistasis search's engine runs go: every rank in this process, or this process as one MPI rank of the job.
// The search itself is written once against this interface: the reading rank (world rank 0, or the only process)
// rescores the candidates and decides; every rank follows its decision.
import { broadcastObject, type Communicator } from '../../parallel/index.js';
import { loadRunJob, type JobSpec, type RunResult, type StartedRunKernels } from '../engineApi.js';

/** What the engine run reports while it works, and kernel threads started ahead for it. */
export interface SearchRunHooks {
  readonly onProgress?: (done: number, total: number) => void;
  /** Taken by the run (in-process ranks: RunHooks.startedKernels) or cancelled. */
  readonly startedKernels?: StartedRunKernels | null;
}

export interface SearchRanks {
  /** Whether this process reads the results and decides (the only process, or world rank 0). */
  readonly isReader: boolean;
  /** The ranks whose record files this process reads and rewrites: every rank in one process, its own under MPI. */
  ownRanks(numRanks: number): number[];
  /** Runs the job: collective under MPI. The result on the reader, null on the other processes. */
  runJob(job: JobSpec, hooks: SearchRunHooks): Promise<RunResult | null>;
  /** The reader's `value` on every process (others pass anything); collective under MPI. */
  share<T>(value: T): Promise<T>;
  /** The sum of every process's `count` (integers below 2^53), on every process; collective under MPI. */
  sumOverProcesses(count: number): Promise<number>;
}

/** Every rank in this process (in-process ranks of `--npv`/`--npr`). */
export function inProcessRanks(): SearchRanks {
  return {
    isReader: true,
    ownRanks: (numRanks) => Array.from({ length: numRanks }, (_, rank) => rank),
    runJob: async (job, hooks) => (await loadRunJob())(job, hooks),
    share: async (value) => value,
    sumOverProcesses: async (count) => count,
  };
}

/** This process as world rank `world.rank` of an MPI job (one rank per process). */
export function mpiRanks(world: Communicator, placement: { readonly localRank: number; readonly localSize: number }): SearchRanks {
  return {
    isReader: world.rank === 0,
    ownRanks: () => [world.rank],
    runJob: async (job, hooks) => {
      // Kernel threads are started ahead in one process only (its ranks then take their own).
      await hooks.startedKernels?.cancel();
      const engine = await import('../../engine/index.js');
      return engine.runJobAsRank(job, world, { onProgress: hooks.onProgress, localRank: placement.localRank, localSize: placement.localSize });
    },
    share: (value) => broadcastObject(world, 0, value),
    sumOverProcesses: async (count) => (await world.allReduceSum(Float64Array.of(count)))[0],
  };
}
