// `snptally run --histograms FILE`: SPEC §9's file equal to the naive reference, the summary line, the histogram in
// --json (counts as decimal strings), its run-info record, --force, and one-line errors for bad uses.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { randomProblemCode } from '../../src/core/syntheticProblems.js';
import { naiveHistogramFile } from '../helpers/naiveHistogram.js';
import { runCli } from './cliHarness.js';

const workDir = mkdtempSync(join(tmpdir(), 'snptally-histograms-cli-'));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

const SPEC = { metric: 'ccc', numWay: 3, sparse: true, param: 2 / 3, multiplier: 4.5 } as const;

describe('run --histograms', () => {
  const file = join(workDir, 'h.tsv');
  const args = ['run', '--way', '3', '--sparse', '--vectors', '14', '--fields', '50', '--threshold', '0.8', '--histograms', file];

  it('writes SPEC §9\'s file of every value, names it in the summary, leaves no temporary file', () => {
    const outcome = runCli([...args, '--npv', '2', '--stages', '2']);
    expect(outcome.status, outcome.stderr).toBe(0);
    expect(outcome.stdout).toContain(`histograms ${file}\n`);
    expect(readFileSync(file, 'utf8')).toBe(naiveHistogramFile(SPEC, 14, 50, (v, f) => randomProblemCode(v, f, 50)));
    expect(readdirSync(workDir).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it('refuses to overwrite the file without --force, in one line, and overwrites with it', () => {
    writeFileSync(file, 'old');
    const refused = runCli(args);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toBe(`snptally: histograms file ${file} already exists; use --force to overwrite\n`);
    expect(readFileSync(file, 'utf8')).toBe('old');
    const forced = runCli([...args, '--force']);
    expect(forced.status, forced.stderr).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(naiveHistogramFile(SPEC, 14, 50, (v, f) => randomProblemCode(v, f, 50)));
  });

  it('adds the histogram to --json: columns of decimal strings by bucket, and to <stub>.run.json', () => {
    const jsonFile = join(workDir, 'j.tsv');
    const stub = join(workDir, 'out');
    const outcome = runCli(['run', '--json', '--metric', 'duo', '--vectors', '20', '--fields', '40', '--histograms', jsonFile, '--output', stub]);
    expect(outcome.status, outcome.stderr).toBe(0);
    const json = JSON.parse(outcome.stdout) as { histogram: { file: string; numBuckets: number; bucketWidth: number; columns: string[]; counts: Record<string, string[]>; undefinedValues: string } };
    const { histogram } = json;
    expect(histogram.file).toBe(jsonFile);
    expect(histogram.numBuckets).toBe(4000);
    expect(histogram.bucketWidth).toBe(0.001);
    expect(histogram.columns).toEqual(['LL', 'LH', 'HH', 'LL+HH']);
    expect(histogram.undefinedValues).toBe('0');
    // The file's columns, as strings.
    const rows = readFileSync(jsonFile, 'utf8').trimEnd().split('\n').slice(1).map((line) => line.split('\t'));
    histogram.columns.forEach((name, c) => expect(histogram.counts[name]).toEqual(rows.map((row) => row[c + 1])));
    const total = Object.values(histogram.counts).slice(0, 3).flat().reduce((sum, x) => sum + BigInt(x), 0n);
    expect(total).toBe(BigInt(((20 * 19) / 2) * 4));
    const runInfo = JSON.parse(readFileSync(`${stub}.run.json`, 'utf8')) as { run: { histogram: { file: string } } };
    expect(runInfo.run.histogram.file).toBe(jsonFile);
  });

  it('says why in one line: a missing directory, an empty name', () => {
    const missing = join(workDir, 'no-such-dir', 'h.tsv');
    const outcome = runCli(['run', '--vectors', '8', '--fields', '10', '--histograms', missing]);
    expect(outcome.status).toBe(1);
    expect(outcome.stderr).toBe(`snptally: cannot write histograms file ${missing}: directory ${join(workDir, 'no-such-dir')} does not exist\n`);
    expect(existsSync(missing)).toBe(false);
    const empty = runCli(['run', '--vectors', '8', '--fields', '10', '--histograms', '']);
    expect(empty.status).toBe(1);
    expect(empty.stderr).toBe('snptally: --histograms must not be empty\n');
  });
});
