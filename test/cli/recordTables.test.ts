// dump and top tables: --format ld against plink1.9's own .ld of the same fileset (the same lines; values as PLINK
// prints the float32 record, so within float32 rounding of PLINK's double), --format tsv of 3-way CCC with the loci
// of the .bim, sorting by position and by value against a naive sort, the bounded-memory sort against the in-memory
// one, and .gz output, staged and refused over an existing file without --force.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dumpFiles } from '../../src/cli/dumpCommand.js';
import { readRunInfo } from '../../src/cli/runInfoFile.js';
import { SnpNaming } from '../../src/cli/snpNaming.js';
import { TextOutput } from '../../src/io/index.js';
import { runCli } from './cliHarness.js';
import { fixtureLocus, runPlink, writeLdFixture } from './plinkLdFixture.js';

const dir = mkdtempSync(join(tmpdir(), 'snptally-tables-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const data = join(dir, 'd');
const NUM_SNP = 45;
const NUM_SAMPLE = 80;

function cli(args: readonly string[]): string {
  const outcome = runCli(args);
  expect(outcome.stderr).toBe('');
  expect(outcome.status).toBe(0);
  return outcome.stdout;
}

beforeAll(() => {
  writeLdFixture(data, NUM_SAMPLE, NUM_SNP, 0.02);
  runPlink(['--bfile', data, '--r2', 'inter-chr', '--ld-window-r2', '0', '--out', join(dir, 'plink')]);
  cli(['run', '--metric', 'r2', '--bfile', data, '--npv', '2', '--out', join(dir, 'r2')]);
  cli(['run', '--metric', 'ccc', '--way', '3', '--sparse', '--bfile', data, '--npv', '2', '--threshold', '0.2', '--out', join(dir, 'ccc3')]);
});

const r2Files = (): string[] => [join(dir, 'r2_0.bin'), join(dir, 'r2_1.bin')];

describe('dump --format ld', () => {
  it('prints plink1.9\'s .ld lines, values within float32 rounding of PLINK\'s', () => {
    const theirs = readFileSync(join(dir, 'plink.ld'), 'latin1').split('\n');
    const ours = cli(['dump', '--format', 'ld', ...r2Files()]).split('\n');
    expect(ours).toHaveLength(theirs.length);
    expect(ours[0]).toBe(theirs[0]);
    let identical = 0;
    for (let k = 1; k < theirs.length - 1; k++) {
      // Everything up to the R2 column is the same text; the value is PLINK's 6 digits of the float32.
      expect(ours[k].slice(0, -13)).toBe(theirs[k].slice(0, -13));
      const [mine, plinks] = [Number(ours[k].slice(-13)), Number(theirs[k].slice(-13))];
      expect(Math.abs(mine - plinks)).toBeLessThanOrEqual(plinks * (2 ** -23 + 1e-5));
      if (ours[k] === theirs[k]) identical++;
    }
    expect(identical).toBeGreaterThan(0.9 * (theirs.length - 2));
  });

  it('refuses ld for CCC records and tsv without loci, in one line', () => {
    const ccc = runCli(['dump', '--format', 'ld', join(dir, 'ccc3_0.bin'), join(dir, 'ccc3_1.bin')]);
    expect(ccc.status).toBe(1);
    expect(ccc.stderr).toBe('snptally: --format ld is PLINK\'s r² table: these are 3-way ccc records (use --format tsv)\n');
  });
});

describe('dump --format tsv', () => {
  it('prints CHR/BP/SNP of each SNP of a triple from the .bim, the entry and the value of the records format', () => {
    const files = [join(dir, 'ccc3_0.bin'), join(dir, 'ccc3_1.bin')];
    const records = cli(['dump', '--no-header', ...files]).trimEnd().split('\n');
    const [header, ...rows] = cli(['dump', '--format', 'tsv', ...files]).trimEnd().split('\n');
    expect(header).toBe('CHR_A\tBP_A\tSNP_A\tCHR_B\tBP_B\tSNP_B\tCHR_C\tBP_C\tSNP_C\tENTRY\tCCC');
    expect(rows.length).toBe(records.length);
    expect(rows.length).toBeGreaterThan(10);
    rows.forEach((row, k) => {
      const record = records[k].split('\t');
      const loci = [0, 1, 2].flatMap((w) => {
        const locus = fixtureLocus(Number(record[w]), NUM_SNP);
        return [locus.chromosome, String(locus.position), locus.id];
      });
      expect(row).toBe([...loci, record[6], record[7]].join('\t'));
    });
  });
});

describe('sorting', () => {
  it('sorts by position (chromosomes in file order 1, 5, 2; then bp) by default and by value with --sort value', () => {
    const byPosition = cli(['dump', '--format', 'tsv', '--no-header', ...r2Files()]).trimEnd().split('\n').map((line) => line.split('\t'));
    expect(byPosition).toHaveLength((NUM_SNP * (NUM_SNP - 1)) / 2);
    const chromosomeOrder = ['1', '5', '2'];
    const key = (row: string[]): number[] => [chromosomeOrder.indexOf(row[0]), Number(row[1]), chromosomeOrder.indexOf(row[3]), Number(row[4])];
    const naive = [...byPosition].sort((a, b) => {
      const [x, y] = [key(a), key(b)];
      const first = x.findIndex((v, k) => v !== y[k]);
      return first < 0 ? 0 : x[first] - y[first];
    });
    expect(byPosition).toEqual(naive);
    const byValue = cli(['dump', '--format', 'tsv', '--no-header', '--sort', 'value', ...r2Files()]).trimEnd().split('\n');
    const values = byValue.map((line) => Number(line.split('\t')[7]));
    for (let k = 1; k < values.length; k++) expect(values[k - 1] >= values[k] || Number.isNaN(values[k])).toBe(true);
    expect([...byValue].sort()).toEqual(byPosition.map((row) => row.join('\t')).sort());
  });

  it('gives the same table when the sort spills to scratch runs (a few records per chunk)', async () => {
    const info = readRunInfo(join(dir, 'r2.run.json'));
    const naming = SnpNaming.forRun(info, undefined);
    const texts: string[] = [];
    for (const rowsPerChunk of [1 << 20, 50]) {
      const path = join(dir, `spill-${rowsPerChunk}.ld`);
      const output = await TextOutput.toFile(path, { force: false });
      await dumpFiles(r2Files(), 2, naming, output, { format: 'ld', order: 'position', header: true, metric: 'r2', rowsPerChunk, scratchDirectory: dir });
      await output.commit();
      texts.push(readFileSync(path, 'latin1'));
    }
    expect(texts[1]).toBe(texts[0]);
    expect(readdirSync(dir).filter((name) => name.startsWith('snptally-sort-'))).toEqual([]);
  });

  it('top prints the same lines as dump: -k 0 --sort position equals dump; the first k by value equal dump --sort value\'s', () => {
    expect(cli(['top', '-k', '0', '--sort', 'position', '--format', 'ld', ...r2Files()])).toBe(cli(['dump', '--format', 'ld', ...r2Files()]));
    const top = cli(['top', '-k', '7', '--format', 'tsv', ...r2Files()]).split('\n');
    const dump = cli(['dump', '--format', 'tsv', '--sort', 'value', ...r2Files()]).split('\n');
    expect(top.slice(0, 8)).toEqual(dump.slice(0, 8));
  });
});

describe('--out', () => {
  it('writes .gz when the name ends in .gz, refuses an existing file without --force, leaves no temporary file', () => {
    const path = join(dir, 'table.ld.gz');
    expect(runCli(['dump', '--format', 'ld', '--out', path, ...r2Files()]).status).toBe(0);
    expect(gunzipSync(readFileSync(path)).toString('latin1')).toBe(cli(['dump', '--format', 'ld', ...r2Files()]));
    const again = runCli(['dump', '--out', path, ...r2Files()]);
    expect(again.status).toBe(1);
    expect(again.stderr).toBe(`snptally: ${path} exists: give --force to replace it\n`);
    expect(runCli(['top', '--out', path, '--force', ...r2Files()]).status).toBe(0);
    expect(gunzipSync(readFileSync(path)).toString('utf8').split('\n')[0]).toBe('i\tj\tsnp_i\tsnp_j\tentry\tvalue');
    expect(readdirSync(dir).filter((name) => name.endsWith('.tmp'))).toEqual([]);
    expect(existsSync(join(dir, 'table.ld'))).toBe(false);
  });
});
