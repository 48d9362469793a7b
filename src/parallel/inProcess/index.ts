// Public face of the in-process (worker-thread) communicator: the launcher and the entry contract.
export { launchInProcessRanks, RankError, type LaunchInProcessOptions } from './launchInProcessRanks.js';
export type { ProgressReporter, RankEntry } from './messages.js';
