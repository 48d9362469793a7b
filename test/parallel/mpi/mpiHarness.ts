// Runs commands under mpirun for the MPI tests, and decides whether MPI tests can run here.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
/** The compiled CLI (dist/src/cli/main.js) and the repo's build/mpi addon. */
export const CLI_MAIN = resolve(here, '../../../src/cli/main.js');
const ADDON = resolve(here, '../../../../build/mpi/snptally_mpi.node');

/**
 * Why MPI tests cannot run here, or null. Under CI=true a reason is a test failure (CI installs Open
 * MPI); elsewhere the tests are skipped with the reason printed.
 */
export function mpiUnavailableReason(): string | null {
  const version = spawnSync('mpirun', ['--version'], { encoding: 'utf8' });
  if (version.error !== undefined || version.status !== 0) return 'mpirun not found (install openmpi-bin)';
  if (!existsSync(ADDON)) return `the MPI binding ${ADDON} was not built (install libopenmpi-dev, then npm run build)`;
  return null;
}

/** What one mpirun did. */
export interface MpiOutcome {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly seconds: number;
}

/**
 * `mpirun -np N node ARGS`: as root (--allow-run-as-root), more ranks than cores (--oversubscribe),
 * unbound (--bind-to none: oversubscribed ranks pinned to one core would crawl). `env` is exported to
 * every rank. A run that takes longer than `timeoutMs` is killed (status null): a hang fails the test.
 */
export function runUnderMpirun(numProcs: number, nodeArgs: readonly string[], env: Record<string, string> = {}, timeoutMs = 60_000): MpiOutcome {
  const exported = Object.keys(env).flatMap((name) => ['-x', name]);
  const start = performance.now();
  const child = spawnSync('mpirun', [
    '--allow-run-as-root', '--oversubscribe', '--bind-to', 'none', ...exported, '-np', String(numProcs),
    process.execPath, ...nodeArgs,
  ], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...childEnv(), ...env, OMPI_MCA_rmaps_base_oversubscribe: '1' },
    timeout: timeoutMs,
    // mpirun passes SIGTERM on to its ranks (SIGKILL would orphan them, and their pipes keep this call waiting).
    killSignal: 'SIGTERM',
  });
  return { status: child.status, stdout: child.stdout, stderr: child.stderr, seconds: (performance.now() - start) / 1000 };
}

/** Runs the CLI in this process's way (no mpirun): the single-process or in-process reference. */
export function runCliDirect(args: readonly string[]): { status: number | null; stdout: string; stderr: string } {
  const child = spawnSync(process.execPath, [CLI_MAIN, ...args], { encoding: 'utf8', env: childEnv(), timeout: 60_000 });
  return { status: child.status, stdout: child.stdout, stderr: child.stderr };
}

/**
 * This environment without what would confuse a child: vitest's fork channel (a Node child that sees
 * NODE_CHANNEL_FD treats that descriptor as its parent's IPC channel and hangs) and SNPTALLY_DEBUG.
 */
function childEnv(): Record<string, string | undefined> {
  const { NODE_CHANNEL_FD: _fd, NODE_CHANNEL_SERIALIZATION_MODE: _mode, SNPTALLY_DEBUG: _debug, ...rest } = process.env;
  return rest;
}
