// What an interrupted command leaves behind. On SIGINT, SIGTERM or SIGHUP the process removes the unfinished files
// of its outputs (their temporary names, src/io/temporaryFiles.ts) and the scratch directories it owns (a
// PLINK/VCF input converted for a run), says so in one line, and ends by the same signal (so its parent sees a
// process killed by it, status 128 + its number).
//
// Without it Node ends the process at once, and a long run leaves its partial files (gigabytes) behind. The files
// are found by the outputs' names, whatever process wrote them: under mpirun the launcher kills the other ranks
// (SIGKILL) as soon as one rank has ended, so the first rank to get there cleans up for all (on a shared file
// system). Only commands whose main thread stays responsive install this (run, prepare): a handler runs when the
// event loop turns, so a command that works synchronously would no longer stop on Ctrl-C until it had finished.
import { rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { detectMpiLaunch } from '../parallel/index.js';
import { removeTemporaryFilesOf } from '../io/index.js';

const INTERRUPTING_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
type InterruptingSignal = (typeof INTERRUPTING_SIGNALS)[number];

const outputPrefixes = new Set<string>();
const scratchDirectories = new Set<string>();
let installed = false;

/**
 * From now on, an interrupting signal removes the temporary files whose paths start with one of `outputPrefixes`
 * (e.g. `<stub>_` for a run's rank files) and the whole of `scratchDirectory`.
 */
export function cleanUpOnInterrupt(what: { readonly outputPrefixes?: readonly string[]; readonly scratchDirectory?: string }): void {
  for (const prefix of what.outputPrefixes ?? []) outputPrefixes.add(resolve(prefix));
  if (what.scratchDirectory !== undefined) scratchDirectories.add(resolve(what.scratchDirectory));
  if (installed) return;
  installed = true;
  for (const signal of INTERRUPTING_SIGNALS) process.once(signal, () => endInterrupted(signal));
}

/** A scratch directory that was removed already is no longer this module's to remove. */
export function forgetScratchDirectory(directory: string): void {
  scratchDirectories.delete(resolve(directory));
}

/**
 * Removes the unfinished output files and scratch directories registered so far; returns how many files went and
 * whether a scratch directory did. Also called by a rank that aborts an MPI job, before the launcher kills the others.
 */
export function removeUnfinishedOutputs(): { readonly files: number; readonly scratch: boolean } {
  const removed = [...outputPrefixes].flatMap((prefix) => removeTemporaryFilesOf(prefix));
  for (const directory of scratchDirectories) rmSync(directory, { recursive: true, force: true });
  const scratch = scratchDirectories.size > 0;
  scratchDirectories.clear();
  return { files: removed.length, scratch };
}

function endInterrupted(signal: InterruptingSignal): void {
  const { files, scratch } = removeUnfinishedOutputs();
  // Under mpirun every rank may get the signal (e.g. when another rank aborted the job): say which one speaks.
  const worldRank = detectMpiLaunch()?.worldRank;
  const who = worldRank === undefined ? '' : `rank ${worldRank}: `;
  const converted = scratch ? ' and the converted input' : '';
  process.stderr.write(`snptally: ${who}interrupted (${signal}); removed ${files} unfinished output file(s)${converted}\n`);
  // The signal again, now with its default action: process.exit() would first tear down the worker threads, and
  // a native kernel interrupted in one of them aborts the process instead (status 134).
  for (const other of INTERRUPTING_SIGNALS) process.removeAllListeners(other);
  process.kill(process.pid, signal);
}
