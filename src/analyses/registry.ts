// Where analyses are found: the built-in ones by name, any other by the URL of a module that exports it as
// `analysis` (so that worker threads and MPI ranks, which get the job as plain data, load the same one).
import { UserError } from '../core/errors.js';
import { DEFAULT_PARAM } from '../core/types.js';
import type { Analysis, PlaneLayout } from './analysis.js';
import { analysis as ccc } from './ccc/index.js';
import { analysis as duo } from './duo/index.js';
import { analysis as r2 } from './r2/index.js';
import { analysis as czekanowski } from './czekanowski/index.js';
import { analysis as king } from './king/index.js';
import { analysis as epistasis } from './epistasis/index.js';
import { alleleDistanceAnalysis, squaredDistanceAnalysis } from './distance/index.js';

const BUILT_IN: readonly Analysis[] = [ccc, duo, r2, czekanowski, king, epistasis, alleleDistanceAnalysis, squaredDistanceAnalysis];

/** Names `--metric` accepts, in the order help texts list them. */
export const ANALYSIS_NAMES: readonly string[] = BUILT_IN.map((a) => a.name);

/** Which analysis a job runs: a built-in one's name, or a name and the module URL that exports it. */
export interface AnalysisRef {
  readonly name: string;
  /** URL of a module exporting `analysis` (an analysis that is not built in); null for a built-in one. */
  readonly moduleUrl: string | null;
}

/** The built-in analysis `name`; a one-line UserError naming the choices when there is none. */
export function builtInAnalysis(name: string): Analysis {
  const found = BUILT_IN.find((a) => a.name === name);
  if (found === undefined) throw new UserError(`unknown metric '${name}' (choose ${ANALYSIS_NAMES.join(', ')})`);
  return found;
}

const loaded = new Map<string, Promise<Analysis>>();

/** The analysis `ref` names, loading its module once per thread. */
export function loadAnalysis(ref: AnalysisRef): Promise<Analysis> {
  if (ref.moduleUrl === null) return Promise.resolve(builtInAnalysis(ref.name));
  let analysis = loaded.get(ref.moduleUrl);
  if (analysis === undefined) {
    analysis = importAnalysis(ref.moduleUrl, ref.name);
    loaded.set(ref.moduleUrl, analysis);
  }
  return analysis;
}

async function importAnalysis(moduleUrl: string, name: string): Promise<Analysis> {
  const module = (await import(moduleUrl)) as { analysis?: Analysis };
  const analysis = module.analysis;
  if (analysis === undefined || typeof analysis.forRun !== 'function' || typeof analysis.check !== 'function') {
    throw new UserError(`${moduleUrl} exports no analysis (an object named 'analysis' with check and forRun)`);
  }
  if (analysis.name !== name) throw new UserError(`${moduleUrl} exports analysis '${analysis.name}', not '${name}'`);
  return analysis;
}

/** The planes of a built-in metric in a mode, for tools that build blocks outside a run. */
export function builtInPlaneLayout(metric: string, sparse: boolean): PlaneLayout {
  const spec = { metric, numWay: 2 as const, sparse, param: DEFAULT_PARAM, multiplier: 1 };
  return builtInAnalysis(metric).forRun({ spec, numVector: 2, numField: 1 }).planes;
}
