// PLINK fileset reader: code mapping against an independent table, pad bits, and every bad-fileset error.
import { appendFileSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UserError } from '../../src/core/errors.js';
import { openPlinkFileset, plinkPathsOf, type GenotypeSource } from '../../src/io/index.js';
import { patternedDosages, specCode, writePlinkFileset } from './genotypeFixtures.js';

const workDir = mkdtempSync(join(tmpdir(), 'snptally-plink-'));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

async function collectRows(source: GenotypeSource): Promise<{ ids: string[]; codes: number[][]; missing: number[] }> {
  const ids: string[] = [];
  const codes: number[][] = [];
  const missing: number[] = [];
  for await (const row of source.rows()) {
    ids.push(row.snp.id);
    const numSample = source.sampleIds.length;
    codes.push(Array.from({ length: Math.ceil(numSample / 4) * 4 }, (_, i) => (row.packed[i >> 2] >> ((i & 3) * 2)) & 3));
    missing.push(row.numMissing);
  }
  return { ids, codes, missing };
}

async function expectUserError(promise: Promise<unknown>, pattern: RegExp): Promise<void> {
  const error = await promise.then(() => null, (caught: unknown) => caught);
  expect(error).toBeInstanceOf(UserError);
  expect((error as Error).message).toMatch(pattern);
  expect((error as Error).message).not.toContain('\n');
}

describe('PLINK fileset reader', () => {
  it.each([1, 4, 5, 7, 8])('maps every call of %i samples to SPEC codes and zeroes the pad fields', async (numSample) => {
    const dosages = patternedDosages(9, numSample, 5);
    const prefix = join(workDir, `ok${numSample}`);
    writePlinkFileset(prefix, dosages, numSample);
    const source = await openPlinkFileset(plinkPathsOf(prefix)!);
    expect(source.sampleIds).toEqual(Array.from({ length: numSample }, (_, i) => `fam${i}_ind${i}`));
    expect(source.numSnpKnown).toBe(9);
    const { ids, codes, missing } = await collectRows(source);
    expect(ids).toEqual(dosages.map((_, s) => `rs${s}`));
    dosages.forEach((row, s) => {
      const expected = [...row.map(specCode), ...new Array<number>(codes[s].length - numSample).fill(0)];
      expect(codes[s]).toEqual(expected);
      expect(missing[s]).toBe(row.filter((dosage) => dosage === null).length);
    });
  });

  it('accepts the prefix or the .bed name, and has no fileset for a name without .bed', () => {
    const prefix = join(workDir, 'ok5');
    expect(plinkPathsOf(prefix)).toEqual(plinkPathsOf(`${prefix}.bed`));
    expect(plinkPathsOf(join(workDir, 'absent'))).toBeNull();
  });

  it('splits .bim and .fam columns at runs of spaces and tabs, skipping blank lines and CRLF endings', async () => {
    const prefix = join(workDir, 'spaced');
    writePlinkFileset(prefix, patternedDosages(2, 3, 0), 3);
    writeFileSync(`${prefix}.bim`, '  1 \t rs_a\t0  11\tG T\r\n\n \t \n2\trs_b\t0\t22\t\tA  C  \n');
    writeFileSync(`${prefix}.fam`, 'f1\ti1 0 0 1 -9\n\n f2  i2\t0\t0\t2\t1 \r\nf3 i3 p m 1 2\n');
    const source = await openPlinkFileset(plinkPathsOf(prefix)!);
    expect(source.snps).toEqual([
      { chrom: '1', id: 'rs_a', pos: 11, allele1: 'G', allele2: 'T' },
      { chrom: '2', id: 'rs_b', pos: 22, allele1: 'A', allele2: 'C' },
    ]);
    expect(source.samples).toEqual([{ fid: 'f1', iid: 'i1' }, { fid: 'f2', iid: 'i2' }, { fid: 'f3', iid: 'i3' }]);
    expect(source.founders).toEqual([true, true, false]);
  });

  it('reads positions as Number would, and keeps each line\'s chromosome and alleles as written', async () => {
    const prefix = join(workDir, 'loci');
    writePlinkFileset(prefix, patternedDosages(6, 3, 0), 3);
    writeFileSync(`${prefix}.bim`, [
      '1 a 0 0011 A C', '1 b 0 999999999999999 C AT', '10 c 0 -5 AT T', '1 d 0 1e3 G G', 'X e 0 0x10 - .', '1 f 0 0 Tn N',
    ].join('\n'));
    const source = await openPlinkFileset(plinkPathsOf(prefix)!);
    expect(source.snps?.map((snp) => [snp.chrom, snp.pos, snp.allele1, snp.allele2])).toEqual([
      ['1', 11, 'A', 'C'], ['1', 999999999999999, 'C', 'AT'], ['10', -5, 'AT', 'T'], ['1', 1000, 'G', 'G'], ['X', 16, '-', '.'], ['1', 0, 'Tn', 'N'],
    ]);
  });

  it.each([['1.5'], ['rs7'], ['9007199254740993'], ['']])('refuses the .bim position "%s", naming the line', async (position) => {
    const prefix = join(workDir, 'bad-position');
    writePlinkFileset(prefix, patternedDosages(2, 3, 0), 3);
    writeFileSync(`${prefix}.bim`, `1\ta\t0\t7\tA\tC\n1\tb\t0\t${position === '' ? '""' : position}\tA\tC\n`);
    await expectUserError(openPlinkFileset(plinkPathsOf(prefix)!), new RegExp(`bad-position\\.bim line 2: position "${position === '' ? '""' : position.replace('.', '\\.')}" is not an integer`));
  });

  const badCases: ReadonlyArray<readonly [string, string, (prefix: string) => void, RegExp]> = [
    ['wrong magic', 'bad-magic', (prefix) => writeFileSync(`${prefix}.bed`, new Uint8Array([0x6c, 0x1b, 0x00, 0, 0, 0, 0, 0, 0])),
      /bad-magic\.bed byte 0: not a SNP-major PLINK 1 \.bed file \(magic 6c 1b 01 expected, found 6c 1b 00\)/],
    ['truncated .bed', 'truncated-bed', (prefix) => truncateSync(`${prefix}.bed`, 3 + 2 * 2 + 1),
      /truncated-bed\.bed is truncated .*: 8 bytes, expected 15 .*SNP record 3 .* is incomplete/],
    ['.bim with more SNPs than the .bed', 'long-bim', (prefix) => appendFileSync(`${prefix}.bim`, '1\trs_extra\t0\t5\tG\tA\n'),
      /long-bim\.bed is truncated or does not match its \.bim\/\.fam: 15 bytes, expected 17 \(7 SNPs in .*long-bim\.bim/],
    ['.fam with fewer samples than the .bed', 'short-fam', (prefix) => writeFileSync(`${prefix}.fam`, 'a b 0 0 1 1\nc d 0 0 1 1\n'),
      /short-fam\.bed does not match its \.bim\/\.fam: 15 bytes, expected 9 .*2 samples/],
    ['.bim line with 5 columns', 'bad-bim', (prefix) => appendFileSync(`${prefix}.bim`, '1\trs_bad\t0\t5\tG\n'),
      /bad-bim\.bim line 7: expected 6 columns/],
    ['missing .fam', 'missing-fam', (prefix) => rmSync(`${prefix}.fam`), /cannot read \.fam file .*missing-fam\.fam: no such file/],
  ];

  it.each(badCases)('refuses a fileset with %s, naming the file and place', async (_name, stem, spoil, pattern) => {
    const prefix = join(workDir, stem);
    writePlinkFileset(prefix, patternedDosages(6, 7, 0), 7);
    spoil(prefix);
    await expectUserError(openPlinkFileset(plinkPathsOf(prefix)!), pattern);
  });
});
