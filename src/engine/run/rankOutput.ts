// A rank's output file (SPEC §7), or none when the job writes no output.
import { MetricsFileWriter, metricsFilePath } from '../../io/index.js';
import type { RecordWriter } from '../finalize/entrySink.js';
import type { JobSpec } from './jobSpec.js';

export interface RankOutput {
  readonly path: string;
  /** Where the file is written until it is renamed to `path`. */
  readonly temporaryPath: string;
  readonly writer: RecordWriter;
  finish(): void;
  discard(): void;
}

/**
 * Opens `<stub>_<rank>.bin` under a temporary name. Every rank gets a file, so a run's output is one
 * file per rank as CoMet writes it; ranks that do not finalize (field rank ≠ 0) leave theirs empty.
 */
export function openRankOutput(job: JobSpec, rank: number, numRanks: number, writesRecords: boolean): RankOutput | null {
  if (job.outputStub === null) return null;
  const path = metricsFilePath(job.outputStub, rank, numRanks);
  const file = MetricsFileWriter.create(path, job.metricSpec.numWay);
  return {
    path,
    temporaryPath: file.temporaryPath,
    writer: {
      appendRecordWords(words, numRecords) {
        if (writesRecords) file.appendRecordWords(words, numRecords);
      },
    },
    finish: () => file.finish(),
    discard: () => file.discard(),
  };
}
