// VCF reader: GT decoding (phased, unphased, missing), plain/gzip/BGZF alike, bad sites skipped or refused, bad files.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { UserError } from '../../src/core/errors.js';
import { openVcf, type BadSite, type BadSitePolicy, type GenotypeSource } from '../../src/io/index.js';
import { bgzfBytes, patternedDosages, specCode, vcfText } from './genotypeFixtures.js';

const workDir = mkdtempSync(join(tmpdir(), 'snptally-vcf-'));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

interface Collected {
  ids: string[];
  codes: number[][];
  alleles: string[];
}

async function collect(source: GenotypeSource): Promise<Collected> {
  const out: Collected = { ids: [], codes: [], alleles: [] };
  const numSample = source.sampleIds.length;
  for await (const row of source.rows()) {
    out.ids.push(row.snp.id);
    out.alleles.push(`${row.snp.allele1}/${row.snp.allele2}`);
    out.codes.push(Array.from({ length: numSample }, (_, i) => (row.packed[i >> 2] >> ((i & 3) * 2)) & 3));
  }
  return out;
}

async function readVcf(name: string, content: string | Uint8Array, policy: BadSitePolicy = 'error') {
  const path = join(workDir, name);
  writeFileSync(path, content);
  const skipped: BadSite[] = [];
  const source = await openVcf(path, { onBadSite: policy, reportSkipped: (site) => skipped.push(site) });
  return { source, skipped, rows: await collect(source) };
}

async function expectUserError(promise: Promise<unknown>, pattern: RegExp): Promise<void> {
  const error = await promise.then(() => null, (caught: unknown) => caught);
  expect(error).toBeInstanceOf(UserError);
  expect((error as Error).message).toMatch(pattern);
  expect((error as Error).message).not.toContain('\n');
}

const dosages = patternedDosages(40, 11, 4);
const text = vcfText(dosages, 11);

describe('VCF reader', () => {
  it('counts ALT copies (allele 1) of phased, unphased and missing diploid calls', async () => {
    const { source, rows } = await readVcf('plain.vcf', text);
    expect(source.sampleIds).toEqual(Array.from({ length: 11 }, (_, i) => `s${i}`));
    expect(rows.ids).toEqual(dosages.map((_, s) => `rs${s}`));
    expect(rows.alleles.every((pair) => pair === 'G/A')).toBe(true);
    expect(rows.codes).toEqual(dosages.map((row) => row.map(specCode)));
  });

  it('decodes half-missing calls, GT after other FORMAT keys, and calls with extra fields alike', async () => {
    const header = ['#CHROM', 'POS', 'ID', 'REF', 'ALT', 'QUAL', 'FILTER', 'INFO', 'FORMAT', 'a', 'b', 'c', 'd', 'e'].join('\t');
    const content = [
      header,
      ['1', '1', '.', 'C', 'T', '.', '.', '.', 'DP:GT', '7:0/1', '7:./1', '7:1|1', '7:.', '7:0|0'].join('\t'),
      ['1', '2', 'x', 'C', 'T', '.', '.', '.', 'GT:DP', '1/.:5', '0|1:5', '.:5', '1/1', '0/0:3'].join('\t'),
    ].join('\n');
    const { rows } = await readVcf('forms.vcf', content);
    expect(rows.ids).toEqual(['1:1:C:T', 'x']);
    expect(rows.codes).toEqual([[0b01, 0b10, 0b11, 0b10, 0b00], [0b10, 0b01, 0b10, 0b11, 0b00]]);
  });

  it('reads gzip and BGZF (many gzip members) to the same rows as plain text', async () => {
    const plain = (await readVcf('same.vcf', text)).rows;
    const bgzf = bgzfBytes(text, 300);
    expect(bgzf.length).toBeGreaterThan(0);
    expect((await readVcf('same.vcf.gz', gzipSync(text))).rows).toEqual(plain);
    expect((await readVcf('same-bgzf.vcf.gz', bgzf)).rows).toEqual(plain);
  });

  it('reads lines longer than the reader\'s chunks (300,000 samples), with CRLF endings, plain and gzip', async () => {
    const numSample = 300_000;
    const many = patternedDosages(3, numSample, 5);
    const crlf = vcfText(many, numSample).split('\n').join('\r\n');
    const expected = many.map((row) => row.map(specCode));
    for (const [name, content] of [['wide.vcf', crlf], ['wide.vcf.gz', gzipSync(crlf)]] as const) {
      const { source, rows } = await readVcf(name, content);
      expect(source.sampleIds).toHaveLength(numSample);
      expect(rows.ids).toEqual(['rs0', 'rs1', 'rs2']);
      expect(rows.codes).toEqual(expected);
    }
  });

  it('refuses a truncated compressed file, naming it', async () => {
    const bgzf = bgzfBytes(text, 300);
    await expectUserError(readVcf('cut.vcf.gz', bgzf.subarray(0, Math.floor(bgzf.length / 2))),
      /cannot decompress .*cut\.vcf\.gz after line \d+: the compressed data ends early/);
  });

  const badLines: ReadonlyArray<readonly [string, string, RegExp]> = [
    ['multi-allelic', '1\t5000\tmulti\tA\tG,T\t.\t.\t.\tGT' + '\t0/1'.repeat(11), /multi-allelic site \(ALT G,T\)/],
    ['haploid', '1\t5001\thap\tA\tG\t.\t.\t.\tGT' + '\t0/1'.repeat(10) + '\t1', /sample 11: non-diploid call GT "1"/],
    ['triploid', '1\t5002\ttri\tA\tG\t.\t.\t.\tGT\t0/0/1' + '\t0/1'.repeat(10), /sample 1: non-diploid call GT "0\/0\/1"/],
    ['allele 2 on a biallelic site', '1\t5003\tal2\tA\tG\t.\t.\t.\tGT' + '\t0/2'.repeat(11), /GT "0\/2" is not 0, 1 or \./],
    ['bad POS', '1\tx5\tpos\tA\tG\t.\t.\t.\tGT' + '\t0/1'.repeat(11), /POS "x5" is not a non-negative integer/],
    ['no GT', '1\t5004\tnogt\tA\tG\t.\t.\t.\tDP' + '\t3'.repeat(11), /no GT in FORMAT "DP"/],
  ];

  it.each(badLines)('skips a %s site with its line when asked, and refuses it by default', async (_name, line, reason) => {
    const withBad = vcfText(dosages.slice(0, 3), 11, [line, vcfText(dosages.slice(3, 4), 11).split('\n')[3]]);
    const skipping = await readVcf('bad-skip.vcf', withBad, 'skip');
    expect(skipping.rows.ids).toEqual(['rs0', 'rs1', 'rs2', 'rs0']);
    expect(skipping.skipped).toHaveLength(1);
    expect(skipping.skipped[0].line).toBe(7);
    expect(skipping.skipped[0].reason).toMatch(reason);
    await expectUserError(readVcf('bad-error.vcf', withBad, 'error'), new RegExp(`bad-error\\.vcf line 7: .*${reason.source}`));
  });

  it('refuses a data line whose sample count differs from the header, whatever the policy', async () => {
    const lines = text.split('\n');
    lines[5] = lines[5].split('\t').slice(0, -2).join('\t');
    await expectUserError(readVcf('ragged.vcf', lines.join('\n'), 'skip'),
      /ragged\.vcf line 6: 9 sample columns, but the header names 11 samples/);
  });

  it('refuses a file without a #CHROM header and a header without samples', async () => {
    await expectUserError(readVcf('noheader.vcf', '##fileformat=VCFv4.2\n1\t5\t.\tA\tG\n'),
      /noheader\.vcf line 2: expected the #CHROM header line/);
    await expectUserError(readVcf('nosamples.vcf', '#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\tFORMAT\n'),
      /nosamples\.vcf line 1: header must be tab-separated/);
  });
});
