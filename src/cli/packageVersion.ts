// The version of snptally, read from the package.json next to the installed code.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * `version` of the nearest package.json named `snptally` above this module (dist/src/cli when built),
 * or `unknown` when none is found, so that `--version` never fails.
 */
export function packageVersion(): string {
  let directory = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    try {
      const manifest: unknown = JSON.parse(readFileSync(join(directory, 'package.json'), 'utf8'));
      if (isSnptallyManifest(manifest)) return manifest.version;
    } catch {
      // No readable package.json here: keep walking up.
    }
    const parent = dirname(directory);
    if (parent === directory) return 'unknown';
    directory = parent;
  }
}

function isSnptallyManifest(value: unknown): value is { name: string; version: string } {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  return record.name === 'snptally' && typeof record.version === 'string';
}
