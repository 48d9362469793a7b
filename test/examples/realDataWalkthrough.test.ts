// Runs examples/real-data-walkthrough.sh end to end and checks what it leaves behind.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const workDir = mkdtempSync(join(tmpdir(), 'snptally-walkthrough-'));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

describe('examples/real-data-walkthrough.sh', () => {
  it('prepares, runs, lists top pairs, merges and reports', () => {
    const child = spawnSync('bash', [join(repoRoot, 'examples/real-data-walkthrough.sh'), workDir], {
      encoding: 'utf8', timeout: 110_000, env: { ...process.env, SNPTALLY_DEBUG: '' },
    });
    expect(child.stderr).toBe('');
    expect(child.status).toBe(0);
    const checksums = child.stdout.match(/^metrics checksum \S+/gm) ?? [];
    // CCC on the prepared file, the VCF and the fileset (the last two equal), then r² of a selection.
    expect(checksums).toHaveLength(4);
    expect(checksums[1]).toBe(checksums[2]);
    expect(checksums[3]).not.toBe(checksums[2]);
    expect(child.stdout).toMatch(/^merged 2 files, \d+ records, into merged\.bin$/m);
    const topLines = child.stdout.split('\n').filter((line) => /^\d+\t\d+\tsnp\d+\tsnp\d+\t[01]{2}\t[\d.]+$/.test(line));
    expect(topLines.length).toBeGreaterThanOrEqual(10 + 3 + 3);
    for (const file of ['cohort.packed', 'cohort.packed.json', 'out_0.bin', 'out_1.bin', 'out.run.json', 'merged.bin', 'report.html']) {
      expect(existsSync(join(workDir, file))).toBe(true);
    }
    expect(readFileSync(join(workDir, 'report.html'), 'utf8')).toContain('Strongest pairs (top 20)');
  });
});
