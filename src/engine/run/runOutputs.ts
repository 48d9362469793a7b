// A run's output files: checked before the run (existing files, the run's own inputs), renamed into place together
// after it (rank files, then the files the caller writes from the result, such as the CLI's run.json), and the
// leftovers of failed or killed runs removed.
import { lstatSync, rmSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { UserError } from '../../core/errors.js';
import {
  commitStagedFiles, discardStagedFiles, findExistingOutputs, metricsFilePath, refuseOutputOverInput, removeLeftoverTemporaries,
  removeLeftoverTemporariesOfFiles, removeTemporaryFilesOf, type StagedFile,
} from '../../io/index.js';
import type { JobSpec, RunResult } from './jobSpec.js';
import type { RankOutcome } from './rankRun.js';

/** Files the caller writes beside the rank files from the run's result (the CLI's `<stub>.run.json`). */
export interface CompanionOutputs {
  /** Their final paths: refused like rank files when they exist (without force) or are one of the run's inputs. */
  readonly paths: readonly string[];
  /** Files the run reads besides `job.source` (a sidecar, the VCF a temporary input was made from). */
  readonly inputPaths: readonly string[];
  /** Writes them under temporary names once the result is known (on one rank only); renamed after the rank files. */
  stage(result: RunResult): StagedFile[];
}

/**
 * Refuses outputs that exist already (without `force`) and outputs that are one of the run's inputs (same device
 * and inode, however the paths are spelled: `--force` must not let a run replace what it reads). `singleOutputs` (the
 * histogram file, a dense matrix, a top-N file) are checked against the inputs here; their own checks refuse them
 * when they exist.
 */
export function checkRunOutputs(job: JobSpec, companions: CompanionOutputs | undefined, singleOutputs: readonly string[] = []): void {
  const inputs = [...(job.source.kind === 'file' ? [job.source.path] : []), ...(companions?.inputPaths ?? [])];
  refuseOutputOverInput('run', singleOutputs, inputs);
  if (job.outputStub === null) return;
  const d = job.decomposition;
  const numRanks = d.numProcVector * d.numProcField * d.numProcRepl;
  const rankFiles = Array.from({ length: numRanks }, (_, rank) => metricsFilePath(job.outputStub as string, rank, numRanks));
  refuseOutputOverInput('run', [...rankFiles, ...(companions?.paths ?? [])], inputs);
  if (job.force) return;
  const existing = [...findExistingOutputs(job.outputStub), ...(companions?.paths ?? []).filter((path) => fileExists(path))];
  if (existing.length > 0) {
    throw new UserError(`output ${existing[0]}${existing.length > 1 ? ` (and ${existing.length - 1} more)` : ''} already exists; use --force to overwrite`);
  }
}

/** `--force`: the temporary files that killed runs of this stub left (rank files, companions); before any rank starts. */
export function removeLeftoversOfKilledRuns(job: JobSpec, companions: CompanionOutputs | undefined): void {
  if (job.outputStub === null || !job.force) return;
  // Rank files `<stub>_<rank>.bin`, and a --top run's `<stub>_top.bin`.
  const rankFileName = new RegExp(`^${escapeRegExp(basename(job.outputStub))}_(\\d+|top)\\.bin$`);
  removeLeftoverTemporaries(dirname(job.outputStub), (name) => rankFileName.test(name));
  removeLeftoverTemporariesOfFiles(companions?.paths ?? []);
}

/** After an in-process rank failed: the temporary rank files this process made (the ranks that were stopped left theirs). */
export function removeOwnRankTemporaries(job: JobSpec): void {
  if (job.outputStub !== null) removeTemporaryFilesOf(`${job.outputStub}_`, { onlyThisProcess: true });
}

/** The finished rank files of `outcomes` (and rank 0's histogram file), still under their temporary names. */
export function stagedRankFiles(outcomes: readonly RankOutcome[]): StagedFile[] {
  return outcomes.flatMap((o) => [
    ...(o.outputFile === null || o.outputTemporaryFile === null ? [] : [{ finalPath: o.outputFile, temporaryPath: o.outputTemporaryFile }]),
    ...(o.histogramFile === null ? [] : [o.histogramFile]),
  ]);
}

/**
 * Stages the companions of `result` and renames the rank files, then the companions, into place; when staging or a
 * rename fails, none of them is left under its final name.
 */
export function commitRunOutputs(rankFiles: readonly StagedFile[], result: RunResult, companions: CompanionOutputs | undefined): void {
  let staged: StagedFile[];
  try {
    staged = companions?.stage(result) ?? [];
  } catch (error) {
    discardStagedFiles(rankFiles);
    throw error;
  }
  commitStagedFiles([...rankFiles, ...staged]);
}

/** --force: files of an earlier run that this run did not rewrite (e.g. it had more ranks) go only now. */
export function removeStaleOutputs(staleOutputs: readonly string[], outputFiles: readonly string[]): void {
  for (const stale of staleOutputs) if (!outputFiles.includes(stale)) rmSync(stale, { force: true });
}

/** Whether anything (a dangling link too) is at `path`; a path that cannot be looked at (ENOTDIR…) has nothing. */
function fileExists(path: string): boolean {
  try {
    return lstatSync(path, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return false;
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
