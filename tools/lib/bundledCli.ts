// The bundled `snptally` command (dist/bundle/main.js, the package's bin; tools/bundle.mjs), brought up to date with
// dist/src first, for the benches and tests that time or check what a user runs.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root: this compiled module lies in dist/tools/lib. */
const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

/** The bundle's CLI entry. */
export const BUNDLED_CLI_MAIN = resolve(REPO_ROOT, 'dist/bundle/main.js');

let bundled = false;

/**
 * Rebuilds the bundle where a dist/src module is newer (after a plain `tsc`); once per process. A copy of dist without
 * tools/bundle.mjs (scripts/gpu-bundle.sh's) runs its bundle as it is.
 */
export function ensureBundleFresh(): void {
  if (bundled) return;
  const bundler = resolve(REPO_ROOT, 'tools/bundle.mjs');
  if (existsSync(bundler)) execFileSync(process.execPath, [bundler, '--if-stale'], { stdio: ['ignore', 'ignore', 'inherit'] });
  bundled = true;
}

/** BUNDLED_CLI_MAIN, the bundle rebuilt first where it is stale. */
export function bundledCliMain(): string {
  ensureBundleFresh();
  return BUNDLED_CLI_MAIN;
}

/** Which dist/src modules (relative to dist/src) each of the bundle's files holds, by file name. */
export function bundleContents(): ReadonlyMap<string, readonly string[]> {
  ensureBundleFresh();
  const meta = JSON.parse(readFileSync(resolve(REPO_ROOT, 'dist/bundle-meta.json'), 'utf8')) as { outputs: Record<string, string[]> };
  return new Map(Object.entries(meta.outputs));
}
