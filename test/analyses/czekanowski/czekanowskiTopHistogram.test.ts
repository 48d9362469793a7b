// `run --top N` and `run --histograms` for Czekanowski (SPEC §8, §9 extended as for r²): the top file holds the N
// largest values of the whole run, ties by index, and the histogram counts every value before the threshold —
// both checked against the naive values, 2-way and 3-way, over ranks and phases.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../cli/cliHarness.js';
import { naiveCzekanowski } from './naiveCzekanowski.js';

const dir = mkdtempSync(join(tmpdir(), 'snptally-czek-top-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The naive tuples' keys, strongest float32 value first, then ascending indices (the top file's order). */
function naiveTop(values: Map<string, number>, count: number): string[] {
  const keyed = [...values].map(([key, value]) => ({ key, value: Math.fround(value), indices: key.split(',').map(Number) }));
  keyed.sort((a, b) => b.value - a.value || compareIndices(a.indices, b.indices));
  return keyed.slice(0, count).map(({ key, value }) => `${key}=${value}`);
}

function compareIndices(a: readonly number[], b: readonly number[]): number {
  for (let d = 0; d < a.length; d++) if (a[d] !== b[d]) return a[d] - b[d];
  return 0;
}

/** Bucket counts as SPEC §9 takes them: trunc(value·1000) clamped to [0, 999]. */
function naiveHistogram(values: Map<string, number>): number[] {
  const counts = new Array<number>(1000).fill(0);
  for (const value of values.values()) counts[Math.min(999, Math.max(0, Math.trunc(value * 1000)))]++;
  return counts;
}

describe.each([
  { numWay: 2 as const, numVector: 31, numField: 70, decomposition: ['--npv', '3', '--phases', '2'] },
  { numWay: 3 as const, numVector: 17, numField: 45, decomposition: ['--npv', '2', '--npr', '2'] },
])('Czekanowski $numWay-way', ({ numWay, numVector, numField, decomposition }) => {
  const naive = naiveCzekanowski({ numVector, numField, numWay, precision: 'double', values: 'random' });

  it('--top keeps the strongest tuples of the run and --histograms counts every value', () => {
    const stub = join(dir, `t${numWay}`);
    const histograms = join(dir, `h${numWay}.tsv`);
    const run = runCli(['run', '--metric', 'czekanowski', '--way', String(numWay), '--vectors', String(numVector),
      '--fields', String(numField), '--top', '12', '--threshold', '0.5', '--histograms', histograms, '--out', stub, ...decomposition]);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain(`metrics checksum ${naive.checksum} `);

    const top = runCli(['top', `${stub}_top.bin`, '-k', '12']);
    expect(top.status, top.stderr).toBe(0);
    const rows = top.stdout.trim().split('\n').slice(1).map((line) => line.split('\t'));
    const printed = rows.map((row) => `${row.slice(0, numWay).map(Number).sort((a, b) => a - b).join(',')}=${Math.fround(Number(row[numWay + 1]))}`);
    expect(printed).toEqual(naiveTop(naive.values, 12));

    const lines = readFileSync(histograms, 'utf8').trim().split('\n');
    expect(lines[0]).toBe('min\tCZEK');
    const counts = lines.slice(1).map((line) => Number(line.split('\t')[1]));
    expect(counts).toEqual(naiveHistogram(naive.values));
    // Every value, not only those past the threshold.
    expect(counts.reduce((a, b) => a + b, 0)).toBe(naive.values.size);
  });
});
