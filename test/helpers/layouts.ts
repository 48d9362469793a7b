// The built-in analyses' planes and tallies, as tests name them: `planeLayout(metric, sparse)` of any built-in metric.
import type { PlaneLayout } from '../../src/analyses/analysis.js';
import { cometPlaneLayout } from '../../src/analyses/comet/cometTallies.js';
import { r2PlaneLayout } from '../../src/analyses/r2/r2Planes.js';

export type { PlaneLayout } from '../../src/analyses/analysis.js';
export { coefficient3, FACTORS3, tally3Plan, termGroups2 } from '../../src/analyses/comet/cometTallies.js';
export { R2_PLANE } from '../../src/analyses/r2/r2Planes.js';

export function planeLayout(metric: string, sparse: boolean): PlaneLayout {
  if (metric === 'r2') return r2PlaneLayout(sparse);
  if (metric === 'ccc' || metric === 'duo') return cometPlaneLayout(metric, sparse);
  throw new Error(`no built-in plane layout for '${metric}'`);
}
