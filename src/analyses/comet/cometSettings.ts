// What CoMet's finalize code needs of a run, fixed for the run: SPEC §3's constants, the mode and the sizes.
import type { FormulaConstants } from '../../core/formulas.js';
import type { AnalysisSettings, PlaneLayout } from '../index.js';
import { cometPlaneLayout, type CometMetric } from './cometTallies.js';

export interface CometSettings {
  readonly metric: CometMetric;
  readonly constants: FormulaConstants;
  readonly layout: PlaneLayout;
  readonly sparse: boolean;
  readonly numVector: number;
  readonly numField: number;
}

export function cometSettings(metric: CometMetric, { spec, numVector, numField }: AnalysisSettings): CometSettings {
  return {
    metric,
    constants: { countedBits: metric === 'duo' ? 1 : 2, multiplier: spec.multiplier, param: spec.param },
    layout: cometPlaneLayout(metric, spec.sparse),
    sparse: spec.sparse,
    numVector,
    numField,
  };
}
