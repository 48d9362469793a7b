// `snptally plink --distance …` writes PLINK 1.9's files byte for byte: Debian plink1.9 (1.90b6.26) run with the same
// flags on plink1.9 --dummy data with missing calls (with selection flags) and on a simulated pedigree (founders and
// non-founders, so the missing-call weights come from the founders' allele frequencies; missing calls; one
// chromosome-X SNP that --distance leaves out). Every shape (triangle, square, square0), encoding (text, gz — compared
// decompressed —, bin, bin4) and kind (allele-ct .dist, ibs .mibs, 1-ibs .mdist), with PLINK's default missing-call
// rescaling and with flat-missing; the .id files too.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writePedigreeFileset } from '../helpers/kingPedigree.js';
import { runPeer } from '../helpers/runPeer.js';
import { runCli } from './cliHarness.js';

const dir = mkdtempSync(join(tmpdir(), 'snptally-distance-plink-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The files --distance writes for `modifiers`, as PLINK 1.9 names them. */
function distanceFiles(modifiers: readonly string[]): string[] {
  const suffix = modifiers.includes('gz') ? '.gz' : modifiers.includes('bin') || modifiers.includes('bin4') ? '.bin' : '';
  const kinds = [['allele-ct', 'dist'], ['ibs', 'mibs'], ['1-ibs', 'mdist']].filter(([modifier]) => modifiers.includes(modifier));
  const extensions = kinds.length === 0 ? ['dist'] : kinds.map(([, extension]) => extension);
  return extensions.flatMap((extension) => [`${extension}${suffix}`, `${extension}.id`]);
}

/** Runs plink1.9 and snptally plink with `--distance modifiers` on `input`; every output file must be the same bytes. */
function expectSameFiles(input: readonly string[], modifiers: readonly string[], name: string): void {
  runPeer('plink1.9', [...input, '--distance', ...modifiers, '--threads', '2', '--out', join(dir, `p1-${name}`)]);
  const ours = runCli(['plink', ...input, '--distance', ...modifiers, '--threads', '2', '--out', join(dir, `st-${name}`)]);
  expect(ours.stderr).toBe('');
  expect(ours.status).toBe(0);
  for (const file of distanceFiles(modifiers)) {
    const read = (path: string): Buffer => (file.endsWith('.gz') ? gunzipSync(readFileSync(path)) : readFileSync(path));
    const theirs = read(join(dir, `p1-${name}.${file}`));
    const mine = read(join(dir, `st-${name}.${file}`));
    expect(theirs.length).toBeGreaterThan(0);
    expect(mine.length, `${name}.${file} size`).toBe(theirs.length);
    expect(mine.equals(theirs), `${name}.${file} bytes`).toBe(true);
  }
}

const ALL_KINDS = ['allele-ct', 'ibs', '1-ibs'] as const;

describe('plink --distance on plink1.9 --dummy data with missing calls', () => {
  const prefix = join(dir, 'dummy');
  beforeAll(() => {
    runPeer('plink1.9', ['--dummy', '45', '701', '0.04', 'acgt', '--make-bed', '--out', prefix]);
    writeFileSync(join(dir, 'keep.txt'), Array.from({ length: 40 }, (_, s) => `per${s} per${s}\n`).join(''));
  });
  const input = (): string[] => ['--bfile', prefix];
  const cases: readonly (readonly string[])[] = [
    [],
    ['ibs'],
    ['square', ...ALL_KINDS],
    ['square0', ...ALL_KINDS],
    ['triangle', ...ALL_KINDS],
    ['gz', ...ALL_KINDS],
    ['bin', ...ALL_KINDS],
    ['triangle', 'bin', 'allele-ct', 'ibs'],
    ['triangle', 'bin', '1-ibs'],
    ['square0', 'bin', ...ALL_KINDS],
    ['bin4', ...ALL_KINDS],
    ['triangle', 'bin4', 'allele-ct', '1-ibs'],
    ['square0', 'bin4', ...ALL_KINDS],
    ['square', 'flat-missing', ...ALL_KINDS],
    ['bin4', 'flat-missing', '1-ibs'],
  ];
  cases.forEach((modifiers, c) => {
    it(`--distance ${modifiers.join(' ')}`, () => expectSameFiles(input(), modifiers, `dummy${c}`));
  });
  it('triangle bin with ibs and 1-ibs: PLINK\'s .mdist.bin has 1 % more values, read past its matrix; the rest equal', () => {
    const modifiers = ['triangle', 'bin', 'ibs', '1-ibs'];
    runPeer('plink1.9', [...input(), '--distance', ...modifiers, '--out', join(dir, 'p1-overread')]);
    const ours = runCli(['plink', ...input(), '--distance', ...modifiers, '--out', join(dir, 'st-overread')]);
    expect(ours.status, ours.stderr).toBe(0);
    expect(readFileSync(join(dir, 'st-overread.mibs.bin')).equals(readFileSync(join(dir, 'p1-overread.mibs.bin')))).toBe(true);
    // plink_calc.c distance_d_write: the 1-ibs loop starts where the ibs loop left its percentage (101), so it writes
    // floor(1.01 · count) values; the first count are the matrix.
    const numPairs = (45 * 44) / 2;
    const theirs = readFileSync(join(dir, 'p1-overread.mdist.bin'));
    const mine = readFileSync(join(dir, 'st-overread.mdist.bin'));
    expect(theirs.length).toBe(8 * Math.floor((numPairs * 101) / 100));
    expect(mine.length).toBe(8 * numPairs);
    expect(mine.equals(theirs.subarray(0, 8 * numPairs))).toBe(true);
  });
  it('VCF input: PLINK 1.9 splits FID_IID sample IDs at their one \'_\'', () => {
    runPeer('plink1.9', [...input(), '--recode', 'vcf', '--out', join(dir, 'dummy-vcf')]);
    expectSameFiles(['--vcf', join(dir, 'dummy-vcf.vcf')], ['square', 'ibs'], 'dummy-vcf');
    expect(readFileSync(join(dir, 'st-dummy-vcf.mibs.id'), 'utf8').split('\n')[0]).toBe('per0\tper0');
  });
  it('with selection: --keep, --maf, --geno, --chr', () => {
    expectSameFiles([...input(), '--keep', join(dir, 'keep.txt'), '--maf', '0.1', '--geno', '0.06', '--chr', '1'],
      ['square', 'bin', ...ALL_KINDS], 'dummy-selected');
  });
});

describe('plink --distance on a simulated pedigree (founders and non-founders, an X SNP)', () => {
  const prefix = join(dir, 'pedigree');
  beforeAll(() => {
    writePedigreeFileset(prefix, { numFamilies: 6, numUnrelated: 12, numSnp: 3001, missingRate: 0.02, seed: 26 });
  });
  it('default missing-call weights from the founders: square bin and triangle text equal plink1.9', () => {
    expectSameFiles(['--bfile', prefix], ['square', 'bin', ...ALL_KINDS], 'pedigree-bin');
    expectSameFiles(['--bfile', prefix], ['triangle', ...ALL_KINDS], 'pedigree-text');
  });
  it('--nonfounders (weights from every sample\'s frequencies) and --filter-founders equal plink1.9', () => {
    expectSameFiles(['--bfile', prefix, '--nonfounders'], ['square', 'bin', 'ibs'], 'pedigree-nonfounders');
    expectSameFiles(['--bfile', prefix, '--filter-founders'], ['triangle', 'allele-ct'], 'pedigree-founders');
  });
  it('flat-missing: square bin4 equals plink1.9', () => {
    expectSameFiles(['--bfile', prefix], ['square', 'bin4', 'flat-missing', ...ALL_KINDS], 'pedigree-flat');
  });
});

describe('plink --distance refusals', () => {
  it('names PLINK\'s conflicts and unsupported modifiers', () => {
    const prefix = join(dir, 'dummy');
    const cases: readonly [readonly string[], RegExp][] = [
      [['--distance', 'square', 'triangle'], /'square' and 'triangle' modifiers cannot coexist/],
      [['--distance', 'bin', 'gz'], /conflicting --distance modifiers/],
      [['--distance', 'ibs', 'ibs'], /duplicate --distance 'ibs' modifier/],
      [['--distance', 'cube'], /invalid --distance parameter 'cube'/],
      [['--distance', '--r2'], /--r2 is not supported with --distance/],
    ];
    for (const [flags, message] of cases) {
      const outcome = runCli(['plink', '--bfile', prefix, ...flags, '--out', join(dir, 'refused')]);
      expect(outcome.status).toBe(1);
      expect(outcome.stderr).toMatch(message);
    }
  });
  it('replaces existing outputs only with --force', () => {
    const out = join(dir, 'existing');
    writeFileSync(`${out}.mibs.id`, 'keep me\n');
    const refused = runCli(['plink', '--bfile', join(dir, 'dummy'), '--distance', 'ibs', '--out', out]);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(/existing\.mibs\.id exists: give --force/);
    expect(readFileSync(`${out}.mibs.id`, 'utf8')).toBe('keep me\n');
    const forced = runCli(['plink', '--bfile', join(dir, 'dummy'), '--distance', 'ibs', '--out', out, '--force']);
    expect(forced.status, forced.stderr).toBe(0);
    expect(readFileSync(`${out}.mibs.id`, 'utf8').startsWith('per0\tper0\n')).toBe(true);
  });
});
