// Everything a finalize step needs to turn tallies into values, fixed for a run.
import type { FormulaConstants } from '../../core/formulas.js';
import { countedBitsPerField, type MetricSpec } from '../../core/types.js';
import type { AnalyticVerifier } from './analyticVerifier.js';
import type { EntrySink } from './entrySink.js';
import type { PlaneLayout } from './tallyLayout.js';

export interface MetricContext {
  readonly spec: MetricSpec;
  readonly constants: FormulaConstants;
  readonly layout: PlaneLayout;
  readonly numVector: number;
  readonly numField: number;
  readonly sink: EntrySink;
  /** Present only with --verify on an analytic problem. */
  readonly verifier: AnalyticVerifier | null;
}

export function formulaConstants(spec: MetricSpec): FormulaConstants {
  return { countedBits: countedBitsPerField(spec.metric), multiplier: spec.multiplier, param: spec.param };
}
