// Combines the reports of all ranks of a run into the RunResult the CLI prints.
import { ChecksumAccumulator, formatChecksum } from '../../core/checksum.js';
import type { JobSpec, MemoryReport, RunHistogram, RunResult } from './jobSpec.js';
import { totalsFromLimbs } from '../finalize/histogramSink.js';
import type { RankOutcome } from './rankRun.js';

/** What a run reports besides its ranks' outcomes. */
export interface RunFacts {
  /** Wall-clock seconds of the whole run. */
  readonly seconds: number;
  /** Why `--backend auto` chose its kernel set (null for any other backend). */
  readonly backendNote: string | null;
  /** The job check's memory estimate and limits. */
  readonly memory: MemoryReport;
}

/** `outcomes` in rank order; checksum fields are already reduced over ranks, so rank 0's suffice. */
export function combineRankOutcomes(job: JobSpec, outcomes: readonly RankOutcome[], facts: RunFacts): RunResult {
  const { seconds, backendNote, memory } = facts;
  const first = outcomes[0];
  const total = new ChecksumAccumulator();
  total.merge(Float64Array.from(first.checksumLimbs), first.entries, first.zeros);
  return {
    checksum: formatChecksum(total.sum()),
    entries: first.entries,
    zeros: first.zeros,
    comparisons: first.comparisons,
    windowPairs: job.window == null ? null : first.windowPairs,
    seconds,
    comparisonsPerSecond: seconds > 0 ? first.comparisons / seconds : 0,
    inputSeconds: first.inputSeconds,
    computeSeconds: first.computeSeconds,
    computeComparisonsPerSecond: first.computeSeconds > 0 ? first.comparisons / first.computeSeconds : 0,
    computeCpuSeconds: first.computeCpuSeconds,
    backend: job.backend,
    backendNote,
    numRanks: outcomes.length,
    verifiedValues: first.verifiedValues,
    deviceFinalizedPairs: first.deviceFinalizedPairs,
    deviceFinalizedTriples: first.deviceFinalizedTriples,
    deviceFinalizedQuads: first.deviceFinalizedQuads,
    deviceRecordsReadBack: first.deviceRecordsReadBack,
    outputFiles: outcomes.map((o) => o.outputFile).filter((f): f is string => f !== null),
    histogram: runHistogram(job, first),
    rankDevices: outcomes.map((o) => ({ rank: o.rank, ...o.device, kernelSet: o.kernelSet })),
    ...memory,
  };
}

/** The histograms rank 0 reported (already reduced over ranks), or null without --histograms. */
function runHistogram(job: JobSpec, first: RankOutcome): RunHistogram | null {
  const reported = first.histogram;
  if (reported === null || job.histogramPath === undefined || job.histogramPath === null) return null;
  const { counts, numUndefined } = totalsFromLimbs(Float64Array.from(reported.limbs));
  return { path: job.histogramPath, layout: reported.layout, counts, numUndefined };
}
