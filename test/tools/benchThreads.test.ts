// tools/bench-threads runs its jobs at each thread count on a tiny problem and reports consistent figures (a smoke
// test, not a timing).
import { spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const BENCH = resolve(dirname(fileURLToPath(import.meta.url)), '../../tools/bench-threads.js');
const TINY = ['--vectors', '64', '--fields', '64', '--vectors3', '40', '--reps', '1', '--threads-list', '1,2', '--jobs', 'ccc,ccc3'];

interface Row {
  readonly job: string;
  readonly vectors: number;
  readonly fields: number;
  readonly threads: number;
  readonly computeSeconds: number;
  readonly comparisonsPerSecond: number;
  readonly speedup: number;
  readonly efficiency: number;
  readonly checksum: string;
  readonly command: string;
}

interface Report {
  readonly machine: { readonly cores: number; readonly cpuModel: string };
  readonly backend: string;
  readonly baseThreads: number;
  readonly rows: readonly Row[];
}

describe('bench-threads', () => {
  it('prints one row per job and thread count, with rates and speed-ups over one thread, as JSON', () => {
    const r = spawnSync(process.execPath, [BENCH, ...TINY, '--json'], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as Report;
    expect(report).toMatchObject({ backend: 'cpu', baseThreads: 1, machine: { cores: availableParallelism() } });
    expect(report.machine.cpuModel.length).toBeGreaterThan(0);
    expect(report.rows.map((row) => [row.job, row.vectors, row.fields, row.threads]))
      .toEqual([['ccc', 64, 64, 1], ['ccc', 64, 64, 2], ['ccc3', 40, 64, 1], ['ccc3', 40, 64, 2]]);
    // Comparisons as CoMet counts them: unique pairs (triples) × fields.
    const comparisons = { ccc: (64 * 63 / 2) * 64, ccc3: (40 * 39 * 38 / 6) * 64 } as Record<string, number>;
    for (const row of report.rows) {
      expect(row.comparisonsPerSecond, `${row.job} ${row.threads}`).toBeGreaterThan(0);
      expect(row.comparisonsPerSecond * row.computeSeconds).toBeCloseTo(comparisons[row.job], -1);
      expect(row.command).toMatch(new RegExp(`^node dist/src/cli/main\\.js run .*--threads ${row.threads} --json$`));
    }
    for (const job of ['ccc', 'ccc3']) {
      const [one, two] = report.rows.filter((row) => row.job === job);
      expect(one.speedup).toBe(1);
      expect(two.speedup).toBeCloseTo(two.comparisonsPerSecond / one.comparisonsPerSecond, 10);
      expect(two.efficiency).toBeCloseTo(two.speedup / 2, 10);
      expect(two.checksum).toBe(one.checksum);
    }
  });

  it('prints the machine, a table of the same rows and the command lines as text', () => {
    const r = spawnSync(process.execPath, [BENCH, ...TINY], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(new RegExp(`^machine: ${availableParallelism()} cores, `));
    const header = lines.findIndex((line) => line.startsWith('job '));
    const tableRows = lines.slice(header + 1, header + 5).map((line) => line.trim().split(/\s+/));
    expect(tableRows.map((cells) => [cells[0], cells[3]])).toEqual([['ccc', '1'], ['ccc', '2'], ['ccc3', '1'], ['ccc3', '2']]);
    for (const cells of tableRows) expect(Number(cells[5])).toBeGreaterThan(0);
    expect(lines.filter((line) => line.startsWith('  node dist/src/cli/main.js run '))).toHaveLength(4);
  });

  it('stops with one line on a bad option', () => {
    const r = spawnSync(process.execPath, [BENCH, '--jobs', 'ccc,bogus'], { encoding: 'utf8' });
    expect(r.status).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^bench-threads: .*bogus/);
  });
});
