// tools/bench-block-build runs on a small block and reports consistent figures (a smoke test, not a timing).
import { spawnSync } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const BENCH = resolve(dirname(fileURLToPath(import.meta.url)), '../../tools/bench-block-build.js');

interface Report {
  readonly vectors: number;
  readonly fields: number;
  readonly numPlanes: number;
  readonly blockBytes: number;
  readonly timings: Array<{ threads: number; firstRowsSeconds: number; seconds: number; fieldsPerSecond: number }>;
}

describe('bench-block-build', () => {
  it('times each thread count and repetition of a block build and prints them as JSON', () => {
    const r = spawnSync(process.execPath, [BENCH, '--vectors', '3000', '--fields', '50000', '--threads', '1,2', '--reps', '2',
      '--sparse', '--json'], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as Report;
    expect(report).toMatchObject({ vectors: 3000, fields: 50000, numPlanes: 3 });
    // 3 planes of ceil(50000/32) = 1563 words (at least: rows may be padded), 3000 rows.
    expect(report.blockBytes).toBeGreaterThanOrEqual(3000 * 3 * 1563 * 4);
    expect(report.timings.map((t) => t.threads)).toEqual([1, 1, 2, 2]);
    for (const t of report.timings) {
      expect(t.firstRowsSeconds).toBeGreaterThan(0);
      expect(t.firstRowsSeconds).toBeLessThanOrEqual(t.seconds);
      expect(t.fieldsPerSecond).toBeCloseTo(3000 * 50000 / t.seconds, -3);
    }
  });

  it('stops with one line on a bad option', () => {
    const r = spawnSync(process.execPath, [BENCH, '--problem', 'bogus'], { encoding: 'utf8' });
    expect(r.status).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^bench-block-build: .*bogus/);
  });
});
