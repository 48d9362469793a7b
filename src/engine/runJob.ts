// Runs a whole job on this machine: checks it, runs its ranks (in this thread or as worker threads),
// and combines their reports into a RunResult.
import { rmSync } from 'node:fs';
import { ChecksumAccumulator, formatChecksum } from '../core/checksum.js';
import { UserError } from '../core/errors.js';
import { checkTallyLimits, checkVectorLimit } from '../core/limits.js';
import { checkPackedVectorFile, findExistingOutputs } from '../io/index.js';
import { LocalCommunicator, launchInProcessRanks, validateDecomposition } from '../../parallel/index.js';
import { resolveBackend } from './backendChoice.js';
import type { JobSpec, RunResult } from './jobSpec.js';
import { runRank, type RankOutcome } from './rankRun.js';

export interface RunHooks {
  /** Comparisons done so far and in total, summed over ranks. */
  readonly onProgress?: (done: number, total: number) => void;
}

/** Checks a job before any rank starts; every problem is a one-line UserError. */
export function checkJob(job: JobSpec): void {
  const { metricSpec: m, numVector, numField } = job;
  validateDecomposition({ numWay: m.numWay, numVector, numField }, job.decomposition);
  checkTallyLimits(m.metric, m.numWay, numField);
  checkVectorLimit(numVector);
  if (job.verify && job.source.kind !== 'analytic') {
    throw new UserError('--verify needs --problem analytic (only the analytic problem has known values)');
  }
  if (job.source.kind === 'file') checkPackedVectorFile(job.source.path, numVector, numField);
  if (job.outputStub !== null && !job.force) {
    const existing = findExistingOutputs(job.outputStub);
    if (existing.length > 0) {
      throw new UserError(`output ${existing[0]}${existing.length > 1 ? ` (and ${existing.length - 1} more)` : ''} already exists; use --force to overwrite`);
    }
  }
}

export async function runJob(requestedJob: JobSpec, hooks: RunHooks = {}): Promise<RunResult> {
  checkJob(requestedJob);
  const { backend, note: backendNote } = await resolveBackend(requestedJob.backend);
  const job: JobSpec = { ...requestedJob, backend };
  const d = job.decomposition;
  const numRanks = d.numProcVector * d.numProcField * d.numProcRepl;
  const staleOutputs = job.outputStub !== null ? findExistingOutputs(job.outputStub) : [];
  const start = performance.now();
  let outcomes: RankOutcome[];
  if (numRanks === 1) {
    outcomes = [await runRank(new LocalCommunicator(), job, (done, total) => hooks.onProgress?.(done, total))];
  } else {
    outcomes = (await launchInProcessRanks({
      numRanks,
      entryModuleUrl: new URL('./rankEntry.js', import.meta.url).href,
      entryExportName: 'rankEntry',
      payload: job,
      onProgress: hooks.onProgress,
    })) as RankOutcome[];
  }
  const seconds = (performance.now() - start) / 1000;
  const outputFiles = outcomes.map((o) => o.outputFile).filter((f): f is string => f !== null);
  // --force: files of an earlier run that this run did not rewrite (e.g. it had more ranks) go only now.
  for (const stale of staleOutputs) if (!outputFiles.includes(stale)) rmSync(stale, { force: true });
  const first = outcomes[0];
  const total = new ChecksumAccumulator();
  total.merge(Float64Array.from(first.checksumLimbs), first.entries, first.zeros);
  return {
    checksum: formatChecksum(total.sum()),
    entries: first.entries,
    zeros: first.zeros,
    comparisons: first.comparisons,
    seconds,
    comparisonsPerSecond: seconds > 0 ? first.comparisons / seconds : 0,
    backend: job.backend,
    backendNote,
    numRanks,
    verifiedValues: first.verifiedValues,
    outputFiles,
  };
}
