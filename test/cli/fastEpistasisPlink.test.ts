// `snptally plink … --fast-epistasis [boost]` against plink1.9 with the same flags: .epi.cc and .epi.cc.summary byte
// for byte (pairs, statistics, p-values, per-SNP counts and best partners as PLINK prints them), on simulated data with
// missing calls, rare alleles (zero cells: Ueki's adjustment, BOOST's degrees of freedom), missing phenotypes and
// samples of unknown sex (PLINK ignores their phenotypes unless --allow-no-sex).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from './cliHarness.js';
import { simulateEpistasis } from '../../tools/lib/epistasisSimulation.js';

const dir = mkdtempSync(join(tmpdir(), 'fast-epistasis-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function plink19(args: readonly string[]): void {
  const run = spawnSync('plink1.9', [...args, '--threads', '1'], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`plink1.9 ${args.join(' ')} failed (${run.status}): ${run.stdout}${run.stderr}`);
}

describe('--fast-epistasis agrees with plink1.9', () => {
  const prefix = join(dir, 'd');
  simulateEpistasis(prefix, {
    numSnp: 40, numCases: 130, numControls: 121, maf: 0.12, prevalence: 0.3, heritability: 0.001, model: 'pure', planted: [2, 7],
    missingRate: 0.05, seed: 4,
  });
  // Some samples of unknown sex (column 5 = 0) and of missing phenotype (-9).
  const fam = readFileSync(`${prefix}.fam`, 'utf8').trimEnd().split('\n').map((line, s) => {
    const columns = line.split('\t');
    if (s % 17 === 16) columns[4] = '0';
    if (s % 13 === 12) columns[5] = '-9';
    return columns.join('\t');
  });
  writeFileSync(`${prefix}.fam`, `${fam.join('\n')}\n`);

  for (const modifier of [[], ['boost']]) {
    for (const thresholds of [['--epi1', '1'], [], ['--epi1', '0.05', '--epi2', '0.2'], ['--epi1', '1', '--allow-no-sex']]) {
      it(`--fast-epistasis ${[...modifier, ...thresholds].join(' ')}`, () => {
        const flags = ['--bfile', prefix, '--fast-epistasis', ...modifier, ...thresholds];
        const ours = join(dir, 'ours');
        const theirs = join(dir, 'theirs');
        const run = runCli(['plink', ...flags, '--out', ours, '--force']);
        expect(run.stderr).toBe('');
        expect(run.status).toBe(0);
        plink19([...flags, '--out', theirs]);
        const pairs = readFileSync(`${ours}.epi.cc`, 'utf8');
        expect(pairs).toBe(readFileSync(`${theirs}.epi.cc`, 'utf8'));
        expect(readFileSync(`${ours}.epi.cc.summary`, 'utf8')).toBe(readFileSync(`${theirs}.epi.cc.summary`, 'utf8'));
        if (thresholds[1] === '1') expect(pairs.split('\n').length).toBe(2 + (40 * 39) / 2);
      });
    }
  }

  it('refuses unsupported modifiers and flags by name, and existing outputs without --force', () => {
    expect(runCli(['plink', '--bfile', prefix, '--fast-epistasis', 'joint-effects']).stderr)
      .toBe("snptally: plink: --fast-epistasis modifier 'joint-effects' is not supported (supported: boost)\n");
    expect(runCli(['plink', '--bfile', prefix, '--fast-epistasis', '--epi1', '2']).stderr).toBe('snptally: plink: --epi1 must be a p-value in (0, 1], got "2"\n');
    expect(runCli(['plink', '--bfile', prefix, '--fast-epistasis', '--out', join(dir, 'ours')]).stderr).toMatch(/ours\.epi\.cc exists: give --force/);
  });
});
