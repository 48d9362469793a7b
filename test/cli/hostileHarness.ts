// Helpers of the hostile-input tests: a one-line refusal that leaves a directory as it was, small fixtures, and the
// CLI run on a tiny file system of its own (a real full disk: tmpfs in a private mount namespace).
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect } from 'vitest';
import { CLI_MAIN, runCli, type CliOutcome } from './cliHarness.js';

/** Runs the CLI; expects exit 1 with exactly one `snptally: ` line on stderr, nothing on stdout; returns the line. */
export function refusedLine(args: readonly string[], options: { cwd?: string; env?: Record<string, string> } = {}): string {
  const outcome = runCli(args, options);
  expect(outcome.status, outcome.stderr).toBe(1);
  const lines = outcome.stderr.trimEnd().split('\n');
  expect(lines, outcome.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^snptally: /);
  expect(outcome.stdout).toBe('');
  return lines[0];
}

/** Runs the CLI and expects exit 0. */
export function succeeds(args: readonly string[], options: { cwd?: string } = {}): CliOutcome {
  const outcome = runCli(args, options);
  expect(outcome.status, outcome.stderr).toBe(0);
  return outcome;
}

/** The names in `directory`, sorted. */
export function listing(directory: string): string[] {
  return readdirSync(directory).sort();
}

/** A VCF of `numSample` samples and `lines` data lines given as text after the fixed columns' first five. */
export function writeVcf(path: string, numSample: number, dataLines: readonly string[]): void {
  const header = ['##fileformat=VCFv4.2', ['#CHROM', 'POS', 'ID', 'REF', 'ALT', 'QUAL', 'FILTER', 'INFO', 'FORMAT',
    ...Array.from({ length: numSample }, (_, i) => `s${i}`)].join('\t')];
  writeFileSync(path, `${[...header, ...dataLines].join('\n')}\n`);
}

/** A biallelic data line at `pos` with the given GT texts. */
export function vcfLine(pos: number, calls: readonly string[]): string {
  return ['1', String(pos), `rs${pos}`, 'A', 'G', '.', 'PASS', '.', 'GT', ...calls].join('\t');
}

/** What a CLI run on a tiny disk did, and what the disk held afterwards. */
export interface TinyDiskOutcome extends CliOutcome {
  /** Names on the tiny disk after the command, sorted. */
  readonly left: string[];
}

const LISTING_MARK = '--- left on the disk ---';

/**
 * Runs the CLI with `args` (where `DISK` stands for the mount point) in a private mount namespace over a tmpfs of
 * `sizeKiB` mounted at `mountPoint` (an empty directory), so that writes past its size fail with ENOSPC as on a full
 * disk; `prepareDisk` is a shell command run there first (e.g. copying a file in). Needs `unshare` with user
 * namespaces (or root).
 */
export function runOnTinyDisk(
  mountPoint: string, sizeKiB: number, args: readonly string[], options: { cwd: string; prepareDisk?: string },
): TinyDiskOutcome {
  const command = [
    'set -e', `mount -t tmpfs -o size=${sizeKiB}k tmpfs "$DISK"`, options.prepareDisk ?? 'true', 'set +e',
    `"$NODE" "$CLI" ${args.map((arg) => `"${arg.replace(/DISK/g, '$DISK')}"`).join(' ')}`,
    'status=$?', `echo "${LISTING_MARK}"`, 'ls -A "$DISK"', 'exit $status',
  ].join('\n');
  const child = spawnSync('unshare', ['-rm', 'sh', '-c', command], {
    cwd: options.cwd, encoding: 'utf8', timeout: 110_000,
    env: { ...process.env, SNPTALLY_DEBUG: '', DISK: mountPoint, NODE: process.execPath, CLI: CLI_MAIN },
  });
  const [stdout, leftText = ''] = child.stdout.split(`${LISTING_MARK}\n`);
  expect(child.stdout, `the tiny disk could not be set up: ${child.stderr}`).toContain(LISTING_MARK);
  return { status: child.status, stdout, stderr: child.stderr, left: leftText.split('\n').filter((name) => name !== '').sort() };
}

/** Runs of `run` on a tiny synthetic problem, one thread. */
export const SMALL_RUN = ['run', '--vectors', '20', '--fields', '40', '--threads', '1'];

/** Fresh empty directories under one temporary root (named after `prefix`), removed after the file's tests. */
export function caseDirectories(prefix: string): () => string {
  const root = mkdtempSync(join(tmpdir(), prefix));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  let numDirs = 0;
  return () => {
    const dir = join(root, `case${numDirs++}`);
    mkdirSync(dir);
    return dir;
  };
}
