// The run-info file `<stub>.run.json` written beside a run's outputs: the job, its result, and where the
// SNP names are, so that dump, top, merge and report need nothing but the output files.
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { UserError } from '../core/errors.js';
import type { NumWay } from '../core/types.js';
import { systemErrorText, writeJsonFileAtomically } from '../io/index.js';

export const RUN_INFO_FORMAT = 'snptally-run';

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

/** A run-info file for `stub`, with absolute `outputFiles`/`sidecar` made relative to it. */
export function writeRunInfo(stub: string, info: Omit<RunInfo, 'format' | 'version'>): string {
  const path = runInfoPathOf(stub);
  const directory = dirname(path);
  const relativeTo = (file: string): string => relative(directory, resolve(file));
  writeJsonFileAtomically(path, {
    format: RUN_INFO_FORMAT,
    version: 1,
    ...info,
    outputFiles: info.outputFiles.map(relativeTo),
    sidecar: info.sidecar === null ? null : relativeTo(info.sidecar),
  });
  return path;
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
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    const reason = error instanceof SyntaxError ? `not valid JSON (${error.message})` : systemErrorText(error);
    throw new UserError(`cannot read run-info file ${path}: ${reason}`);
  }
  const info = parsed as RunInfo;
  const fail = (what: string): never => { throw new UserError(`run-info file ${path}: ${what}`); };
  if (typeof parsed !== 'object' || parsed === null || info.format !== RUN_INFO_FORMAT) fail(`format is not "${RUN_INFO_FORMAT}"`);
  if (info.numWay !== 2 && info.numWay !== 3) fail('numWay is not 2 or 3');
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
 * (a run's files) or `<name>.run.json` for `<name>.bin` (a merged file).
 */
export function findRunInfoFor(metricsFile: string): LoadedRunInfo | null {
  const name = basename(metricsFile);
  const candidates = [name.replace(/_\d+\.bin$/, ''), name.replace(/\.bin$/, '')];
  for (const stubName of candidates) {
    if (stubName === name) continue;
    const path = join(dirname(metricsFile), runInfoPathOf(stubName));
    if (existsSync(path)) return readRunInfo(path);
  }
  return null;
}
