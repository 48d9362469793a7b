// Public face of the MPI communicator: launch detection, starting MPI, the communicator itself.
export { detectMpiLaunch, type MpiLaunch } from './launchEnv.js';
export { startMpi, type MpiRuntime } from './mpiRuntime.js';
export { MpiCommunicator } from './mpiCommunicator.js';
export { MESSAGE_PIECE_BYTES } from './requestPoller.js';
export { PREFAULT_MIN_BYTES } from './pagePrefault.js';
export { loadMpiBinding, type MpiBinding, type MpiBindingLoad } from './mpiBinding.js';
