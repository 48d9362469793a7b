// tools/bench-r2 runs end to end on a tiny fileset and reports consistent figures (a smoke test, not a timing).
import { spawnSync } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const BENCH = resolve(dirname(fileURLToPath(import.meta.url)), '../../tools/bench-r2.js');

describe('bench-r2', () => {
  it('times snptally and both PLINK runs on the same data and prints their ratios as JSON', () => {
    const r = spawnSync(process.execPath, [BENCH, '--snps', '40', '--samples', '150', '--threads', '1', '--json'], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const result = JSON.parse(r.stdout) as Record<string, number>;
    expect(result).toMatchObject({ snps: 40, samples: 150, threads: 1, pairs: 780 });
    for (const key of ['snptallySeconds', 'plinkSquareSeconds', 'plinkTriangleSeconds']) expect(result[key], key).toBeGreaterThan(0);
    expect(result.speedupOverPlinkSquare).toBeCloseTo(result.plinkSquareSeconds / result.snptallySeconds, 1);
  });

  it('window mode: plink1.9 and snptally in turns find the same pairs in the window; CPU seconds of each', () => {
    const r = spawnSync(process.execPath, [BENCH, '--snps', '300', '--samples', '80', '--threads', '2', '--window-kb', '200',
      '--chromosomes', '3', '--spacing-bp', '3000', '--reps', '2', '--json'], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const result = JSON.parse(r.stdout) as Record<string, number>;
    expect(result).toMatchObject({ snps: 300, samples: 80, threads: 2, reps: 2, windowKb: 200, chromosomes: 3 });
    // plink1.9's own .ld lines against snptally's count: the same window.
    expect(result.windowPairs).toBeGreaterThan(1000);
    expect(result.windowPairs).toBe(result.plinkPairs);
    expect(result.computedPairs).toBeGreaterThanOrEqual(result.windowPairs);
    for (const key of ['snptallySeconds', 'plinkSeconds', 'snptallyCpuSeconds']) expect(result[key], key).toBeGreaterThan(0);
    // In clock ticks of 10 ms: a tiny plink1.9 run may take none.
    expect(result.plinkCpuSeconds).toBeGreaterThanOrEqual(0);
    expect(result.speedupOverPlink).toBeCloseTo(result.plinkSeconds / result.snptallySeconds, 1);
  }, 60_000);
});
