// A rank's finalize context for tests that drive the pipelines directly: the job's built-in analysis and a sink.
import { loadBuiltInAnalysis } from '../../src/analyses/index.js';
import type { EntrySink } from '../../src/engine/finalize/entrySink.js';
import type { RankFinalize } from '../../src/engine/finalize/rankFinalize.js';
import type { JobSpec } from '../../src/engine/index.js';
import { createHostFinalizer, type HostFinalizer } from '../../src/engine/finalize/hostFinalizer.js';
import { analysisRef } from '../../src/engine/run/jobSpec.js';

export async function rankFinalizeFor(job: JobSpec, sink: EntrySink): Promise<RankFinalize> {
  const analysis = (await loadBuiltInAnalysis(job.metricSpec.metric)).forRun({ spec: job.metricSpec, numVector: job.numVector, numField: job.numField });
  return { analysis, sink, verifier: null, numVector: job.numVector, numField: job.numField };
}

/** The host finalizer of a rank of `job` on `numThreads` threads (1: on the calling thread). */
export function hostFinalizerFor(job: JobSpec, run: RankFinalize, numThreads = 1): HostFinalizer {
  const finalizers = { analysis: analysisRef(job), settings: { spec: job.metricSpec, numVector: job.numVector, numField: job.numField } };
  return createHostFinalizer(run, finalizers, { numThreads });
}
