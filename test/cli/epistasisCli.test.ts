// `snptally epistasis` and `prepare --case-control` end to end: phenotypes from .fam column 6, from --pheno (with and
// without a header, --pheno-name) and with a VCF, PLINK's missing codes, one-line errors naming file and line, the
// printed tables against a naive count, --json, and a planted interaction (tools/simulate-epistasis) found as top-1.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './cliHarness.js';
import { simulateEpistasis } from '../../tools/lib/epistasisSimulation.js';
import { vcfText } from '../io/genotypeFixtures.js';
import { naiveEpistasis, randomCaseControlData } from '../analyses/epistasis/naiveEpistasis.js';
import { writeCaseControlFileset } from '../analyses/epistasis/epistasisFiles.js';

const dir = mkdtempSync(join(tmpdir(), 'epistasis-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface JsonHit { readonly vectors: number[]; readonly score: number; readonly controls: number[]; readonly cases: number[]; readonly snps: { id: string; pos: number }[] }

function epistasisJson(args: readonly string[]): { numControls: number; numCases: number; top: JsonHit[] } {
  const outcome = runCli(['epistasis', ...args, '--json', '--threads', '2']);
  expect(outcome.stderr).toBe('');
  expect(outcome.status).toBe(0);
  return JSON.parse(outcome.stdout) as { numControls: number; numCases: number; top: JsonHit[] };
}

describe('snptally epistasis', () => {
  const data = randomCaseControlData(9, 40, 3, 0.03);
  const prefix = join(dir, 'd');
  writeCaseControlFileset(prefix, data);

  it('reads .fam column 6 (1, 2; 0, -9, NA missing) and prints the naive tables and scores, text and JSON', () => {
    const want = naiveEpistasis(data, 2, 'k2').slice(0, 4);
    const json = epistasisJson(['--bfile', prefix, '--top', '4']);
    expect(json.numControls).toBe(data.phenotypes.filter((p) => p === 1).length);
    expect(json.numCases).toBe(data.phenotypes.filter((p) => p === 2).length);
    expect(json.top.map((hit) => hit.snps.map((snp) => snp.id))).toEqual(want.map((t) => t.snps.map((s) => `snp${s}`)));
    json.top.forEach((hit, rank) => {
      expect(hit.controls).toEqual(want[rank].controls);
      expect(hit.cases).toEqual(want[rank].cases);
      expect(hit.score).toBeCloseTo(want[rank].score, 9);
    });
    const text = runCli(['epistasis', '--bfile', prefix, '--top', '1', '--threads', '2']);
    expect(text.status).toBe(0);
    expect(text.stdout).toContain(`#1  k2 ${want[0].score.toPrecision(10)}  snp${want[0].snps[0]} (2:${100 + want[0].snps[0]})`);
    expect(text.stdout).toContain(`  cases     ${want[0].cases.map((n) => String(n).padStart(5)).join('')}`);
  });

  it('a prepared --case-control file gives the same answer; one without is refused', () => {
    const packed = join(dir, 'd.packed');
    expect(runCli(['prepare', '--bfile', prefix, '--case-control', '--out', packed]).status).toBe(0);
    expect(epistasisJson(['--input', packed, '--order', '3', '--score', 'ig', '--top', '3']).top)
      .toEqual(epistasisJson(['--bfile', prefix, '--order', '3', '--score', 'ig', '--top', '3']).top);
    const plain = join(dir, 'plain.packed');
    expect(runCli(['prepare', '--bfile', prefix, '--out', plain]).status).toBe(0);
    const refused = runCli(['epistasis', '--input', plain]);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(/^snptally: --input .*plain\.packed: not prepared with --case-control/);
  });

  it('--pheno overrides .fam: without header, with a header and --pheno-name, and for a VCF', () => {
    const flipped = data.phenotypes.map((p) => (p === 1 ? 2 : p === 2 ? 1 : -9));
    writeFileSync(join(dir, 'p.txt'), flipped.map((p, s) => `F${s} I${s} ${p}\n`).join(''));
    writeFileSync(join(dir, 'ph.txt'), `FID IID other mine\n${flipped.map((p, s) => `F${s} I${s} 1 ${p}`).join('\n')}\n`);
    const want = naiveEpistasis({ ...data, phenotypes: flipped }, 2, 'mi').slice(0, 3);
    for (const args of [['--pheno', join(dir, 'p.txt')], ['--pheno', join(dir, 'ph.txt'), '--pheno-name', 'mine']]) {
      const json = epistasisJson(['--bfile', prefix, '--score', 'mi', '--top', '3', ...args]);
      expect(json.top.map((hit) => hit.cases)).toEqual(want.map((t) => t.cases));
    }
    // A VCF of the same calls; its samples s0… are named by IID alone.
    const dosages = Array.from({ length: data.numSnp }, (_, snp) => Array.from({ length: data.numSample }, (_, s) => {
      const g = data.genotypes[snp * data.numSample + s];
      return g === 3 ? null : g;
    }));
    writeFileSync(join(dir, 'd.vcf'), vcfText(dosages, data.numSample));
    writeFileSync(join(dir, 'v.txt'), flipped.map((p, s) => `s${s} s${s} ${p}\n`).join(''));
    const vcf = epistasisJson(['--vcf', join(dir, 'd.vcf'), '--pheno', join(dir, 'v.txt'), '--score', 'mi', '--top', '3']);
    expect(vcf.top.map((hit) => hit.cases)).toEqual(want.map((t) => t.cases));
  });

  it('bad phenotypes: one line naming the file, the line and the problem', () => {
    writeFileSync(join(dir, 'bad.txt'), 'F0 I0 1\nF1 I1 3.5\n');
    const bad = runCli(['epistasis', '--bfile', prefix, '--pheno', join(dir, 'bad.txt')]);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toBe(`snptally: --pheno ${join(dir, 'bad.txt')} line 2: phenotype "3.5" of sample F1 I1 is not 1 (control), 2 (case) or missing (0, -9, non-numeric)\n`);
    writeFileSync(join(dir, 'short.txt'), 'F0 I0\n');
    expect(runCli(['epistasis', '--bfile', prefix, '--pheno', join(dir, 'short.txt')]).stderr).toMatch(/short\.txt line 1: 2 columns, the phenotype is column 3\n$/);
    writeFileSync(join(dir, 'twice.txt'), 'F0 I0 1\nF0 I0 2\n');
    expect(runCli(['epistasis', '--bfile', prefix, '--pheno', join(dir, 'twice.txt')]).stderr).toMatch(/twice\.txt line 2: sample F0 I0 appears a second time\n$/);
    expect(runCli(['epistasis', '--bfile', prefix, '--pheno', join(dir, 'p.txt'), '--pheno-name', 'x']).stderr)
      .toMatch(/--pheno-name x: .*p\.txt line 1 is not a header line/);
    writeFileSync(join(dir, 'cases.txt'), data.phenotypes.map((_, s) => `F${s} I${s} 2\n`).join(''));
    expect(runCli(['epistasis', '--bfile', prefix, '--pheno', join(dir, 'cases.txt')]).stderr).toMatch(/0 controls and 40 cases among 40 samples/);
    expect(runCli(['epistasis', '--vcf', join(dir, 'd.vcf')]).stderr).toMatch(/a VCF has no phenotypes; give them with --pheno FILE\n$/);
  });

  it('finds a planted pure 2-way and 3-way interaction as the top-1 by K2 and MI', () => {
    for (const planted of [[17, 63], [5, 17, 30]]) {
      const simulated = join(dir, `sim${planted.length}`);
      simulateEpistasis(simulated, {
        numSnp: planted.length === 2 ? 100 : 40, numCases: 1000, numControls: 1000, maf: planted.length === 2 ? 0.4 : 0.5,
        prevalence: planted.length === 2 ? 0.3 : 0.4, heritability: planted.length === 2 ? 0.04 : 0.03, model: 'pure', planted,
        missingRate: 0.01, seed: 1,
      });
      for (const score of ['k2', 'mi']) {
        const json = epistasisJson(['--bfile', simulated, '--order', String(planted.length), '--score', score, '--top', '1']);
        expect(json.top[0].vectors).toEqual(planted);
      }
    }
  }, 60_000);
});
