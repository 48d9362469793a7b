// Real-data path end to end: PLINK 1.9 makes a fileset and a VCF of it; both, and prepared files, give the
// checksum that the naive reference computes from PLINK's own allele-1 counts (.traw, COUNTED = A1).
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_PARAM, defaultMultiplier, type MetricSpec } from '../../src/core/types.js';
import { naiveMetrics } from '../helpers/naiveMetrics.js';
import { runCli } from './cliHarness.js';

const workDir = mkdtempSync(join(tmpdir(), 'snptally-realdata-'));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

const NUM_SAMPLE = 37;
const NUM_SNP = 29;
const prefix = join(workDir, 'dummy');

function plink(args: readonly string[]): void {
  execFileSync('plink1.9', [...args, '--silent', '--seed', '11'], { cwd: workDir, stdio: 'pipe' });
}

/** SPEC codes from PLINK's additive export: .traw rows are SNPs, COUNTED is the counted allele. */
function codesFromTraw(): { codes: number[][]; counted: string[] } {
  const lines = readFileSync(`${prefix}.traw`, 'utf8').trim().split('\n').slice(1);
  const rows = lines.map((line) => line.split('\t'));
  const codes = rows.map((columns) => columns.slice(6).map((text) => (text === 'NA' ? 0b10 : [0b00, 0b01, 0b11][Number(text)])));
  return { codes, counted: rows.map((columns) => columns[4]) };
}

function checksumOf(args: readonly string[]): string {
  const outcome = runCli(['run', ...args, '--json', '--threads', '1']);
  expect(outcome.stderr).toBe('');
  expect(outcome.status).toBe(0);
  return JSON.parse(outcome.stdout).checksum as string;
}

function naiveChecksum(codes: number[][], numWay: 2 | 3): string {
  const spec: MetricSpec = { metric: 'ccc', numWay, sparse: true, param: DEFAULT_PARAM, multiplier: defaultMultiplier('ccc') };
  return naiveMetrics(spec, codes.length, codes[0].length, (v, f) => codes[v][f]).checksum;
}

beforeAll(() => {
  plink(['--dummy', String(NUM_SAMPLE), String(NUM_SNP), '0.05', '--make-bed', '--out', 'dummy']);
  plink(['--bfile', 'dummy', '--recode', 'vcf', '--out', 'dummy']);
  plink(['--bfile', 'dummy', '--recode', 'A-transpose', '--out', 'dummy']);
  writeFileSync(`${prefix}.vcf.gz`, gzipSync(readFileSync(`${prefix}.vcf`)));
});

describe('PLINK and VCF inputs', () => {
  it('PLINK counts A1 in .traw, and the VCF has A1 as ALT, A2 as REF', () => {
    const bim = readFileSync(`${prefix}.bim`, 'utf8').trim().split('\n').map((line) => line.split('\t'));
    expect(codesFromTraw().counted).toEqual(bim.map((columns) => columns[4]));
    const sites = readFileSync(`${prefix}.vcf`, 'utf8').split('\n').filter((line) => /^[^#]/.test(line)).map((line) => line.split('\t'));
    expect(sites.map((columns) => `${columns[4]}/${columns[3]}`)).toEqual(bim.map((columns) => `${columns[4]}/${columns[5]}`));
  });

  it.each([2, 3] as const)('gives the naive checksum of PLINK\'s counts for .bed, prefix, VCF, VCF.gz and prepared files (%i-way)', (numWay) => {
    const expected = naiveChecksum(codesFromTraw().codes, numWay);
    const way = ['--way', String(numWay), '--sparse'];
    expect(checksumOf(['--input', `${prefix}.bed`, ...way])).toBe(expected);
    expect(checksumOf(['--input', prefix, ...way, '--npv', '2', '--npf', '2'])).toBe(expected);
    expect(checksumOf(['--input', `${prefix}.vcf`, ...way])).toBe(expected);
    expect(checksumOf(['--input', `${prefix}.vcf.gz`, ...way, '--npv', '3'])).toBe(expected);
    const packed = join(workDir, `prepared${numWay}.packed`);
    const prepared = runCli(['prepare', `${prefix}.vcf`, '--out', packed, '--force']);
    expect(prepared.status).toBe(0);
    expect(checksumOf(['--input', packed, ...way, '--npf', '3'])).toBe(expected);
  });

  it('prepares the .bed and the VCF into byte-identical packed files', () => {
    const fromBed = runCli(['prepare', prefix, '--out', join(workDir, 'b.packed'), '--json']);
    const fromVcf = runCli(['prepare', `${prefix}.vcf.gz`, '--out', join(workDir, 'v.packed'), '--json']);
    expect(fromBed.status).toBe(0);
    expect(fromVcf.status).toBe(0);
    const bed = JSON.parse(fromBed.stdout);
    const vcf = JSON.parse(fromVcf.stdout);
    expect([bed.numVector, bed.numField]).toEqual([NUM_SNP, NUM_SAMPLE]);
    expect(vcf.packedSha256).toBe(bed.packedSha256);
    expect(bed.numMissingCalls).toBeGreaterThan(0);
  });

  it('refuses a dense run over data with missing calls, and sizes that contradict the input', () => {
    const dense = runCli(['run', '--input', prefix]);
    expect(dense.status).toBe(1);
    expect(dense.stderr).toMatch(/^snptally: .*dummy has \d+ missing calls: add --sparse/);
    const wrongSize = runCli(['run', '--input', prefix, '--sparse', '--vectors', '5']);
    expect(wrongSize.status).toBe(1);
    expect(wrongSize.stderr).toBe(`snptally: --vectors 5 does not match the input, which has ${NUM_SNP}\n`);
  });
});

describe('bad VCF sites through the CLI', () => {
  it('skips a multi-allelic site with --on-bad-site skip (one stderr line) and gives the checksum without it', () => {
    const lines = readFileSync(`${prefix}.vcf`, 'utf8').split('\n');
    const firstData = lines.findIndex((line) => /^[^#]/.test(line));
    const multi = lines[firstData].split('\t');
    multi[2] = 'multi';
    multi[4] = `${multi[4]},T`;
    const withMulti = [...lines.slice(0, firstData + 1), multi.join('\t'), ...lines.slice(firstData + 1)];
    const path = join(workDir, 'multi.vcf');
    writeFileSync(path, withMulti.join('\n'));
    const refused = runCli(['run', '--input', path, '--sparse']);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(new RegExp(`^snptally: .*multi\\.vcf line ${firstData + 2}: multi-allelic site .*--on-bad-site skip`));
    const skipped = runCli(['run', '--input', path, '--sparse', '--on-bad-site', 'skip', '--json']);
    expect(skipped.status).toBe(0);
    expect(skipped.stderr).toBe(`snptally: skipped ${path} line ${firstData + 2}: multi-allelic site (ALT ${multi[4]}); only biallelic sites are read\n`);
    expect(JSON.parse(skipped.stdout).checksum).toBe(checksumOf(['--input', `${prefix}.vcf`, '--sparse']));
  });
});

describe('bad real-data files through the CLI', () => {
  function spoiledCopy(name: string): string {
    const copy = join(workDir, name);
    for (const extension of ['.bed', '.bim', '.fam']) copyFileSync(`${prefix}${extension}`, `${copy}${extension}`);
    return copy;
  }

  it.each([
    ['truncated .bed', (copy: string) => truncateSync(`${copy}.bed`, 3 + 10 * 10 + 4), /cut\.bed is truncated .*SNP record 11 .*is incomplete/],
    ['wrong magic', (copy: string) => writeFileSync(`${copy}.bed`, 'PK\u0003\u0004'), /cut\.bed byte 0: not a SNP-major PLINK 1 \.bed file/],
    ['.fam count', (copy: string) => writeFileSync(`${copy}.fam`, 'a b 0 0 1 1\n'), /cut\.bed does not match its \.bim\/\.fam/],
  ] as const)('exits 1 with one line for a %s', (_name, spoil, pattern) => {
    const copy = spoiledCopy('cut');
    spoil(copy);
    for (const command of [['prepare', copy, '--out', join(workDir, 'never.packed')], ['run', '--input', copy, '--sparse']]) {
      const outcome = runCli(command);
      expect(outcome.status).toBe(1);
      expect(outcome.stdout).toBe('');
      expect(outcome.stderr).toMatch(pattern);
      expect(outcome.stderr.trim().split('\n')).toHaveLength(1);
    }
  });

  it('exits 1 naming the line of a VCF record with the wrong number of samples', () => {
    const lines = readFileSync(`${prefix}.vcf`, 'utf8').split('\n');
    const firstData = lines.findIndex((line) => /^[^#]/.test(line));
    lines[firstData + 2] += '\t0/1';
    const path = join(workDir, 'ragged.vcf');
    writeFileSync(path, lines.join('\n'));
    const outcome = runCli(['run', '--input', path, '--sparse']);
    expect(outcome.status).toBe(1);
    expect(outcome.stderr).toBe(
      `snptally: ${path} line ${firstData + 3}: ${NUM_SAMPLE + 1} sample columns, but the header names ${NUM_SAMPLE} samples\n`);
  });
});
