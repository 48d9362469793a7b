// dump and top of a Czekanowski run: its records hold plain vector indices (SPEC §7, §8), not 2·G + E, so the tables
// must name the pair the value belongs to — checked against the naive values — and print no entry bits.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../cli/cliHarness.js';
import { naiveCzekanowski } from './naiveCzekanowski.js';

const dir = mkdtempSync(join(tmpdir(), 'snptally-czek-dump-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('dump and top of Czekanowski records', () => {
  const numVector = 30;
  const numField = 70;
  const threshold = 0.75;
  const naive = naiveCzekanowski({ numVector, numField, numWay: 2, precision: 'double', values: 'random' });
  const expected = [...naive.values].filter(([, value]) => Math.fround(value) > threshold);

  it('dump names each pair by its vector indices, with the naive value and no entry bits', () => {
    const stub = join(dir, 'c');
    const run = runCli(['run', '--metric', 'czekanowski', '--vectors', String(numVector), '--fields', String(numField),
      '--threshold', String(threshold), '--npv', '2', '--out', stub]);
    expect(run.stderr).toBe('');
    expect(expected.length).toBeGreaterThan(20);
    expect(expected.length).toBeLessThan(naive.values.size);
    const dump = runCli(['dump', `${stub}_0.bin`, `${stub}_1.bin`, '--sort', 'value']);
    expect(dump.status).toBe(0);
    const rows = dump.stdout.trim().split('\n').slice(1).map((line) => line.split('\t'));
    expect(rows).toHaveLength(expected.length);
    for (const [i, j, entry, value] of rows) {
      expect(entry).toBe('-');
      const pair = `${Math.min(Number(i), Number(j))},${Math.max(Number(i), Number(j))}`;
      expect(naive.values.has(pair)).toBe(true);
      expect(Number(value)).toBeCloseTo(Math.fround(naive.values.get(pair) as number), 6);
    }
    const top = runCli(['top', `${stub}_0.bin`, `${stub}_1.bin`, '-k', '5']);
    const strongest = [...expected].sort((a, b) => b[1] - a[1]).slice(0, 5).map(([pair]) => pair);
    const topPairs = top.stdout.trim().split('\n').slice(1).map((line) => line.split('\t').slice(0, 2).map(Number).sort((a, b) => a - b).join(','));
    expect(topPairs).toEqual(strongest);
  });
});
