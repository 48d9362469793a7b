// Runs examples/real-data-walkthrough.sh end to end and checks what it leaves behind against the files themselves:
// PLINK's table equal to plink1.9's (the script compares), the engine's windowed table holding every pair of it, the
// CCC threshold keeping what the histogram said, the tables, the merge and the reports.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const workDir = mkdtempSync(join(tmpdir(), 'snptally-walkthrough-'));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

/** The SNP pairs of a `.ld` table (its first six columns), header dropped. */
function ldPairs(path: string): string[] {
  const lines = gunzipSync(readFileSync(join(workDir, path))).toString('latin1').trim().split('\n').slice(1);
  return lines.map((line) => line.trim().split(/\s+/).slice(0, 6).join(' '));
}

describe('examples/real-data-walkthrough.sh', () => {
  it('selects a region, writes windowed LD as plink1.9 does, picks a CCC threshold from the histogram, reports', () => {
    const child = spawnSync('bash', [join(repoRoot, 'examples/real-data-walkthrough.sh'), workDir], {
      encoding: 'utf8', timeout: 170_000, env: { ...process.env, SNPTALLY_DEBUG: '' },
    });
    expect(child.stderr).toBe('');
    expect(child.status).toBe(0);
    const out = child.stdout;

    // Step 3: the front end's table is plink1.9's; step 4's engine table (r² ≥ 0.05) holds every pair of it (r² ≥ 0.2).
    const plinkPairs = ldPairs('region.ld.gz');
    expect(out).toContain(`region.ld.gz: ${plinkPairs.length} pairs, identical to plink1.9's`);
    expect(plinkPairs.length).toBeGreaterThan(100);
    const enginePairs = new Set(ldPairs('ld.ld.gz'));
    expect(enginePairs.size).toBeGreaterThan(plinkPairs.length);
    for (const pair of plinkPairs) expect(enginePairs.has(pair)).toBe(true);
    for (const pair of plinkPairs) expect(pair.split(' ')[0]).toBe('2');

    // Step 5: the threshold keeps at least the 2,000 entries the histogram promised, and no more than its buckets hold.
    const threshold = Number(/^CCC threshold keeping about 2000 entries: ([\d.]+)$/m.exec(out)?.[1]);
    const rows = readFileSync(join(workDir, 'ccc.hist.tsv'), 'utf8').trim().split('\n').slice(1).map((line) => line.split('\t'));
    const atOrAbove = rows.filter((row) => Number(row[0]) >= threshold)
      .reduce((sum, row) => sum + Number(row[1]) + Number(row[2]) + Number(row[3]), 0);
    const entries = [...out.matchAll(/^entries (\d+) zeros/gm)].map((m) => Number(m[1]));
    expect(entries).toHaveLength(2);
    const cccEntries = entries[1];
    expect(cccEntries).toBeGreaterThanOrEqual(2000);
    expect(cccEntries).toBeLessThanOrEqual(atOrAbove);
    expect(out).toContain(`merged 2 files, ${cccEntries} records, into merged.bin`);

    // Step 6: ten pairs of chromosome 2 with positions, strongest first, all above the threshold.
    const topLines = out.split('\n').filter((line) => /^2\t\d+\trs2_\d+\t2\t\d+\trs2_\d+\t[01]{2}\t[\d.]+$/.test(line));
    expect(topLines).toHaveLength(10);
    const values = topLines.map((line) => Number(line.split('\t')[7]));
    expect(values).toEqual([...values].sort((a, b) => b - a));
    expect(Math.min(...values)).toBeGreaterThan(threshold);

    for (const file of ['region.packed', 'region.packed.json', 'ld_0.bin', 'ld.hist.tsv', 'ccc_0.bin', 'ccc_1.bin', 'merged.bin']) {
      expect(existsSync(join(workDir, file))).toBe(true);
    }
    const ldReport = readFileSync(join(workDir, 'ld-report.html'), 'utf8');
    expect(ldReport).toContain('<h2>LD heatmap</h2>');
    expect(ldReport).toContain('<h2>LD decay</h2>');
    expect(ldReport).not.toContain('not drawn');
    // The window run: its window among the parameters, and grey cells may be pairs outside it.
    expect(ldReport).toContain('<th>LD window</th><td class="num">500 kb, 99999 variants, same chromosome</td>');
    expect(ldReport).toContain('no record: r² ≤ 0.05, below the threshold, or outside the LD window');
    expect(readFileSync(join(workDir, 'ccc-report.html'), 'utf8')).toContain('Strongest pairs (top 20)');
  });
});
