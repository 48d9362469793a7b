// Runs the built `snptally` binary (dist/src/cli/main.js) in a child process for CLI tests.
import { spawnSync } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The compiled CLI entry point, next to this compiled helper's tree. */
export const CLI_MAIN = resolve(dirname(fileURLToPath(import.meta.url)), '../../src/cli/main.js');

/** What one CLI invocation did. */
export interface CliOutcome {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `node main.js ...args` to completion; stderr is not a TTY, so no progress bar is drawn. */
export function runCli(args: readonly string[], options: { cwd?: string; env?: Record<string, string> } = {}): CliOutcome {
  const child = spawnSync(process.execPath, [CLI_MAIN, ...args], {
    cwd: options.cwd,
    encoding: 'utf8',
    env: { ...process.env, SNPTALLY_DEBUG: '', ...options.env },
    timeout: 110_000,
  });
  return { status: child.status, stdout: child.stdout, stderr: child.stderr };
}

/**
 * `stderr` without Dawn's notes on the Vulkan CPU driver's limits ("Warning: maxDynamic…PerPipelineLayout artificially
 * reduced …"), which Dawn itself prints whenever a device is opened on lavapipe: every other line stays.
 */
export function withoutDawnLimitNotes(stderr: string): string {
  return stderr.split('\n').filter((line) => !/^Warning: \w+ artificially reduced from \d+ to \d+/.test(line)).join('\n').replace(/^\n+$/, '');
}
