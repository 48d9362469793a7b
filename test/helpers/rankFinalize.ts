// A rank's finalize context for tests that drive the pipelines directly: the job's built-in analysis and a sink.
import { builtInAnalysis } from '../../src/analyses/index.js';
import type { EntrySink } from '../../src/engine/finalize/entrySink.js';
import type { RankFinalize } from '../../src/engine/finalize/rankFinalize.js';
import type { JobSpec } from '../../src/engine/index.js';

export function rankFinalizeFor(job: JobSpec, sink: EntrySink): RankFinalize {
  const analysis = builtInAnalysis(job.metricSpec.metric).forRun({ spec: job.metricSpec, numVector: job.numVector, numField: job.numField });
  return { analysis, sink, verifier: null, numVector: job.numVector, numField: job.numField };
}
