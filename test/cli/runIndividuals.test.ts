// `run --individuals --autosome` on a PLINK fileset (its samples transposed in memory) against the two-step path
// `prepare --individuals --autosome` + `run --input FILE`: the same checksum and rank files on ref, cpu and webgpu over
// several decompositions, `<stub>.input.json` the prepared file's sidecar, `<stub>.sample-missing.bin` each sample's
// missing calls as a naive scan of the prepared file finds them; with a selection by calls (--maf: rows gathered
// first) and from a VCF too. Bad input: a one-line error naming the file, exit status 1, nothing left behind.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSidecar } from '../../src/io/index.js';
import { runCli } from './cliHarness.js';
import { writePedigreeFileset } from '../helpers/kingPedigree.js';
import { vcfText } from '../io/genotypeFixtures.js';
import { webgpuGate } from '../helpers/webgpuGate.js';

const dir = mkdtempSync(join(tmpdir(), 'snptally-run-individuals-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const prefix = join(dir, 'pedigree');

/** The checksum of a `run --json` outcome, after checking it succeeded. */
function checksumOf(outcome: ReturnType<typeof runCli>): string {
  expect(outcome.status, outcome.stderr).toBe(0);
  return (JSON.parse(outcome.stdout) as { checksum: string }).checksum;
}

/** The two-step path: a prepared sample-major file of `input` with `selection`, its path. */
function prepared(name: string, input: readonly string[], selection: readonly string[]): string {
  const packedPath = join(dir, `${name}.packed`);
  const outcome = runCli(['prepare', ...input, ...selection, '--individuals', '--autosome', '--out', packedPath]);
  expect(outcome.status, outcome.stderr).toBe(0);
  return packedPath;
}

/** Each sample's missing SNPs (code 10) of a sample-major packed file, read code by code. */
function naiveMissingWords(packedPath: string): number[] {
  const sidecar = readSidecar(`${packedPath}.json`);
  const packed = readFileSync(packedPath);
  const bytesPerSample = Math.ceil(sidecar.numField / 4);
  const lists = Array.from({ length: sidecar.numVector }, (_, s) => Array.from({ length: sidecar.numField }, (_, v) => v)
    .filter((v) => ((packed[s * bytesPerSample + (v >> 2)] >> (2 * (v & 3))) & 3) === 2));
  return [sidecar.numVector, sidecar.numField, ...lists.map((list) => list.length), ...lists.flat()];
}

describe('run --individuals', () => {
  let packedPath = '';
  beforeAll(() => {
    writePedigreeFileset(prefix, { numFamilies: 3, numUnrelated: 9, numSnp: 1001, missingRate: 0.03, seed: 5 });
    packedPath = prepared('pedigree', ['--bfile', prefix], []);
  });

  const decompositions: readonly (readonly string[])[] = [[], ['--npv', '3'], ['--npf', '2', '--npv', '2'], ['--npv', '2', '--npr', '2']];
  // Every decomposition on cpu; two each on ref and webgpu (lavapipe in CI is slow).
  const used = { ref: [0, 2], cpu: [0, 1, 2, 3], webgpu: [0, 1] } as const;
  for (const backend of ['ref', 'cpu', 'webgpu'] as const) {
    used[backend].map((d) => [decompositions[d], d] as const).forEach(([decomposition, d]) => {
      it(`${backend} ${decomposition.join(' ') || 'npv 1'}: the two-step run's checksum and rank files`, async () => {
        if (backend === 'webgpu' && !(await webgpuGate()).available) return;
        const common = ['--metric', 'king', '--backend', backend, ...decomposition, '--threshold', '0.05', '--json'];
        const [twoStep, oneStep] = [join(dir, `two-${backend}-${d}`), join(dir, `one-${backend}-${d}`)];
        const expected = checksumOf(runCli(['run', '--input', packedPath, ...common, '--out', twoStep]));
        expect(checksumOf(runCli(['run', '--bfile', prefix, '--individuals', '--autosome', ...common, '--out', oneStep]))).toBe(expected);
        const rankFiles = readdirSync(dir).filter((name) => name.startsWith(`two-${backend}-${d}_`)).sort();
        expect(rankFiles.length).toBeGreaterThan(0);
        for (const name of rankFiles) {
          const twin = name.replace('two-', 'one-');
          expect(readFileSync(join(dir, twin)).equals(readFileSync(join(dir, name))), twin).toBe(true);
        }
        expect(readSidecar(`${oneStep}.input.json`)).toEqual(readSidecar(`${packedPath}.json`));
        expect(Array.from(new Uint32Array(new Uint8Array(readFileSync(`${oneStep}.sample-missing.bin`)).buffer))).toEqual(naiveMissingWords(packedPath));
      });
    });
  }

  it('a selection by calls (--maf, --geno: rows gathered first) and a VCF: the two-step run\'s checksum and sidecar', () => {
    const selection = ['--maf', '0.2', '--geno', '0.05'];
    const selected = prepared('selected', ['--bfile', prefix], selection);
    const common = ['--metric', 'king', '--threshold', '0.01', '--json'];
    const expected = checksumOf(runCli(['run', '--input', selected, ...common, '--out', join(dir, 'sel-two')]));
    expect(checksumOf(runCli(['run', '--bfile', prefix, ...selection, '--individuals', '--autosome', ...common, '--out', join(dir, 'sel-one')]))).toBe(expected);
    expect(readSidecar(join(dir, 'sel-one.input.json'))).toEqual(readSidecar(`${selected}.json`));
    const vcf = join(dir, 'small.vcf');
    const dosages = Array.from({ length: 40 }, (_, s) => Array.from({ length: 7 }, (_, i) => ((s * 7 + i * 3) % 5 === 0 ? null : (s + i) % 3)));
    writeFileSync(vcf, vcfText(dosages, 7));
    const fromVcf = prepared('vcf', ['--vcf', vcf], []);
    const vcfExpected = checksumOf(runCli(['run', '--input', fromVcf, ...common, '--out', join(dir, 'vcf-two')]));
    expect(checksumOf(runCli(['run', '--vcf', vcf, '--individuals', '--autosome', ...common, '--out', join(dir, 'vcf-one')]))).toBe(vcfExpected);
    expect(readSidecar(join(dir, 'vcf-one.input.json'))).toEqual(readSidecar(`${fromVcf}.json`));
  });

  it('bad input: one line naming the file, exit status 1, nothing left in the output directory', () => {
    const out = join(dir, 'failed');
    mkdirSync(out);
    const vcf = join(dir, 'bad.vcf');
    const dosages = Array.from({ length: 30 }, (_, s) => Array.from({ length: 5 }, (_, i) => (s + i) % 3));
    writeFileSync(vcf, vcfText(dosages, 5, ['1\t2000\trsbad\tA\tG\t.\tPASS\t.\tGT:DP\t0/1:7']));
    const bed = join(dir, 'short');
    for (const ext of ['bim', 'fam']) writeFileSync(`${bed}.${ext}`, readFileSync(`${prefix}.${ext}`));
    writeFileSync(`${bed}.bed`, readFileSync(`${prefix}.bed`).subarray(0, 300));
    for (const input of [['--vcf', vcf], ['--bfile', bed]]) {
      const outcome = runCli(['run', '--metric', 'king', ...input, '--individuals', '--out', join(out, 'k')]);
      expect(outcome.status).toBe(1);
      expect(outcome.stderr.trim().split('\n')).toHaveLength(1);
      expect(outcome.stderr).toContain(input[1] === vcf ? 'bad.vcf' : 'short.bed');
      expect(readdirSync(out)).toEqual([]);
    }
    expect(runCli(['run', '--metric', 'king', '--input', packedPath, '--individuals']).stderr)
      .toBe(`snptally: --input ${packedPath}: --individuals and --autosome apply to a PLINK fileset or VCF (a prepared file keeps the layout it was made with)\n`);
  });
});
