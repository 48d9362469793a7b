// The run-info file `<stub>.run.json` written beside a run's outputs: the job, its result, and where the
// SNP names are, so that dump, top, merge and report need nothing but the output files.
import { existsSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { UserError } from '../core/errors.js';
import { EPISTASIS_SCORES, strongerScores, type EpistasisScore, type NumWay } from '../core/types.js';
import { readBoundedTextFile, stageJsonFile, type StagedFile } from '../io/index.js';

export const RUN_INFO_FORMAT = 'snptally-run';

/** Largest run-info file read: it holds a run's JSON result and its list of files (kilobytes; a merge of thousands). */
export const MAX_RUN_INFO_BYTES = 4 << 20;

/** What a run leaves beside its outputs. Paths are relative to the run-info file's directory. */
export interface RunInfo {
  readonly format: typeof RUN_INFO_FORMAT;
  readonly version: 1;
  readonly metric: string;
  readonly numWay: NumWay;
  readonly numVector: number;
  readonly numField: number;
  /** Metrics files of the run, relative to the run-info file's directory. */
  readonly outputFiles: readonly string[];
  /** The sidecar naming the SNPs, relative to the run-info file's directory; null: no names. */
  readonly sidecar: string | null;
  /** What `--input` named (null for synthetic problems). */
  readonly input: { readonly kind: string; readonly path: string } | null;
  /** The `run --json` object (result and job). */
  readonly run: Readonly<Record<string, unknown>>;
}

/** `<stub>.run.json`. */
export function runInfoPathOf(stub: string): string {
  return `${stub}.run.json`;
}

/** The run-info object of `stub`, with absolute `outputFiles`/`sidecar` made relative to its file. */
export function runInfoJson(stub: string, info: Omit<RunInfo, 'format' | 'version'>): RunInfo {
  const directory = dirname(runInfoPathOf(stub));
  const relativeTo = (file: string): string => relative(directory, resolve(file));
  return {
    format: RUN_INFO_FORMAT,
    version: 1,
    ...info,
    outputFiles: info.outputFiles.map(relativeTo),
    sidecar: info.sidecar === null ? null : relativeTo(info.sidecar),
  };
}

/** The run-info file of `stub` under a temporary name, to be renamed with the files it describes. */
export function stageRunInfo(stub: string, info: Omit<RunInfo, 'format' | 'version'>): StagedFile {
  return stageJsonFile(runInfoPathOf(stub), runInfoJson(stub, info));
}

/** A loaded run-info file, with its paths resolved. */
export interface LoadedRunInfo extends RunInfo {
  readonly path: string;
  readonly outputPaths: readonly string[];
  readonly sidecarPath: string | null;
}

/** Reads a run-info file. @throws UserError for a missing or malformed file. */
export function readRunInfo(path: string): LoadedRunInfo {
  let parsed: unknown;
  const text = readBoundedTextFile(path, 'run-info file', MAX_RUN_INFO_BYTES);
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new UserError(`cannot read run-info file ${path}: not valid JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  const info = parsed as RunInfo;
  const fail = (what: string): never => { throw new UserError(`run-info file ${path}: ${what}`); };
  if (typeof parsed !== 'object' || parsed === null || info.format !== RUN_INFO_FORMAT) fail(`format is not "${RUN_INFO_FORMAT}"`);
  if (info.numWay !== 2 && info.numWay !== 3 && info.numWay !== 4) fail('numWay is not 2, 3 or 4');
  if (typeof info.metric !== 'string') fail('metric is not a name');
  for (const name of ['numVector', 'numField'] as const) {
    if (!Number.isSafeInteger(info[name]) || info[name] < 1) fail(`${name} is not a positive integer`);
  }
  if (typeof info.run !== 'object' || info.run === null) fail('run is not an object');
  const input = info.input as RunInfo['input'] | undefined;
  if (input !== null && (typeof input !== 'object' || typeof input.kind !== 'string' || typeof input.path !== 'string')) {
    fail('input is not null or {kind, path}');
  }
  if (!Array.isArray(info.outputFiles) || info.outputFiles.some((file) => typeof file !== 'string')) fail('outputFiles is not a list of files');
  if (info.sidecar !== null && typeof info.sidecar !== 'string') fail('sidecar is not a path');
  const directory = dirname(path);
  const resolveHere = (file: string): string => (isAbsolute(file) ? file : join(directory, file));
  return {
    ...info,
    path,
    outputPaths: info.outputFiles.map(resolveHere),
    sidecarPath: info.sidecar === null ? null : resolveHere(info.sidecar),
  };
}

/**
 * The run-info file that belongs to a metrics file, if any: `<stub>.run.json` for `<stub>_<rank>.bin`
 * (a run's files, and `<stub>_top.bin` of a --top run), `<name>.run.json` for `<name>.bin` (a merged file), `<stub>.run.json` for a run's dense matrix.
 */
export function findRunInfoFor(metricsFile: string): LoadedRunInfo | null {
  const name = basename(metricsFile);
  // A run's rank files, a merged file, and a run's dense matrix (`<stub>.<ext>` or `<stub>.<ext>.bin`).
  const candidates = [name.replace(/_(\d+|top)\.bin$/, ''), name.replace(/\.bin$/, ''), name.replace(/\.[^.]+\.bin$/, ''), name.replace(/\.[^.]+$/, '')];
  for (const stubName of candidates) {
    if (stubName === name) continue;
    const path = join(dirname(metricsFile), runInfoPathOf(stubName));
    if (existsSync(path)) return readRunInfo(path);
  }
  return null;
}

/** The dense matrix (`{shape, format}`) a run-info file says its run wrote instead of records, or null. */
export function denseMatrixOf(info: RunInfo): { readonly shape: string; readonly format: string } | null {
  const matrix = info.run.matrix;
  if (typeof matrix !== 'object' || matrix === null) return null;
  const { shape, format } = matrix as Record<string, unknown>;
  return typeof shape === 'string' && typeof format === 'string' ? { shape, format } : null;
}

/**
 * Which record values are the stronger in a run's files: larger for every metric but epistasis runs scored by K2
 * (their records hold the K2 score, smaller is stronger); larger when the run is unknown.
 */
export function strongerRecordValues(info: RunInfo | null): 'larger' | 'smaller' {
  const score = info?.metric === 'epistasis' ? info.run.score : undefined;
  return EPISTASIS_SCORES.includes(score as EpistasisScore) ? strongerScores(score as EpistasisScore) : 'larger';
}
