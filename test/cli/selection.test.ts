// PLINK's selection flags on `prepare` and `run`: the same SNPs and samples as `plink1.9 … --make-bed`, the same r²
// as `plink1.9 --r2` on PLINK's selected fileset, on data spread over chromosomes 1–3 with real positions; and the
// one-line refusals of bad selections.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readMetricsFileRecords } from '../../src/io/index.js';
import { ldProblemCodes } from '../helpers/ldProblem.js';
import { readSquareBinary, writePlinkFileset } from '../helpers/plinkFileset.js';
import { runCli } from './cliHarness.js';

const dir = mkdtempSync(join(tmpdir(), 'snptally-selection-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const at = (name: string): string => join(dir, name);

function plink(args: readonly string[]): void {
  const r = spawnSync('plink1.9', [...args, '--threads', '1', '--allow-no-sex'], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`plink1.9 ${args.join(' ')} failed (${r.status}): ${r.stdout}${r.stderr}`);
}

const columnsOf = (path: string): string[][] =>
  readFileSync(path, 'utf8').split('\n').filter((line) => line.trim() !== '').map((line) => line.trim().split(/\s+/));

/** Spreads a fileset's SNPs over chromosomes 1–3 (a third each), positions increasing by 7 kb on each. */
function spreadOverChromosomes(prefix: string): void {
  const rows = columnsOf(`${prefix}.bim`);
  const perChromosome = Math.ceil(rows.length / 3);
  writeFileSync(`${prefix}.bim`, rows.map((columns, v) => {
    const chromosome = Math.floor(v / perChromosome) + 1;
    return [String(chromosome), columns[1], '0', String(10_000 + 7_000 * (v % perChromosome)), columns[4], columns[5]].join('\t');
  }).join('\n') + '\n');
}

interface Selected {
  readonly snpIds: readonly string[];
  readonly sampleIds: readonly string[];
  readonly selection: Record<string, unknown> | null;
}

/** `snptally prepare` with `flags`: the kept SNP IDs and samples (FID_IID) from the sidecar. */
function snptallySelection(input: readonly string[], flags: readonly string[], name: string): Selected {
  const out = at(`${name}.packed`);
  const outcome = runCli(['prepare', ...input, ...flags, '--out', out, '--json']);
  expect(outcome.status, outcome.stderr).toBe(0);
  const sidecar = JSON.parse(readFileSync(`${out}.json`, 'utf8')) as {
    snps: { id: string[] }; sampleIds: string[]; selection: Record<string, unknown> | null;
  };
  return { snpIds: sidecar.snps.id, sampleIds: sidecar.sampleIds, selection: sidecar.selection };
}

/** `plink1.9 --bfile prefix FLAGS --make-bed`: the kept SNP IDs and samples. */
function plinkSelection(prefix: string, flags: readonly string[], name: string): Selected {
  plink(['--bfile', prefix, ...flags, '--make-bed', '--out', at(name)]);
  return {
    snpIds: columnsOf(at(`${name}.bim`)).map((columns) => columns[1]),
    sampleIds: columnsOf(at(`${name}.fam`)).map((columns) => `${columns[0]}_${columns[1]}`),
    selection: null,
  };
}

describe('selection agrees with plink1.9', () => {
  const dummy = at('dummy');
  const linked = at('linked');
  beforeAll(() => {
    plink(['--dummy', '300', '900', '0.03', '--seed', '11', '--make-bed', '--out', dummy]);
    spreadOverChromosomes(dummy);
    // Linked SNPs with allele frequencies from 0.05 to 0.95: --maf removes some (PLINK's dummy data are all near 0.5).
    const numVector = 600, numField = 240;
    writePlinkFileset(linked, ldProblemCodes(numVector, numField, 5, 0.04), numVector, numField);
    spreadOverChromosomes(linked);
    const famRows = columnsOf(`${dummy}.fam`);
    writeFileSync(at('keep.txt'), famRows.filter((_, s) => s % 3 !== 0).map((c) => `${c[0]} ${c[1]}`).join('\n') + '\n');
    writeFileSync(at('remove.txt'), famRows.filter((_, s) => s % 10 === 1).map((c) => `${c[0]}\t${c[1]}\textra`).join('\n') + '\n');
    const bimRows = columnsOf(`${dummy}.bim`);
    // Several IDs per line, and one that is not in the data: both as PLINK reads them.
    writeFileSync(at('extract.txt'), bimRows.filter((_, v) => v % 4 !== 3).map((c) => c[1])
      .reduce((text, id, k) => `${text}${id}${k % 5 === 4 ? '\n' : ' '}`, '') + 'no-such-snp\n');
    writeFileSync(at('exclude.txt'), bimRows.filter((_, v) => v % 9 === 2).map((c) => c[1]).join('\n') + '\n');
    const linkedFam = columnsOf(`${linked}.fam`);
    writeFileSync(at('keep-linked.txt'), linkedFam.filter((_, s) => s % 4 !== 0).map((c) => `${c[0]} ${c[1]}`).join('\n') + '\n');
  });

  const cases: readonly { name: string; data: 'dummy' | 'linked'; flags: (file: (n: string) => string) => string[] }[] = [
    { name: 'chr-list', data: 'dummy', flags: () => ['--chr', '1,3'] },
    { name: 'chr-range-bp', data: 'dummy', flags: () => ['--chr', '2', '--from-bp', '500000', '--to-bp', '1500000'] },
    { name: 'extract-exclude', data: 'dummy', flags: (f) => ['--chr', '1-2', '--extract', f('extract.txt'), '--exclude', f('exclude.txt')] },
    { name: 'keep-remove-geno', data: 'dummy', flags: (f) => ['--keep', f('keep.txt'), '--remove', f('remove.txt'), '--geno', '0.03'] },
    { name: 'geno-default', data: 'linked', flags: () => ['--geno'] },
    { name: 'maf', data: 'linked', flags: (f) => ['--maf', '0.2', '--keep', f('keep-linked.txt')] },
    { name: 'maf-default-all', data: 'linked', flags: (f) => ['--chr', '1', '3', '--maf', '--geno', '0.05', '--keep', f('keep-linked.txt')] },
  ];
  for (const { name, data, flags } of cases) {
    it(`${name}: the same SNPs and samples as plink1.9 --make-bed`, () => {
      const prefix = data === 'dummy' ? dummy : linked;
      const ours = snptallySelection([prefix], flags(at), `ours-${name}`);
      const theirs = plinkSelection(prefix, flags(at), `plink-${name}`);
      expect(ours.snpIds).toEqual(theirs.snpIds);
      expect(ours.sampleIds).toEqual(theirs.sampleIds);
      // The comparison can fail: the selection removed something on the way.
      expect(ours.snpIds.length < columnsOf(`${prefix}.bim`).length || ours.sampleIds.length < columnsOf(`${prefix}.fam`).length).toBe(true);
      const record = ours.selection as { numVariantKept: number; numSampleKept: number; variantsRemoved: Record<string, number> };
      expect(record.numVariantKept).toBe(theirs.snpIds.length);
      expect(record.numSampleKept).toBe(theirs.sampleIds.length);
      const removedVariants = Object.values(record.variantsRemoved).reduce((a, b) => a + b, 0);
      expect(removedVariants + record.numVariantKept).toBe(columnsOf(`${prefix}.bim`).length);
    });
  }

  it('the VCF of the fileset (plink1.9 --recode vcf) selects the same SNPs and samples', () => {
    plink(['--bfile', dummy, '--recode', 'vcf', '--out', at('dummy-vcf')]);
    const flags = ['--chr', '1-2', '--keep', at('keep.txt'), '--remove', at('remove.txt'), '--exclude', at('exclude.txt'), '--geno', '0.03'];
    const fromVcf = snptallySelection(['--vcf', at('dummy-vcf.vcf')], flags, 'vcf-selected');
    const theirs = plinkSelection(dummy, flags, 'plink-vcf-selected');
    expect(fromVcf.snpIds).toEqual(theirs.snpIds);
    expect(fromVcf.sampleIds).toEqual(theirs.sampleIds);
  });

  it('run --metric r2 on a selection (no --sparse): every r² as plink1.9 --r2 on its --make-bed of the selection', () => {
    const flags = ['--chr', '1,3', '--keep', at('keep-linked.txt'), '--maf', '0.1', '--geno', '0.05'];
    plink(['--bfile', linked, ...flags, '--make-bed', '--out', at('plink-r2')]);
    plink(['--bfile', at('plink-r2'), '--r2', 'square', 'bin', '--out', at('plink-r2-square')]);
    const numVector = columnsOf(at('plink-r2.bim')).length;
    const doubles = readSquareBinary(at('plink-r2-square.ld.bin'), numVector);
    const stub = at('ours-r2');
    const outcome = runCli(['run', '--metric', 'r2', '--bfile', linked, ...flags, '--npv', '2', '--out', stub, '--json']);
    expect(outcome.status, outcome.stderr).toBe(0);
    const report = JSON.parse(outcome.stdout) as { entries: number; numVector: number; outputFiles: string[] };
    expect(report.numVector).toBe(numVector);
    expect(report.entries).toBe((numVector * (numVector - 1)) / 2);
    let same = 0;
    for (const file of report.outputFiles) {
      for (const { coords, value } of readMetricsFileRecords(file, 2)) {
        const [i, j] = coords.map((x) => x >> 1);
        if (Object.is(value, Math.fround(doubles[i * numVector + j]))) same++;
      }
    }
    expect(same).toBe(report.entries);
  });
});

describe('bad selections: one line naming the option or file, exit 1', () => {
  const prefix = at('small');
  beforeAll(() => {
    writePlinkFileset(prefix, ldProblemCodes(40, 30, 3, 0.02), 40, 30);
    spreadOverChromosomes(prefix);
    writeFileSync(at('nobody.txt'), 'nofam noind\n');
  });
  const refusals: readonly [string, string[], RegExp][] = [
    ['a missing ID file', ['--extract', at('absent.txt')], /^snptally: cannot read --extract file .*absent\.txt: /],
    ['a bad chromosome range', ['--chr', '3-1'], /^snptally: --chr: "3-1" is not a range of chromosome codes/],
    ['a chromosome code past MT', ['--chr', '27'], /^snptally: --chr: 27 is not a chromosome code/],
    ['--from-bp without --chr', ['--from-bp', '100'], /^snptally: --from-bp and --to-bp need --chr with exactly one chromosome/],
    ['--to-bp with two chromosomes', ['--chr', '1-2', '--to-bp', '100'], /^snptally: --from-bp and --to-bp need --chr/],
    ['--maf above 0.5', ['--maf', '0.7'], /^snptally: --maf must be between 0 and 0\.5, got "0\.7"/],
    ['a selection of no samples', ['--keep', at('nobody.txt')], /^snptally: --keep .*nobody\.txt keep none of the 30 samples of /],
    ['a selection of no SNPs', ['--chr', '5'], /^snptally: the selection keeps none of the 40 variants of .* \(removed 40 by --chr\)/],
  ];
  for (const [what, flags, message] of refusals) {
    it(`refuses ${what} (prepare and run)`, () => {
      for (const args of [['prepare', prefix, '--out', at('refused.packed')], ['run', '--bfile', prefix, '--metric', 'r2']]) {
        const outcome = runCli([...args, ...flags]);
        expect(outcome.status).toBe(1);
        expect(outcome.stderr).toMatch(message);
        expect(outcome.stderr.split('\n')).toHaveLength(2);
      }
    });
  }

  it('refuses selection options on a prepared file and on a synthetic problem', () => {
    expect(runCli(['prepare', prefix, '--out', at('whole.packed')]).status).toBe(0);
    const prepared = runCli(['run', '--input', at('whole.packed'), '--chr', '1']);
    expect(prepared.status).toBe(1);
    expect(prepared.stderr).toMatch(/selection options apply to a PLINK fileset or VCF/);
    const synthetic = runCli(['run', '--vectors', '8', '--fields', '8', '--maf']);
    expect(synthetic.status).toBe(1);
    expect(synthetic.stderr).toMatch(/selection options need a PLINK fileset or VCF input/);
  });
});
