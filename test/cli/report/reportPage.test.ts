// `snptally report` page content against values computed here from the run's own files: the LD-decay bins and the
// heatmap's window from the metrics records and the .bim positions, the histogram bars from the --histograms file;
// only the parameters of the metric; one line for each panel that is not drawn.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../cliHarness.js';
import { writeLdFixture, type LdFixture } from './ldFixture.js';

const workDir = mkdtempSync(join(tmpdir(), 'snptally-report-page-'));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));
const prefix = join(workDir, 'set');
let fixture: LdFixture;

function cli(args: readonly string[]): string {
  const outcome = runCli(args);
  expect(outcome.stderr).toBe('');
  expect(outcome.status).toBe(0);
  return outcome.stdout;
}

/** Runs `run ARGS --out STUB`, then `report STUB`; the page's HTML. */
function reportOf(stub: string, runArgs: readonly string[]): string {
  cli(['run', ...runArgs, '--out', join(workDir, stub)]);
  cli(['report', join(workDir, stub), '--out', join(workDir, `${stub}.html`)]);
  return readFileSync(join(workDir, `${stub}.html`), 'utf8');
}

/** Pairs of a 2-way metrics file read as SPEC §7 lays it out: two uint32 coordinates 2·G + E, a float32 value. */
function recordsOf(file: string): Array<{ low: number; high: number; value: number }> {
  const bytes = readFileSync(file);
  const records: Array<{ low: number; high: number; value: number }> = [];
  for (let at = 0; at < bytes.length; at += 12) {
    const a = bytes.readUInt32LE(at) >>> 1;
    const b = bytes.readUInt32LE(at + 4) >>> 1;
    records.push({ low: Math.min(a, b), high: Math.max(a, b), value: bytes.readFloatLE(at + 8) });
  }
  return records;
}

const cellsOf = (row: string): string[] => [...row.matchAll(/<t[dh][^>]*>([^<]*)<\/t[dh]>/g)].map((match) => match[1]);

let ldPage: string;
beforeAll(() => {
  fixture = writeLdFixture(prefix, { numSnp: 300, numSample: 200, chromosomeOneSnps: 180, seed: 5 });
  ldPage = reportOf('ld', ['--metric', 'r2', '--bfile', prefix, '--threshold', '0.1', '--histograms', join(workDir, 'h.tsv')]);
});

describe('report of a r² run with --histograms', () => {
  it('plots every value of the histogram file in its bins, on a log scale, with the threshold marked', () => {
    expect(ldPage).toContain('Every value of the run (44850 pairs), before any threshold');
    expect(ldPage).toContain('count (log scale)');
    expect(ldPage).toContain('threshold 0.1</text>');
    const rows = readFileSync(join(workDir, 'h.tsv'), 'utf8').trimEnd().split('\n').slice(1).map((line) => line.split('\t').map(Number));
    const bars = [...ldPage.matchAll(/<title>\[([\d.]+), ([\d.]+)\): (\d+)<\/title>/g)].map((m) => [Number(m[1]), Number(m[2]), Number(m[3])]);
    expect(bars.length).toBeGreaterThan(50);
    // Every bucket of the file in exactly one bar (bucket lower bounds, 0.001 apart, inside [lo, hi)).
    for (const [lo, hi, count] of bars) {
      const inBar = rows.filter(([min]) => min >= lo - 1e-9 && min < hi - 1e-9).reduce((sum, row) => sum + row[1], 0);
      expect(inBar).toBe(count);
    }
    expect(bars.reduce((sum, bar) => sum + bar[2], 0)).toBe(rows.reduce((sum, row) => sum + row[1], 0));
  });

  it('draws the LD-decay bins of the kept same-chromosome pairs: pairs, mean and median per distance bin', () => {
    const table = ldPage.slice(ldPage.indexOf('<table class="decay">'), ldPage.indexOf('</table>', ldPage.indexOf('<table class="decay">')));
    const rows = table.split('</tr>').map(cellsOf).filter((cells) => cells.length === 5);
    expect(rows[0]).toEqual(['from (bp)', 'to (bp)', 'pairs', 'mean r²', 'median r²']);
    const bins = rows.slice(1).map((cells) => cells.map(Number));
    const width = bins[0][1] - bins[0][0];
    const byBin = new Map<number, number[]>();
    for (const { low, high, value } of recordsOf(join(workDir, 'ld_0.bin'))) {
      if (fixture.chrom[low] !== fixture.chrom[high]) continue;
      const bin = Math.floor(Math.abs(fixture.pos[high] - fixture.pos[low]) / width);
      byBin.set(bin, [...(byBin.get(bin) ?? []), value]);
    }
    const expected = [...byBin.keys()].sort((a, b) => a - b).map((bin) => {
      const values = [...(byBin.get(bin) ?? [])].sort((a, b) => a - b);
      const n = values.length;
      const median = n % 2 === 1 ? values[(n - 1) / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
      return [bin * width, (bin + 1) * width, n, values.reduce((sum, v) => sum + v, 0) / n, median];
    });
    expect(bins.map((bin) => bin.slice(0, 3))).toEqual(expected.map((bin) => bin.slice(0, 3)));
    bins.forEach((bin, b) => {
      expect(Math.abs(bin[3] - expected[b][3])).toBeLessThanOrEqual(5e-5);
      expect(Math.abs(bin[4] - expected[b][4])).toBeLessThanOrEqual(5e-5);
    });
    expect(ldPage).toContain(`with both SNPs on one chromosome (${expected.reduce((sum, bin) => sum + bin[2], 0)} pairs)`);
  });

  it('draws the heatmap of the first window of ≤ 200 SNPs on one chromosome with the most kept pairs, each kept pair once', () => {
    const records = recordsOf(join(workDir, 'ld_0.bin'));
    let best = { start: -1, end: -1, numPairs: 0 };
    for (const [first, end] of [[0, 180], [180, 300]]) {
      for (let start = first; start <= Math.max(first, end - 200); start++) {
        const stop = Math.min(start + 200, end);
        const numPairs = records.filter(({ low, high }) => low >= start && high < stop).length;
        if (numPairs > best.numPairs) best = { start, end: stop, numPairs };
      }
    }
    expect(ldPage).toContain(`${best.end - best.start} consecutive SNPs, rs${best.start} (${fixture.chrom[best.start]}:${fixture.pos[best.start]}) ` +
      `to rs${best.end - 1} (${fixture.chrom[best.end - 1]}:${fixture.pos[best.end - 1]})`);
    expect(ldPage).toContain(`the first with the most kept pairs (${best.numPairs})`);
    const cells = [...ldPage.matchAll(/<title>rs(\d+) – rs(\d+): r² ([\d.e-]+)<\/title><\/polygon>/g)];
    expect(cells).toHaveLength(best.numPairs);
    const valueOf = new Map(records.map(({ low, high, value }) => [`${low},${high}`, value]));
    for (const [, a, b, shown] of cells) expect(Number(shown)).toBeCloseTo(valueOf.get(`${a},${b}`) ?? NaN, 3);
    expect(ldPage).toContain('no record: r² ≤ 0.1, below the threshold');
  });

  it('lists only the parameters of r², and no entry column', () => {
    expect(ldPage).toContain('<th>threshold</th>');
    expect(ldPage).toContain('<th>histogram of all values</th>');
    for (const label of ['p', 'multiplier', 'sparse (missing calls skipped)', 'entry']) expect(ldPage).not.toContain(`<th>${label}</th>`);
    expect(ldPage).not.toMatch(/<script|<link|src=|url\(/);
  });
});

describe('report without a recorded histogram, and of other runs', () => {
  it('says the histogram was not recorded, plots the kept r² values in one panel and says why there is no other', () => {
    const page = reportOf('kept', ['--metric', 'r2', '--bfile', prefix, '--threshold', '0.3']);
    expect(page).toContain('The run recorded no histogram of all its values (run --histograms FILE records one)');
    const keptPairs = recordsOf(join(workDir, 'kept_0.bin')).length;
    expect(page).toContain(`r² (${keptPairs} kept values)`);
    expect(page.match(/aria-label="r² \(/g)).toHaveLength(1);
    expect(page).toMatch(/No panel for entries (\d\d, ){2}\d\d: no records \(r² has one value per pair\)\./);
  });

  it('draws no decay plot without positions, in one line, and no LD plots for CCC, whose parameters p and multiplier it lists', () => {
    const synthetic = reportOf('synthetic', ['--metric', 'r2', '--vectors', '40', '--fields', '60', '--threshold', '0.05']);
    expect(synthetic).toContain('LD decay not drawn: the run has no sidecar with positions');
    expect(synthetic).toMatch(/\d+ consecutive SNPs, 0 to \d+: of the windows/);
    const ccc = reportOf('ccc', ['--bfile', prefix, '--sparse', '--threshold', '0.7']);
    expect(ccc).not.toContain('LD heatmap');
    for (const label of ['p', 'multiplier', 'entry']) expect(ccc).toContain(`<th>${label}</th>`);
    expect(ccc.match(/aria-label="entry \d\d \(/g)?.length).toBeGreaterThan(0);
  });
});
