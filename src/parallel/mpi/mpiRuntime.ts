// Starts MPI in this process (once) and hands out the world communicator, the node-local rank and the job's exit.
import { UserError } from '../../core/errors.js';
import { loadMpiBinding, type MpiBinding } from './mpiBinding.js';
import { abortJob, MpiCommunicator, type MpiContext } from './mpiCommunicator.js';
import { RequestPoller } from './requestPoller.js';
import type { MpiLaunch } from './launchEnv.js';

/** libmpi of Open MPI ≥ 1.10 (Debian's libopenmpi3); loaded RTLD_GLOBAL so Open MPI's plugins resolve its symbols. */
const LIBMPI_SONAME = 'libmpi.so.40';

/** MPI as this process sees it, from MPI_Init_thread to MPI_Finalize. */
export interface MpiRuntime {
  readonly world: MpiCommunicator;
  /** Rank among the processes of this node (e.g. to pick one GPU per rank) and their number. */
  readonly localRank: number;
  readonly localSize: number;
  /** Waits for sends still in flight, then MPI_Finalize; every rank calls it after its last communication. */
  finalize(): Promise<void>;
  /** Prints `line` once (from this rank) and ends every rank of the job with `errorCode`. */
  abortJob(line: string, errorCode: number): never;
}

let started: MpiRuntime | null = null;

/**
 * Initializes MPI with MPI_THREAD_FUNNELED (only the main thread calls MPI).
 * @throws UserError when snptally was built without the MPI binding (the launch names the evidence).
 */
export function startMpi(launch: MpiLaunch): MpiRuntime {
  if (started !== null) return started;
  const load = loadMpiBinding();
  if (!load.available) {
    throw new UserError(`started by an MPI launcher (${launch.evidence}) but MPI support is unavailable: ${load.reason}`);
  }
  const binding: MpiBinding = load.binding;
  const { threadFunneled } = binding.init(LIBMPI_SONAME);
  if (!threadFunneled) throw new Error('the MPI library does not provide MPI_THREAD_FUNNELED');
  const poller = new RequestPoller(binding);
  const context: MpiContext = { binding, poller, worldRank: binding.commRank(0), tagUpperBound: binding.tagUpperBound() };
  const world = new MpiCommunicator(context, 0);
  const nodeComm = binding.commSplitShared(0);
  const localRank = binding.commRank(nodeComm);
  const localSize = binding.commSize(nodeComm);
  binding.commFree(nodeComm);
  started = {
    world,
    localRank,
    localSize,
    finalize: async () => {
      await poller.settle();
      binding.finalize();
    },
    abortJob: (line, errorCode) => abortJob(binding, line, errorCode),
  };
  return started;
}
