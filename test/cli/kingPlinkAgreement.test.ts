// `snptally plink --make-king …` writes plink2's files byte for byte: Debian plink2 2.00a3.5 run with the same flags
// on plink1.9 --dummy data with missing calls (with selection flags) and on a simulated pedigree (parents, full and
// half sibs, unrelated; missing calls; one chromosome-X SNP that KING leaves out). Every .king text digit, .king.bin
// (float64 and float32) byte for byte, the .kin0 table (proportions and counts, filtered), the .king.id and the
// --king-cutoff sample lists; and the pedigree's kinship classes (≈1/4, ≈1/8, ≈0). With `--backend webgpu` (snptally's
// flag: the kinship finalized on the GPU, kingPairProgram.ts) the same files again.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writePedigreeFileset, type Pedigree } from '../helpers/kingPedigree.js';
import { runPeer } from '../helpers/runPeer.js';
import { webgpuGate } from '../helpers/webgpuGate.js';
import { runCli, withoutDawnLimitNotes } from './cliHarness.js';

const dir = mkdtempSync(join(tmpdir(), 'snptally-king-plink-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The files both programs write for `flags` (the logs differ by design). */
function kingFiles(flags: readonly string[]): string[] {
  const names: string[] = [];
  const at = flags.indexOf('--make-king');
  if (at >= 0) {
    const binary = flags.slice(at + 1).some((flag) => flag === 'bin' || flag === 'bin4');
    names.push(binary ? 'king.bin' : 'king', 'king.id');
  }
  if (flags.includes('--make-king-table')) names.push('kin0');
  if (flags.includes('--king-cutoff')) names.push('king.cutoff.in.id', 'king.cutoff.out.id');
  return names;
}

/**
 * Runs plink2 and snptally plink with `flags` on `input` and expects every output file to be the same bytes; `ourFlags`
 * go to snptally alone (e.g. `--backend webgpu`).
 */
function expectSameFiles(input: readonly string[], flags: readonly string[], name: string, ourFlags: readonly string[] = []): void {
  runPeer('plink2', [...input, ...flags, '--threads', '2', '--out', join(dir, `p2-${name}`)]);
  const ours = runCli(['plink', ...input, ...flags, ...ourFlags, '--threads', '2', '--out', join(dir, `st-${name}`)]);
  expect(withoutDawnLimitNotes(ours.stderr)).toBe('');
  expect(ours.status).toBe(0);
  const names = kingFiles(flags);
  expect(names.length).toBeGreaterThan(0);
  for (const file of names) {
    const theirs = readFileSync(join(dir, `p2-${name}.${file}`));
    const mine = readFileSync(join(dir, `st-${name}.${file}`));
    expect(mine.length, `${name}.${file} size`).toBe(theirs.length);
    expect(mine.equals(theirs), `${name}.${file} bytes`).toBe(true);
  }
}

describe('plink --make-king on plink1.9 --dummy data with missing calls', () => {
  const prefix = join(dir, 'dummy');
  beforeAll(() => {
    runPeer('plink1.9', ['--dummy', '45', '701', '0.04', 'acgt', '--make-bed', '--out', prefix]);
    writeFileSync(join(dir, 'keep.txt'), Array.from({ length: 40 }, (_, s) => `per${s} per${s}\n`).join(''));
  });
  const input = (): string[] => ['--bfile', prefix];
  const cases: readonly (readonly string[])[] = [
    ['--make-king'],
    ['--make-king', 'square'],
    ['--make-king', 'square0'],
    ['--make-king', 'bin'],
    ['--make-king', 'triangle', 'bin'],
    ['--make-king', 'square0', 'bin4'],
    ['--make-king-table'],
    ['--make-king-table', 'counts', '--king-table-filter', '0.02'],
    ['--make-king-table', '--king-table-filter', '-0.01'],
    ['--king-cutoff', '0.03'],
    ['--make-king', 'triangle', 'bin4', '--make-king-table', '--king-cutoff', '0.025'],
  ];
  cases.forEach((flags, c) => {
    it(flags.join(' '), () => expectSameFiles(input(), flags, `dummy${c}`));
  });
  const gpuCases: readonly (readonly string[])[] = [
    ['--make-king-table', 'counts', '--king-table-filter', '0.02'],
    ['--make-king', 'triangle', 'bin4', '--make-king-table', '--king-cutoff', '0.025'],
    ['--make-king', 'square'],
  ];
  gpuCases.forEach((flags, c) => {
    it(`${flags.join(' ')} --backend webgpu`, async () => {
      if (!(await webgpuGate()).available) return;
      expectSameFiles(input(), flags, `dummy-gpu${c}`, ['--backend', 'webgpu']);
    });
  });
  it('with selection: --keep, --maf, --geno, --chr', () => {
    expectSameFiles([...input(), '--keep', join(dir, 'keep.txt'), '--maf', '0.1', '--geno', '0.06', '--chr', '1'],
      ['--make-king', 'square', '--make-king-table', 'counts'], 'dummy-selected');
  });
});

describe('plink --make-king on a simulated pedigree', () => {
  const prefix = join(dir, 'pedigree');
  let pedigree: Pedigree;
  beforeAll(() => {
    pedigree = writePedigreeFileset(prefix, { numFamilies: 6, numUnrelated: 12, numSnp: 5001, missingRate: 0.01, seed: 26 });
  });

  it('every file equals plink2 (square bin, table, cutoff at 0.0884)', () => {
    expectSameFiles(['--bfile', prefix], ['--make-king', 'square', 'bin', '--make-king-table', '--king-cutoff', '0.0884'], 'pedigree');
    expectSameFiles(['--bfile', prefix], ['--make-king', 'triangle'], 'pedigree-text');
  });

  it('--backend webgpu: the table above 0.0442 (issue 26\'s GPU target), square bin and the cutoff equal plink2', async () => {
    if (!(await webgpuGate()).available) return;
    expectSameFiles(['--bfile', prefix], ['--make-king-table', '--king-table-filter', '0.0442'], 'pedigree-gpu-table', ['--backend', 'webgpu']);
    // The run that made the table's records was a webgpu one (which finalizes KING on the device: test/analyses/king.test.ts).
    expect(readFileSync(join(dir, 'st-pedigree-gpu-table.log'), 'utf8')).toMatch(/snptally run --metric king .*--backend webgpu --threshold 0\.0441/);
    expectSameFiles(['--bfile', prefix], ['--make-king', 'square', 'bin', '--king-cutoff', '0.0884'], 'pedigree-gpu', ['--backend', 'webgpu']);
  });

  it('kinship classes: ≈1/4 parent–child and full sibs, ≈1/8 half sibs, ≈0 unrelated', () => {
    const n = pedigree.numSample;
    const bytes = readFileSync(join(dir, 'st-pedigree.king.bin'));
    const square = new Float64Array(bytes.buffer, bytes.byteOffset, n * n);
    let numRelated = 0;
    const sumByClass = new Map<number, { sum: number; count: number }>();
    for (let i = 0; i < n; i++) {
      for (let j = i + 1; j < n; j++) {
        const expected = pedigree.kinship.get(`${i},${j}`) ?? 0;
        numRelated += expected > 0 ? 1 : 0;
        // Each pair lies within half the gap to the neighbouring degree (1/16), so it is classified right.
        expect(Math.abs(square[i * n + j] - expected), `pair ${i},${j} expected ${expected}`).toBeLessThan(1 / 16);
        expect(square[i * n + j]).toBe(square[j * n + i]);
        const total = sumByClass.get(expected) ?? { sum: 0, count: 0 };
        sumByClass.set(expected, { sum: total.sum + square[i * n + j], count: total.count + 1 });
      }
    }
    expect([...sumByClass.keys()].sort()).toEqual([0, 0.125, 0.25]);
    for (const [expected, { sum, count }] of sumByClass) expect(Math.abs(sum / count - expected), `mean of class ${expected}`).toBeLessThan(0.02);
    // 6 families: 3 full-sib pairs, 6 child–parent and 3 child–half-sib pairs, half sib with 2 parents.
    expect(numRelated).toBe(6 * (3 + 6 + 3 + 2));
    // The cutoff between 2nd and 3rd degree removes one of every related pair and keeps every unrelated founder.
    const removed = readFileSync(join(dir, 'st-pedigree.king.cutoff.out.id'), 'utf8').trim().split('\n').slice(1);
    expect(removed.every((line) => line.startsWith('fam'))).toBe(true);
  });
});
