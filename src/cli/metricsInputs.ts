// The metrics files a command reads (dump, top, merge, report): each given once, from one run (their run-info files
// agree), and the way they are read in agreement with what the run says.
import { resolve } from 'node:path';
import { UserError } from '../core/errors.js';
import type { NumWay } from '../core/types.js';
import { fileIdentity } from '../io/index.js';
import { denseMatrixOf, findRunInfoFor, type LoadedRunInfo } from './runInfoFile.js';

/** What a command knows of its metrics files. */
export interface MetricsInputs {
  readonly numWay: NumWay;
  /** The run-info file of every file (one run), or null when none has one. */
  readonly info: LoadedRunInfo | null;
  /** What was assumed without a run-info file or `--way` (said on stderr once the command has done its work), or null. */
  readonly assumption: string | null;
}

/** Says on stderr what `inputs` assumed, if anything (after the work, so that a failure stays one line). */
export function sayAssumption(inputs: MetricsInputs): void {
  if (inputs.assumption !== null) process.stderr.write(`snptally: ${inputs.assumption}\n`);
}

/**
 * Checks `files` and finds their way: `--way` (`wayText`) when given, which must agree with the run-info file; else
 * the run-info file's; else 2, an assumption to say (the files do not record their way).
 * @throws UserError for a file given twice, files of different runs, or a `--way` the run contradicts.
 */
export function resolveMetricsInputs(files: readonly string[], wayText: string | undefined): MetricsInputs {
  refuseRepeatedFiles(files);
  const info = commonRunInfo(files);
  const matrix = info === null ? null : denseMatrixOf(info);
  if (matrix !== null) {
    throw new UserError(`${files[0]} is a dense ${matrix.shape} matrix (${matrix.format}, PLINK's layout; ${info?.path}), not records: read it as PLINK's --r2 matrix`);
  }
  if (wayText !== undefined) {
    const numWay: NumWay = wayText === '4' ? 4 : wayText === '3' ? 3 : 2;
    if (info !== null && info.numWay !== numWay) {
      throw new UserError(`--way ${numWay} contradicts ${info.path}, which says the records are ${info.numWay}-way`);
    }
    return { numWay, info, assumption: null };
  }
  if (info !== null) return { numWay: info.numWay, info, assumption: null };
  const assumption = files.length === 0 ? null : `no run-info file beside ${files[0]}: read as 2-way records (give --way to say)`;
  return { numWay: 2, info: null, assumption };
}

/** Refuses a file named twice, however the paths are spelled (same device and inode). */
export function refuseRepeatedFiles(files: readonly string[]): void {
  const seen = new Map<string, string>();
  for (const file of files) {
    const identity = fileIdentity(file);
    const key = identity === null ? `path ${resolve(file)}` : `${identity.device}:${identity.inode}`;
    const earlier = seen.get(key);
    if (earlier !== undefined) {
      throw new UserError(`${file} is given twice${earlier === file ? '' : ` (also as ${earlier})`}: its records would be counted twice`);
    }
    seen.set(key, file);
  }
}

/** The run-info file all of `files` share, or null when none has one; files of different runs are refused. */
function commonRunInfo(files: readonly string[]): LoadedRunInfo | null {
  const infos = files.map((file) => findRunInfoFor(file));
  const first = infos[0] ?? null;
  for (let f = 1; f < files.length; f++) {
    const other = infos[f];
    if ((first === null) !== (other === null)) {
      const [withInfo, without] = first === null ? [f, 0] : [0, f];
      throw new UserError(`${files[withInfo]} has a run-info file but ${files[without]} has none: they are not files of one run`);
    }
    if (first === null || other === null || other.path === first.path) continue;
    const differs = differingField(first, other);
    if (differs !== null) {
      throw new UserError(`${files[0]} and ${files[f]} are from different runs (${differs}): their records do not mix`);
    }
  }
  return first;
}

/** What two run-info files disagree on (way, vectors, fields, metric, sidecar, LD window), or null. */
function differingField(a: LoadedRunInfo, b: LoadedRunInfo): string | null {
  if (a.numWay !== b.numWay) return `${a.numWay}-way and ${b.numWay}-way`;
  if (a.numVector !== b.numVector) return `${a.numVector} and ${b.numVector} vectors`;
  if (a.numField !== b.numField) return `${a.numField} and ${b.numField} fields`;
  if (a.metric !== b.metric) return `metrics ${a.metric} and ${b.metric}`;
  if (!sameSidecar(a.sidecarPath, b.sidecarPath)) return `sidecars ${a.sidecarPath ?? 'none'} and ${b.sidecarPath ?? 'none'}`;
  // A windowed run's records are the pairs in its window: runs of other windows (or none) hold other pairs.
  const [windowA, windowB] = [windowTextOf(a), windowTextOf(b)];
  if (windowA !== windowB) return `LD windows ${windowA} and ${windowB}`;
  return null;
}

/** A run's LD window as its run.json records it (`run.window`), as text; `none` for every pair. */
function windowTextOf(info: LoadedRunInfo): string {
  const window = info.run.window;
  return window === undefined || window === null ? 'none' : JSON.stringify(window);
}

function sameSidecar(a: string | null, b: string | null): boolean {
  if (a === null || b === null) return a === b;
  const [idA, idB] = [fileIdentity(a), fileIdentity(b)];
  if (idA !== null && idB !== null) return idA.device === idB.device && idA.inode === idB.inode;
  return resolve(a) === resolve(b);
}
