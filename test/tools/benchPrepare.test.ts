// tools/bench-prepare runs end to end on tiny PLINK dummy data and reports consistent figures (a smoke test, not a timing).
import { spawnSync } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const BENCH = resolve(dirname(fileURLToPath(import.meta.url)), '../../tools/bench-prepare.js');

interface Row {
  readonly input: string;
  readonly bytes: number;
  readonly snptallySeconds: number;
  readonly plinkSeconds: number;
  readonly plinkOverSnptally: number;
}

describe('bench-prepare', () => {
  it('times snptally prepare and plink1.9 --make-bed on the same VCF, gzip VCF and fileset', () => {
    const r = spawnSync(process.execPath, [BENCH, '--snps', '60', '--samples', '90', '--reps', '1', '--json'], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const result = JSON.parse(r.stdout) as { snps: number; samples: number; rows: Row[] };
    expect(result).toMatchObject({ snps: 60, samples: 90 });
    expect(result.rows.map((row) => row.input)).toEqual(['VCF', 'VCF, gzip', 'PLINK fileset']);
    // The fileset's .bed: 3 magic bytes and ceil(90/4) bytes per SNP.
    expect(result.rows[2].bytes).toBe(3 + 60 * 23);
    for (const row of result.rows) {
      expect(row.snptallySeconds, row.input).toBeGreaterThan(0);
      expect(row.plinkSeconds, row.input).toBeGreaterThan(0);
      expect(row.plinkOverSnptally).toBeCloseTo(row.plinkSeconds / row.snptallySeconds, 1);
    }
  });
});
