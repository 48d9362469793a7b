// Starting MPI, with its binding and runtime loaded on demand: a process that never runs under mpirun loads none of it.
import type { MpiLaunch } from './mpi/launchEnv.js';
import type { MpiRuntime } from './mpi/mpiRuntime.js';

/** Initializes MPI for the launch detectMpiLaunch found (mpi/mpiRuntime.ts startMpi), loading its modules first. */
export async function startMpi(launch: MpiLaunch): Promise<MpiRuntime> {
  const mpi = await import('./mpi/mpiRuntime.js');
  return mpi.startMpi(launch);
}
