// dump, top, merge and report on real-data runs: SNP names, permutation undone, values from the naive reference.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_PARAM, defaultMultiplier, type NumWay } from '../../src/core/types.js';
import { formatFloat32 } from '../../src/cli/formatFloat32.js';
import { naiveMetrics } from '../helpers/naiveMetrics.js';
import { patternedDosages, specCode, writePlinkFileset } from '../io/genotypeFixtures.js';
import { runCli } from './cliHarness.js';

const workDir = mkdtempSync(join(tmpdir(), 'snptally-named-'));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

const NUM_SNP = 14;
const NUM_SAMPLE = 30;
const dosages = patternedDosages(NUM_SNP, NUM_SAMPLE, 9);
const prefix = join(workDir, 'set');

function cli(args: readonly string[]): string {
  const outcome = runCli(args);
  expect(outcome.stderr).toBe('');
  expect(outcome.status).toBe(0);
  return outcome.stdout;
}

/** Naive values keyed `i,j[,k],entry` (SNP indices ascending) as float32 text. */
function naiveLines(numWay: NumWay): Map<string, string> {
  const result = naiveMetrics(
    { metric: 'ccc', numWay, sparse: true, param: DEFAULT_PARAM, multiplier: defaultMultiplier('ccc') },
    NUM_SNP, NUM_SAMPLE, (v, f) => specCode(dosages[v][f]), { keepValues: true });
  return new Map([...result.values].map(([key, value]) => [key, formatFloat32(Math.fround(value))]));
}

/** `i,j,entry` → value text from TSV lines `i j snp_i snp_j entry value`, checking the names. */
function parseNamedDump(text: string, numWay: NumWay, options: { withHeader: boolean } = { withHeader: true }): Map<string, string> {
  const parsed = new Map<string, string>();
  const lines = text.trim().split('\n');
  if (options.withHeader) expect(lines.shift()).toBe(`${['i', 'j', 'k'].slice(0, numWay).join('\t')}\t${['snp_i', 'snp_j', 'snp_k'].slice(0, numWay).join('\t')}\tentry\tvalue`);
  for (const line of lines) {
    const columns = line.split('\t');
    const indices = columns.slice(0, numWay);
    expect(columns.slice(numWay, 2 * numWay)).toEqual(indices.map((index) => `rs${index}`));
    expect(indices.map(Number)).toEqual([...indices.map(Number)].sort((a, b) => a - b));
    parsed.set(`${indices.join(',')},${columns[2 * numWay]}`, columns[2 * numWay + 1]);
  }
  return parsed;
}

beforeAll(() => {
  writePlinkFileset(prefix, dosages, NUM_SAMPLE);
  cli(['prepare', prefix, '--out', join(workDir, 'plain.packed')]);
  cli(['prepare', `${prefix}.bed`, '--out', join(workDir, 'shuffled.packed'), '--permute', '99']);
  cli(['run', '--input', join(workDir, 'plain.packed'), '--sparse', '--output', join(workDir, 'plain'), '--npv', '2']);
  cli(['run', '--input', join(workDir, 'shuffled.packed'), '--sparse', '--output', join(workDir, 'shuffled'), '--npv', '3']);
  cli(['run', '--input', prefix, '--sparse', '--way', '3', '--output', join(workDir, 'three'), '--npv', '2']);
  cli(['run', '--input', join(workDir, 'shuffled.packed'), '--sparse', '--way', '3', '--output', join(workDir, 'three-shuffled')]);
});

const filesOf = (stub: string, numRanks: number): string[] =>
  Array.from({ length: numRanks }, (_, rank) => join(workDir, `${stub}_${rank}.bin`));

describe('dump with SNP names', () => {
  it('prints every pair with its SNP IDs and the naive value, permuted or not', () => {
    const expected = naiveLines(2);
    expect(parseNamedDump(cli(['dump', ...filesOf('plain', 2)]), 2)).toEqual(expected);
    expect(parseNamedDump(cli(['dump', ...filesOf('shuffled', 3)]), 2)).toEqual(expected);
  });

  it('takes the way and names of 3-way runs (converted on the fly, or shuffled) from their run-info files', () => {
    const expected = naiveLines(3);
    expect(parseNamedDump(cli(['dump', ...filesOf('three', 2)]), 3)).toEqual(expected);
    expect(parseNamedDump(cli(['dump', ...filesOf('three-shuffled', 1)]), 3)).toEqual(expected);
  });

  it('prints vector indices without names when given no sidecar and none is found', () => {
    const plain = cli(['dump', '--sidecar', join(workDir, 'plain.packed.json'), filesOf('plain', 2)[0]]);
    expect(plain.split('\n')[1].split('\t')).toHaveLength(6);
  });
});

describe('top', () => {
  it('lists the k largest values with names, ties by SNP indices, the same for any vector order', () => {
    const ranked = [...naiveLines(2)].sort(([keyA, a], [keyB, b]) => Number(b) - Number(a) ||
      keyA.split(',').slice(0, 2).map(Number).reduce((d, x, w) => d || x - Number(keyB.split(',')[w]), 0) ||
      (keyA < keyB ? -1 : 1));
    const top = cli(['top', '-k', '7', ...filesOf('shuffled', 3)]).trim().split('\n');
    expect(top[0]).toBe('i\tj\tsnp_i\tsnp_j\tentry\tvalue');
    expect([...parseNamedDump(top.slice(1).join('\n'), 2, { withHeader: false })]).toEqual(ranked.slice(0, 7));
    expect(cli(['top', '-k', '7', ...filesOf('plain', 2)])).toBe(cli(['top', '-k', '7', ...filesOf('shuffled', 3)]));
  });

  it('filters by value range and entry', () => {
    const values = [...naiveLines(2)].filter(([key, value]) => key.endsWith(',11') && Number(value) >= 0.3 && Number(value) <= 0.5);
    const out = cli(['top', '-k', '0', '--min', '0.3', '--max', '0.5', '--entry', '11', '--no-header', ...filesOf('plain', 2)]);
    const parsed = parseNamedDump(out, 2, { withHeader: false });
    expect(parsed.size).toBe(values.length);
    expect(values.length).toBeGreaterThan(0);
    for (const [key, value] of values) expect(parsed.get(key)).toBe(value);
  });

  it('refuses an entry of the wrong length', () => {
    const outcome = runCli(['top', '--entry', '101', ...filesOf('plain', 2)]);
    expect(outcome.status).toBe(1);
    expect(outcome.stderr).toBe('snptally: --entry must be 2 bits of 0 and 1, got "101"\n');
  });
});

describe('merge', () => {
  it('concatenates the rank files and keeps the names reachable', () => {
    const merged = join(workDir, 'merged.bin');
    expect(cli(['merge', ...filesOf('shuffled', 3), '--out', merged])).toMatch(/^merged 3 files, 364 records/);
    expect(cli(['dump', merged])).toBe(cli(['dump', ...filesOf('shuffled', 3)]));
    expect(cli(['top', merged])).toBe(cli(['top', ...filesOf('plain', 2)]));
    const again = runCli(['merge', ...filesOf('shuffled', 3), '--out', merged]);
    expect(again.status).toBe(1);
    expect(again.stderr).toMatch(/merged\.bin exists already; use --force/);
  });
});

describe('report', () => {
  it('writes one self-contained HTML page with a histogram per entry and the strongest named pairs', () => {
    const page = join(workDir, 'report.html');
    cli(['report', join(workDir, 'shuffled'), '--out', page, '--top', '5']);
    const html = readFileSync(page, 'utf8');
    expect(html.match(/<svg /g)).toHaveLength(4);
    for (const entry of ['00', '01', '10', '11']) expect(html).toContain(`entry ${entry} (${(NUM_SNP * (NUM_SNP - 1)) / 2} kept values)`);
    expect(html).not.toMatch(/<script|<link|src=|url\(/);
    expect(html.replaceAll('http://www.w3.org/2000/svg', '')).not.toContain('http');
    const best = cli(['top', '-k', '1', '--no-header', ...filesOf('plain', 2)]).split('\t');
    expect(html).toContain(`<td>${best[2]}</td><td>${best[3]}</td>`);
    expect(html).toContain('shuffled, seed 99 (mapped back)');
  });

  it('says where the run-info file should be when there is none', () => {
    const outcome = runCli(['report', join(workDir, 'nothing'), '--out', join(workDir, 'x.html')]);
    expect(outcome.status).toBe(1);
    expect(outcome.stderr).toMatch(/^snptally: no run-info file for .*nothing \(expected .*nothing\.run\.json/);
  });
});
