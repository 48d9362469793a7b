// `snptally plink --make-rel / --make-grm-bin` against Debian plink2 2.00a3.5 run with the same flags, on plink1.9
// --dummy data with missing calls (with selection flags) and on a simulated pedigree (founders' allele frequencies,
// nonfounders, one chromosome-X SNP the GRM leaves out): .rel text to every printed digit, float32 outputs (bin4,
// .grm.bin) within 1 ulp, float64 `bin` within 1e−13 (the sums' order is the BLAS's in both programs, not the same),
// .grm.N.bin and the .id files byte for byte; and the GRM against a naive one computed here from the .bed.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writePedigreeFileset } from '../helpers/kingPedigree.js';
import { runPeer } from '../helpers/runPeer.js';
import { runCli } from './cliHarness.js';

const dir = mkdtempSync(join(tmpdir(), 'snptally-grm-plink-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** How a file of both programs is compared. */
type Comparison = 'bytes' | 'float32' | 'float64';

/** The files both programs write for `flags` (the logs differ by design) and how each is compared. */
function grmFiles(flags: readonly string[]): [string, Comparison][] {
  const at = flags.indexOf('--make-rel');
  if (at < 0) return [['grm.bin', 'float32'], ['grm.N.bin', 'bytes'], ['grm.id', 'bytes']];
  const modifiers = flags.slice(at + 1);
  if (modifiers.includes('bin')) return [['rel.bin', 'float64'], ['rel.id', 'bytes']];
  if (modifiers.includes('bin4')) return [['rel.bin', 'float32'], ['rel.id', 'bytes']];
  return [['rel', 'bytes'], ['rel.id', 'bytes']];
}

/** Sorted, order-preserving integer keys of float bits, so that their difference counts ulps. */
function orderedKeys(values: Float32Array): Int32Array {
  const bits = new Int32Array(values.buffer, values.byteOffset, values.length);
  return Int32Array.from(bits, (b) => (b < 0 ? -(b & 0x7fffffff) : b));
}

/** Expects `mine` to equal `theirs` as `comparison` says. */
function expectAgreement(mine: Buffer, theirs: Buffer, comparison: Comparison, what: string): void {
  expect(mine.length, `${what} size`).toBe(theirs.length);
  if (comparison === 'bytes') {
    expect(mine.equals(theirs), `${what} bytes`).toBe(true);
  } else if (comparison === 'float32') {
    const a = orderedKeys(new Float32Array(mine.buffer.slice(mine.byteOffset, mine.byteOffset + mine.length)));
    const b = orderedKeys(new Float32Array(theirs.buffer.slice(theirs.byteOffset, theirs.byteOffset + theirs.length)));
    let worst = 0;
    for (let k = 0; k < a.length; k++) worst = Math.max(worst, Math.abs(a[k] - b[k]));
    expect(worst, `${what}: most float32 ulps apart`).toBeLessThanOrEqual(1);
  } else {
    const a = new Float64Array(mine.buffer.slice(mine.byteOffset, mine.byteOffset + mine.length));
    const b = new Float64Array(theirs.buffer.slice(theirs.byteOffset, theirs.byteOffset + theirs.length));
    let worst = 0;
    for (let k = 0; k < a.length; k++) worst = Math.max(worst, Math.abs(a[k] - b[k]));
    expect(worst, `${what}: largest difference`).toBeLessThanOrEqual(1e-13);
  }
}

/** Runs plink2 and snptally plink with `flags` on `input` and compares every output file. */
function expectAgreementWithPlink2(input: readonly string[], flags: readonly string[], name: string): void {
  runPeer('plink2', [...input, ...flags, '--threads', '2', '--out', join(dir, `p2-${name}`)]);
  const ours = runCli(['plink', ...input, ...flags, '--threads', '2', '--out', join(dir, `st-${name}`)]);
  expect(ours.stderr).toBe('');
  expect(ours.status).toBe(0);
  for (const [file, comparison] of grmFiles(flags)) {
    expectAgreement(readFileSync(join(dir, `st-${name}.${file}`)), readFileSync(join(dir, `p2-${name}.${file}`)), comparison, `${name}.${file}`);
  }
}

/**
 * The GRM by its definition, from the .bed/.bim/.fam: z = (g − 2q)/√(2pq) with g the A1 copies, q the A1 frequency
 * among the founders' calls (every sample with `nonfounders`), each pair's sum over the SNPs both called divided by
 * their number (a monomorphic SNP counts with z = 0); chromosome X left out, and SNPs whose founder MAF is below `minFounderMaf`. n × n, full.
 */
function naiveGrm(prefix: string, options: { readonly nonfounders: boolean; readonly minFounderMaf: number }): { grm: Float64Array; n: number } {
  const fam = readFileSync(`${prefix}.fam`, 'utf8').trim().split('\n').map((line) => line.split(/\s+/));
  const chromosomes = readFileSync(`${prefix}.bim`, 'utf8').trim().split('\n').map((line) => line.split(/\s+/)[0]);
  const bed = readFileSync(`${prefix}.bed`);
  const n = fam.length;
  const bytesPerSnp = Math.ceil(n / 4);
  const sums = new Float64Array(n * n);
  const counts = new Float64Array(n * n);
  chromosomes.forEach((chromosome, s) => {
    if (chromosome === 'X' || chromosome === '23') return;
    // .bed codes: 00 two A1 copies, 10 one, 11 none, 01 missing.
    const copies = Array.from({ length: n }, (_, i) => [2, -1, 1, 0][(bed[3 + s * bytesPerSnp + (i >> 2)] >> (2 * (i & 3))) & 3]);
    let a1 = 0;
    let called = 0;
    copies.forEach((g, i) => {
      if (g >= 0 && (options.nonfounders || (fam[i][2] === '0' && fam[i][3] === '0'))) { a1 += g; called += 2; }
    });
    const q = a1 / called;
    if (Math.min(q, 1 - q) < options.minFounderMaf) return;
    // A monomorphic SNP adds 0 to every sum but still counts in the pairs' SNPs both called.
    const z = copies.map((g) => (g < 0 ? null : q === 0 || q === 1 ? 0 : (g - 2 * q) / Math.sqrt(2 * q * (1 - q))));
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < n; j++) {
        const zi = z[i];
        const zj = z[j];
        if (zi === null || zj === null) continue;
        sums[i * n + j] += zi * zj;
        counts[i * n + j] += 1;
      }
    }
  });
  return { grm: sums.map((sum, k) => sum / counts[k]), n };
}

describe('plink --make-rel / --make-grm-bin on plink1.9 --dummy data with missing calls', () => {
  const prefix = join(dir, 'dummy');
  beforeAll(() => {
    runPeer('plink1.9', ['--dummy', '45', '701', '0.04', 'acgt', '--make-bed', '--out', prefix]);
    writeFileSync(join(dir, 'keep.txt'), Array.from({ length: 40 }, (_, s) => `per${s} per${s}\n`).join(''));
  });
  const cases: readonly (readonly string[])[] = [
    ['--make-rel'],
    ['--make-rel', 'square'],
    ['--make-rel', 'square0'],
    ['--make-rel', 'bin'],
    ['--make-rel', 'triangle', 'bin'],
    ['--make-rel', 'square0', 'bin4'],
    ['--make-rel', 'triangle', 'bin4'],
    ['--make-rel', 'cov', 'square', 'bin4'],
    ['--make-rel', 'meanimpute', 'bin'],
    ['--make-rel', 'meanimpute', 'cov'],
    ['--make-grm-bin'],
    ['--make-grm-bin', 'meanimpute'],
    ['--make-grm-bin', 'id-header'],
  ];
  cases.forEach((flags, c) => {
    it(flags.join(' '), () => expectAgreementWithPlink2(['--bfile', prefix, '--bad-freqs'], flags, `dummy${c}`));
  });
  it('with selection: --keep, --maf, --geno, --chr', () => {
    expectAgreementWithPlink2(['--bfile', prefix, '--bad-freqs', '--keep', join(dir, 'keep.txt'), '--maf', '0.1', '--geno', '0.06', '--chr', '1'],
      ['--make-rel', 'square', 'bin4'], 'dummy-selected');
  });
  it('equals a naive GRM computed here (square bin)', () => {
    const { grm, n } = naiveGrm(prefix, { nonfounders: false, minFounderMaf: 0 });
    const bytes = readFileSync(join(dir, 'st-dummy3.rel.bin'));
    const ours = new Float64Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
    expect(ours.length).toBe(n * n);
    for (let k = 0; k < n * n; k++) expect(Math.abs(ours[k] - grm[k]), `cell ${k}`).toBeLessThan(1e-12);
  });
});

describe('plink --make-rel / --make-grm-bin on a simulated pedigree', () => {
  const prefix = join(dir, 'pedigree');
  beforeAll(() => {
    writePedigreeFileset(prefix, { numFamilies: 6, numUnrelated: 12, numSnp: 3001, missingRate: 0.01, seed: 26 });
  });
  // 30 founders: --bad-freqs; SNPs whose founders carry one allele only are removed by --maf (over the founders).
  const founderInput = (): string[] => ['--bfile', prefix, '--bad-freqs', '--maf', '0.02'];
  it('founders\' frequencies: every file agrees with plink2', () => {
    expectAgreementWithPlink2(founderInput(), ['--make-rel', 'square', 'bin'], 'pedigree-bin');
    expectAgreementWithPlink2(founderInput(), ['--make-rel', 'square'], 'pedigree-text');
    expectAgreementWithPlink2(founderInput(), ['--make-grm-bin'], 'pedigree-grm');
  });
  it('refuses a SNP of founder MAF 0 that nonfounders carry, as plink2', () => {
    const outcome = runCli(['plink', '--bfile', prefix, '--bad-freqs', '--make-rel', '--out', join(dir, 'zero-maf')]);
    expect(outcome.status).toBe(1);
    expect(outcome.stderr).toMatch(/^snptally: plink: --make-rel\/--make-grm-bin: variant rs\d+ \(\d:\d+\) has founder minor allele frequency 0 but is not monomorphic/);
    expect(spawnSync('plink2', ['--bfile', prefix, '--bad-freqs', '--make-rel', '--out', join(dir, 'zero-maf-p2')]).status).not.toBe(0);
  });
  it('--nonfounders: frequencies from every sample, as plink2', () => {
    expectAgreementWithPlink2(['--bfile', prefix, '--nonfounders'], ['--make-rel', 'square', 'bin'], 'pedigree-nonfounders');
  });
  it('refuses 30 founders without --bad-freqs, as plink2', () => {
    const outcome = runCli(['plink', '--bfile', prefix, '--make-rel', '--out', join(dir, 'few-founders')]);
    expect(outcome.status).toBe(1);
    expect(outcome.stderr).toMatch(/only 30 founders to estimate allele frequencies from/);
    expect(spawnSync('plink2', ['--bfile', prefix, '--make-rel', '--out', join(dir, 'few-founders-p2')]).status).not.toBe(0);
  });
  it('equals a naive GRM computed here, with and without --nonfounders', () => {
    for (const [name, nonfounders] of [['pedigree-bin', false], ['pedigree-nonfounders', true]] as const) {
      const { grm, n } = naiveGrm(prefix, { nonfounders, minFounderMaf: nonfounders ? 0 : 0.02 });
      const bytes = readFileSync(join(dir, `st-${name}.rel.bin`));
      const ours = new Float64Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
      expect(ours.length).toBe(n * n);
      let worst = 0;
      for (let k = 0; k < n * n; k++) worst = Math.max(worst, Math.abs(ours[k] - grm[k]));
      expect(worst, name).toBeLessThan(1e-12);
    }
  });
});

describe('plink --make-rel / --make-grm-bin refusals', () => {
  it('refuses bad modifiers and plink2\'s conflicts in one line, exit code 1', () => {
    const prefix = join(dir, 'dummy');
    for (const [flags, message] of [
      [['--make-rel', 'zs'], /--make-rel modifier 'zs' is not supported/],
      [['--make-rel', 'bin', 'bin4'], /--make-rel takes one of bin, bin4/],
      [['--make-rel', '--make-grm-bin'], /--make-rel cannot be used with --make-grm-bin/],
      [['--make-grm-bin', 'iid-only'], /--make-grm-bin modifier 'iid-only' is not supported/],
      [['--make-rel', '--threads', '0', '--bad-freqs'], /invalid --threads argument '0'/],
      [['--make-rel'], /only 45 samples to estimate allele frequencies from \(plink2 needs 50; --bad-freqs overrides\)/],
    ] as const) {
      const outcome = runCli(['plink', '--bfile', prefix, ...flags, '--out', join(dir, 'refused')]);
      expect(outcome.status).toBe(1);
      expect(outcome.stderr.trim().split('\n')).toHaveLength(1);
      expect(outcome.stderr).toMatch(message);
    }
  });
  it('replaces an existing output only with --force', () => {
    const args = ['plink', '--bfile', join(dir, 'dummy'), '--bad-freqs', '--make-rel', 'bin4', '--out', join(dir, 'twice')];
    expect(runCli(args).status).toBe(0);
    const again = runCli(args);
    expect(again.status).toBe(1);
    expect(again.stderr).toMatch(/twice\.rel\.bin exists: give --force/);
    expect(runCli([...args, '--force']).status).toBe(0);
  });
});
