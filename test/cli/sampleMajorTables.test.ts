// Records of a sample-major run (`prepare --individuals`, vectors = samples) name samples, not SNPs: `dump` prints
// sample IDs and, as `--format tsv`, PLINK's FID/IID columns, in sample order; PLINK's `.ld` table and LD windows,
// which are about SNPs, are refused with one line. The expected names come from the .fam the test writes.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readMetricsFileRecords } from '../../src/io/index.js';
import { runCli } from './cliHarness.js';
import { writePedigreeFileset } from '../helpers/kingPedigree.js';

const dir = mkdtempSync(join(tmpdir(), 'sample-major-tables-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('dump and top of sample-major records', () => {
  const packedPath = join(dir, 'pedigree.packed');
  const stub = join(dir, 'king');
  let fam: { fid: string; iid: string }[] = [];
  beforeAll(() => {
    writePedigreeFileset(join(dir, 'pedigree'), { numFamilies: 2, numUnrelated: 5, numSnp: 400, missingRate: 0.01, seed: 3 });
    fam = readFileSync(join(dir, 'pedigree.fam'), 'utf8').trim().split('\n').map((line) => {
      const [fid, iid] = line.split(/\s+/);
      return { fid, iid };
    });
    expect(runCli(['prepare', '--bfile', join(dir, 'pedigree'), '--individuals', '--out', packedPath]).status).toBe(0);
    const run = runCli(['run', '--metric', 'king', '--input', packedPath, '--threshold', '0.1', '--out', stub]);
    expect(run.status, run.stderr).toBe(0);
  });

  it('records name the samples of each pair', () => {
    const records = [...readMetricsFileRecords(`${stub}_0.bin`, 2)];
    expect(records.length).toBeGreaterThan(0);
    const dump = runCli(['dump', `${stub}_0.bin`, '--sort', 'file']);
    expect(dump.status, dump.stderr).toBe(0);
    const lines = dump.stdout.trim().split('\n');
    expect(lines[0]).toBe('i\tj\tsample_i\tsample_j\tentry\tvalue');
    lines.slice(1).forEach((line, r) => {
      const [i, j, nameI, nameJ] = line.split('\t');
      const [a, b] = [records[r].coords[0] >> 1, records[r].coords[1] >> 1].sort((x, y) => x - y);
      expect([Number(i), Number(j)]).toEqual([a, b]);
      expect([nameI, nameJ]).toEqual([`${fam[a].fid}_${fam[a].iid}`, `${fam[b].fid}_${fam[b].iid}`]);
    });
  });

  it('--format tsv has FID and IID columns, rows in sample order', () => {
    const tsv = runCli(['dump', `${stub}_0.bin`, '--format', 'tsv']);
    expect(tsv.status, tsv.stderr).toBe(0);
    const lines = tsv.stdout.trim().split('\n');
    expect(lines[0]).toBe('FID_A\tIID_A\tFID_B\tIID_B\tENTRY\tKING');
    const indexOf = new Map(fam.map((sample, s) => [`${sample.fid}\t${sample.iid}`, s]));
    const pairs = lines.slice(1).map((line) => {
      const fields = line.split('\t');
      return [indexOf.get(`${fields[0]}\t${fields[1]}`)!, indexOf.get(`${fields[2]}\t${fields[3]}`)!];
    });
    for (const [a, b] of pairs) expect(a).toBeLessThan(b);
    const sorted = [...pairs].sort((x, y) => x[0] - y[0] || x[1] - y[1]);
    expect(pairs).toEqual(sorted);
  });

  it('refuses PLINK\'s .ld table and LD windows, which are about SNPs', () => {
    const ld = runCli(['dump', `${stub}_0.bin`, '--format', 'ld']);
    expect(ld.status).toBe(1);
    expect(ld.stderr).toMatch(/^snptally: --format ld is PLINK's r² table between SNPs: these records are between samples .*\n$/);
    const windowed = runCli(['run', '--metric', 'king', '--input', packedPath, '--threshold', '0.1', '--ld-window-kb', '100', '--out', join(dir, 'w')]);
    expect(windowed.status).toBe(1);
    expect(windowed.stderr).toBe(`snptally: ${packedPath} was prepared with --individuals: its vectors are samples, and LD windows run along the genome (drop --ld-window / --ld-window-kb)\n`);
  });
});
