// Entry of an in-process rank (a worker thread): the launcher calls `rankEntry` with the job.
import type { Communicator } from '../../parallel/index.js';
import type { JobSpec } from './jobSpec.js';
import { runRank, type RankOutcome } from './rankRun.js';

/** What the launcher sends every in-process rank. */
export interface RankPayload {
  readonly job: JobSpec;
  /** The rank that fails on purpose (failure-handling tests), or null. */
  readonly failRank: number | null;
}

export async function rankEntry(
  comm: Communicator, payload: unknown, reportProgress: (done: number, total: number) => void,
): Promise<RankOutcome> {
  const { job, failRank } = payload as RankPayload;
  return runRank(comm, job, reportProgress, { induceFailure: comm.rank === failRank });
}
