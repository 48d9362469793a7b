// Entry of an in-process rank (a worker thread): the launcher calls `rankEntry` with the job.
import type { Communicator } from '../../parallel/index.js';
import type { JobSpec } from './jobSpec.js';
import { runRank, type RankOutcome } from './rankRun.js';

export async function rankEntry(
  comm: Communicator, payload: unknown, reportProgress: (done: number, total: number) => void,
): Promise<RankOutcome> {
  return runRank(comm, payload as JobSpec, reportProgress);
}
