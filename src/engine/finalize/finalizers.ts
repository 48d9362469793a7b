// The one place where a run's host finalize functions are looked up, from plain data: finalize worker threads get
// them through it from a spec posted to them. They are the analysis's own (src/analyses), loaded as every rank
// loads it (its AnalysisRef) and bound to the run's settings.
import { loadAnalysis, type AnalysisRef, type AnalysisRun, type AnalysisSettings } from '../../analyses/index.js';

/** What selects a run's finalize functions; structured-cloneable, so that it travels to worker threads. */
export interface FinalizerSpec {
  readonly analysis: AnalysisRef;
  readonly settings: AnalysisSettings;
}

/** The analysis of `spec`, bound to its run. */
export async function loadFinalizers(spec: FinalizerSpec): Promise<AnalysisRun> {
  return (await loadAnalysis(spec.analysis)).forRun(spec.settings);
}
