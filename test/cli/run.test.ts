// `snptally run` end to end: CoMet reference checksums, text and JSON output, input files, output files.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { randomProblemCode } from '../../src/core/syntheticProblems.js';
import { metricsFilePath, packFieldValues, writePackedVectorFile } from '../../src/io/index.js';
import { runCli } from './cliHarness.js';

const workDir = mkdtempSync(join(tmpdir(), 'snptally-run-'));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

/** SPEC §5 reference checksums (CoMet). */
const REFERENCE_RUNS: ReadonlyArray<readonly [string[], string]> = [
  [['--problem', 'analytic', '--vectors', '4', '--fields', '2'], '0-245201878478-801640733671948288'],
  [['--problem', 'analytic', '--way', '3', '--vectors', '4', '--fields', '2'], '0-20352394550-918734323983581184'],
  [['--vectors', '48', '--fields', '100'], '0-34600668891914-795881718560018816'],
  [['--sparse', '--vectors', '48', '--fields', '100'], '0-33543338342814-112679650647204196'],
  [['--way', '3', '--vectors', '36', '--fields', '100'], '0-144962007142596-694338058451516346'],
  [['--metric', 'duo', '--sparse', '--vectors', '48', '--fields', '100'], '0-25544782430596-363343116734123798'],
];

/** Runs with --json and returns the one JSON object printed. */
function runJson(args: readonly string[]): Record<string, unknown> {
  const outcome = runCli(['run', '--json', ...args]);
  expect(outcome.status, outcome.stderr).toBe(0);
  expect(outcome.stderr).toBe('');
  const lines = outcome.stdout.split('\n').filter((line) => line.length > 0);
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0]) as Record<string, unknown>;
}

describe('snptally run reference checksums', () => {
  for (const [args, checksum] of REFERENCE_RUNS) {
    it(`${args.join(' ')} → ${checksum}`, () => {
      expect(runJson(args).checksum).toBe(checksum);
    });
  }

  it('prints the same checksum for a decomposed run', () => {
    const report = runJson(['--vectors', '48', '--fields', '100', '--npv', '3', '--npf', '2', '--phases', '2']);
    expect(report.checksum).toBe('0-34600668891914-795881718560018816');
    expect(report.numRanks).toBe(6);
  });

  it('prints the same checksum and entries with --half-diagonal split, and names the plan in the summary', () => {
    const args = ['--vectors', '48', '--fields', '100', '--npv', '2', '--npr', '2', '--threshold', '0.6'];
    const lowerRows = runJson(args);
    const split = runJson([...args, '--half-diagonal', 'split']);
    expect(split).toMatchObject({ checksum: lowerRows.checksum, entries: lowerRows.entries, zeros: lowerRows.zeros, numRanks: 4 });
    expect(split.decomposition).toMatchObject({ numProcVector: 2, halfDiagonal: 'split' });
    expect(lowerRows.decomposition).toMatchObject({ halfDiagonal: 'lower-rows' });
    const summary = runCli(['run', ...args, '--half-diagonal', 'split']);
    expect(summary.status, summary.stderr).toBe(0);
    expect(summary.stdout).toMatch(/phases 0-0 of 1 stages 0-0 of 1 half-diagonal split\n/);
    expect(runCli(['run', ...args]).stdout).not.toContain('half-diagonal');
  });
});

describe('snptally run output formats', () => {
  it('prints a CoMet-style checksum line first, then counts and rate', () => {
    const outcome = runCli(['run', '--vectors', '48', '--fields', '100']);
    expect(outcome.status, outcome.stderr).toBe(0);
    const lines = outcome.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^metrics checksum 0-34600668891914-795881718560018816 compute time \d+\.\d{6}$/);
    expect(lines[1]).toMatch(/^entries 4512 zeros \d+ comparisons 112800 rate \S+ comparisons\/s$/);
  });

  it('puts every RunResult field and the job into the JSON object', () => {
    const report = runJson(['--problem', 'analytic', '--vectors', '4', '--fields', '2', '--verify']);
    for (const field of ['checksum', 'entries', 'zeros', 'comparisons', 'seconds', 'comparisonsPerSecond',
      'inputSeconds', 'computeSeconds', 'computeComparisonsPerSecond', 'computeCpuSeconds', 'backend', 'numRanks', 'verifiedValues',
      'deviceFinalizedPairs', 'deviceFinalizedTriples', 'outputFiles']) {
      expect(report, field).toHaveProperty(field);
    }
    // The phases are parts of the run: each positive, together no longer than the whole.
    const { seconds, inputSeconds, computeSeconds } = report as { seconds: number; inputSeconds: number; computeSeconds: number };
    expect(inputSeconds).toBeGreaterThan(0);
    expect(computeSeconds).toBeGreaterThan(0);
    expect(inputSeconds + computeSeconds).toBeLessThanOrEqual(seconds);
    // The process's CPU seconds during the compute phase (process.cpuUsage, microseconds): some were spent.
    expect(report.computeCpuSeconds).toBeGreaterThan(0);
    expect(report).toMatchObject({
      metric: 'ccc', numWay: 2, numVector: 4, numField: 2, problem: 'analytic', entries: 24, numRanks: 1,
    });
    expect(report.verifiedValues).toBeGreaterThan(0);
    expect(report.decomposition).toMatchObject({ numProcVector: 1, numPhase: 1, phaseMax: 0 });
  });
});

describe('snptally run --input', () => {
  it('reads a packed file and matches the synthetic problem it holds', () => {
    const path = join(workDir, 'random48x100.bin');
    writePackedVectorFile(path, packFieldValues(48, 100, (v, f) => randomProblemCode(v, f, 100)), 48, 100);
    expect(runJson(['--input', path, '--vectors', '48', '--fields', '100']).checksum)
      .toBe('0-34600668891914-795881718560018816');
    expect(runJson(['--input', path, '--vectors', '48', '--fields', '100', '--npf', '3']).checksum)
      .toBe('0-34600668891914-795881718560018816');
  });

  it('reports a file of the wrong size in one line', () => {
    const path = join(workDir, 'short.bin');
    writeFileSync(path, new Uint8Array(48 * 25 - 3));
    const outcome = runCli(['run', '--input', path, '--vectors', '48', '--fields', '100']);
    expect(outcome.status).toBe(1);
    expect(outcome.stderr).toMatch(/^snptally: input file .*short\.bin is too short: expected 1200 bytes.*vector record 47/);
    expect(outcome.stderr.trimEnd().split('\n')).toHaveLength(1);
  });
});

describe('snptally run --output', () => {
  it('writes one file per rank, dumps every entry, and refuses to overwrite without --force', () => {
    const stub = join(workDir, 'metrics');
    const args = ['--vectors', '48', '--fields', '100', '--output', stub, '--npv', '2'];
    const report = runJson(args);
    expect(report.outputFiles).toEqual([metricsFilePath(stub, 0, 2), metricsFilePath(stub, 1, 2)]);

    const dump = runCli(['dump', metricsFilePath(stub, 0, 2), metricsFilePath(stub, 1, 2)]);
    expect(dump.status, dump.stderr).toBe(0);
    const [header, ...lines] = dump.stdout.trimEnd().split('\n');
    expect(header).toBe('i\tj\tentry\tvalue');
    const rows = lines.map((line) => line.split('\t'));
    expect(rows).toHaveLength(report.entries as number);
    const pairs = new Set<string>();
    for (const [i, j, entry, value] of rows) {
      expect(Number(i)).toBeLessThan(48);
      expect(Number(j)).toBeLessThan(48);
      expect(entry).toMatch(/^[01]{2}$/);
      expect(Number.isFinite(Number(value))).toBe(true);
      pairs.add(`${Math.min(Number(i), Number(j))} ${Math.max(Number(i), Number(j))} ${entry}`);
    }
    expect(pairs.size).toBe(rows.length); // each table entry exactly once

    const refused = runCli(['run', ...args]);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain(metricsFilePath(stub, 0, 2));
    expect(refused.stderr).toContain('--force');

    const forced = runJson(['--vectors', '48', '--fields', '100', '--output', stub, '--force']);
    expect(forced.outputFiles).toEqual([metricsFilePath(stub, 0, 1)]);
    expect(existsSync(metricsFilePath(stub, 1, 2))).toBe(false); // the stale rank-1 file of the 2-rank run
  });

  it('writes only entries above the threshold', () => {
    const stub = join(workDir, 'thresholded');
    const report = runJson(['--vectors', '48', '--fields', '100', '--threshold', '0.5', '--output', stub]);
    const dump = runCli(['dump', '--no-header', metricsFilePath(stub, 0, 1)]);
    const values = dump.stdout.trimEnd().split('\n').map((line) => Number(line.split('\t')[3]));
    expect(values).toHaveLength(report.entries as number);
    for (const value of values) expect(value).toBeGreaterThan(0.5);
  });
});
