// Founders, as PLINK decides them (.fam father and mother IDs both 0): --maf counts the founders' calls (plink1.9 and
// plink2 alike) unless --nonfounders, --filter-founders keeps only founders, and `snptally plink --r2` computes LD
// over founders only, as plink1.9 does — each checked against the peers on a simulated pedigree.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writePedigreeFileset } from '../helpers/kingPedigree.js';
import { runCli } from './cliHarness.js';

const dir = mkdtempSync(join(tmpdir(), 'snptally-founders-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const prefix = join(dir, 'ped');
writePedigreeFileset(prefix, { numFamilies: 6, numUnrelated: 10, numSnp: 300, missingRate: 0.02, seed: 7 });

function peer(program: 'plink1.9' | 'plink2', args: readonly string[]): void {
  const r = spawnSync(program, [...args, '--threads', '1', ...(program === 'plink1.9' ? ['--allow-no-sex'] : [])], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${program} ${args.join(' ')} failed (${r.status}): ${r.stdout}${r.stderr}`);
}

/** Column `column` of each line of a whitespace-separated file. */
function column(path: string, index: number): string[] {
  return readFileSync(path, 'utf8').trim().split('\n').map((line) => line.trim().split(/\s+/)[index]);
}

let runIdx = 0;

/** The variant IDs and sample IIDs `snptally prepare` keeps with `flags`. */
function snptallyKeeps(flags: readonly string[]): { variants: string[]; samples: number } {
  const out = join(dir, `s${runIdx++}.packed`);
  const run = runCli(['prepare', '--bfile', prefix, ...flags, '--out', out]);
  expect(run.status, run.stderr).toBe(0);
  const sidecar = JSON.parse(readFileSync(`${out}.json`, 'utf8')) as { snps: { id: string[] }; numField: number };
  return { variants: sidecar.snps.id, samples: sidecar.numField };
}

/** The variant IDs and number of samples a peer's --make-bed keeps with `flags`. */
function peerKeeps(program: 'plink1.9' | 'plink2', flags: readonly string[]): { variants: string[]; samples: number } {
  const out = join(dir, `p${runIdx++}`);
  peer(program, ['--bfile', prefix, ...flags, '--make-bed', '--out', out]);
  return { variants: column(`${out}.bim`, 1), samples: column(`${out}.fam`, 1).length };
}

describe('founders in the selection and the PLINK front end', () => {
  it.each([
    ['--maf', '0.3'], ['--maf', '0.42'], ['--maf', '0.3', '--nonfounders'], ['--filter-founders'], ['--filter-founders', '--maf', '0.35'],
  ])('prepare %s … keeps the variants and samples plink1.9 keeps', (...flags) => {
    const kept = snptallyKeeps(flags);
    expect(kept).toEqual(peerKeeps('plink1.9', flags));
    // The pedigree's children are non-founders: without them the case could not tell founders from all samples.
    const fam = readFileSync(`${prefix}.fam`, 'utf8').trim().split('\n').map((line) => line.split(/\s+/));
    const numFounder = fam.filter((f) => f[2] === '0' && f[3] === '0').length;
    expect(numFounder).toBeLessThan(fam.length - 10);
    if (flags.includes('--filter-founders')) expect(kept.samples).toBe(numFounder);
  });

  it('--maf counts founders as plink2 does, and the founders-only count differs from the all-samples one', () => {
    const founders = snptallyKeeps(['--maf', '0.42']);
    expect(founders.variants).toEqual(peerKeeps('plink2', ['--maf', '0.42']).variants);
    expect(snptallyKeeps(['--maf', '0.42', '--nonfounders']).variants).not.toEqual(founders.variants);
  });

  // plink1.9's LD is over founders with --nonfounders too (its .ld does not change).
  it.each([[[] as string[]], [['--nonfounders']]])('snptally plink --r2 %j writes plink1.9\'s .ld byte for byte', (extra) => {
    const flags = ['--bfile', prefix, '--chr', '1-2', '--r2', '--ld-window', '20', '--ld-window-r2', '0', ...extra];
    const ours = join(dir, `r${runIdx++}`);
    const run = runCli(['plink', ...flags, '--out', ours]);
    expect(run.status, run.stderr).toBe(0);
    const theirs = join(dir, `q${runIdx++}`);
    peer('plink1.9', [...flags, '--out', theirs]);
    expect(readFileSync(`${ours}.ld`, 'utf8')).toBe(readFileSync(`${theirs}.ld`, 'utf8'));
    // The log counts every kept sample, as plink1.9's does, though LD is over the founders.
    const passLine = (log: string): string | undefined => readFileSync(log, 'utf8').split('\n').find((line) => line.endsWith('pass filters and QC.'));
    expect(passLine(`${ours}.log`)).toBeDefined();
    expect(passLine(`${ours}.log`)).toBe(passLine(`${theirs}.log`));
  });

  it('refuses --r2 with --nonfounders and --maf in one line', () => {
    const run = runCli(['plink', '--bfile', prefix, '--r2', '--nonfounders', '--maf', '0.1', '--out', join(dir, 'refused')]);
    expect(run.status).toBe(1);
    expect(run.stderr).toBe('snptally: plink: --nonfounders with --maf is not supported with --r2 (LD is over founders, the frequencies would be over every sample)\n');
  });
});
