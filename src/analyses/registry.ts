// Where analyses are found: the built-in ones by name, any other by the URL of a module that exports it as
// `analysis` (so that worker threads and MPI ranks, which get the job as plain data, load the same one). Each built-in
// analysis's module is loaded on demand: a thread loads only the analysis its run uses.
import { UserError } from '../core/errors.js';
import { DEFAULT_PARAM } from '../core/types.js';
import type { Analysis, PlaneLayout, ResultKind } from './analysis.js';

/** A built-in analysis: its name, the results it declares (checked against the module's by a test), its loader. */
interface BuiltInEntry {
  readonly name: string;
  readonly results: readonly ResultKind[];
  readonly load: () => Promise<Analysis>;
}

const BUILT_IN: readonly BuiltInEntry[] = [
  { name: 'ccc', results: ['threshold-records', 'histogram', 'top-n'], load: async () => (await import('./ccc/index.js')).analysis },
  { name: 'duo', results: ['threshold-records', 'histogram', 'top-n'], load: async () => (await import('./duo/index.js')).analysis },
  { name: 'r2', results: ['threshold-records', 'dense-matrix', 'histogram', 'top-n'], load: async () => (await import('./r2/index.js')).analysis },
  {
    name: 'czekanowski', results: ['threshold-records', 'histogram', 'top-n'],
    load: async () => (await import('./czekanowski/index.js')).analysis,
  },
  { name: 'king', results: ['threshold-records', 'dense-matrix'], load: async () => (await import('./king/index.js')).analysis },
  { name: 'epistasis', results: ['threshold-records', 'top-n'], load: async () => (await import('./epistasis/index.js')).analysis },
  {
    name: 'distance', results: ['threshold-records', 'dense-matrix'],
    load: async () => (await import('./distance/index.js')).alleleDistanceAnalysis,
  },
  {
    name: 'sqdist', results: ['threshold-records', 'dense-matrix'],
    load: async () => (await import('./distance/index.js')).squaredDistanceAnalysis,
  },
];

/** Names `--metric` accepts, in the order help texts list them. */
export const ANALYSIS_NAMES: readonly string[] = BUILT_IN.map((a) => a.name);

/** The built-in analyses that declare `result`, for the messages that refuse a job asking it of another. */
export function analysesWithResult(result: ResultKind): string[] {
  return BUILT_IN.filter((a) => a.results.includes(result)).map((a) => a.name);
}

/** Which analysis a job runs: a built-in one's name, or a name and the module URL that exports it. */
export interface AnalysisRef {
  readonly name: string;
  /** URL of a module exporting `analysis` (an analysis that is not built in); null for a built-in one. */
  readonly moduleUrl: string | null;
}

const loaded = new Map<string, Promise<Analysis>>();

/** The built-in analysis `name`, loaded once per thread; a one-line UserError naming the choices when there is none. */
export function loadBuiltInAnalysis(name: string): Promise<Analysis> {
  const entry = BUILT_IN.find((a) => a.name === name);
  if (entry === undefined) return Promise.reject(new UserError(`unknown metric '${name}' (choose ${ANALYSIS_NAMES.join(', ')})`));
  return loadOnce(`built-in:${name}`, entry.load);
}

/** The analysis `ref` names, loading its module once per thread. */
export function loadAnalysis(ref: AnalysisRef): Promise<Analysis> {
  const moduleUrl = ref.moduleUrl;
  if (moduleUrl === null) return loadBuiltInAnalysis(ref.name);
  return loadOnce(moduleUrl, () => importAnalysis(moduleUrl, ref.name));
}

function loadOnce(key: string, load: () => Promise<Analysis>): Promise<Analysis> {
  let analysis = loaded.get(key);
  if (analysis === undefined) {
    analysis = load();
    loaded.set(key, analysis);
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

/** Whether a built-in metric's 2-way runs can finalize on a GPU (their analysis has a device finalizer for pairs). */
export async function builtInFinalizesPairsOnDevice(metric: string, sparse: boolean): Promise<boolean> {
  if (!ANALYSIS_NAMES.includes(metric)) return false;
  const spec = { metric, numWay: 2 as const, sparse, param: DEFAULT_PARAM, multiplier: 1 };
  return (await loadBuiltInAnalysis(metric)).forRun({ spec, numVector: 2, numField: 1 }).pairs?.deviceFinalizer !== undefined;
}

/** The planes of a built-in metric in a mode, for tools that build blocks outside a run. */
export async function builtInPlaneLayout(metric: string, sparse: boolean): Promise<PlaneLayout> {
  const spec = { metric, numWay: 2 as const, sparse, param: DEFAULT_PARAM, multiplier: 1 };
  return (await loadBuiltInAnalysis(metric)).forRun({ spec, numVector: 2, numField: 1 }).planes;
}
