// `run --input <fileset>` reads the .bed into memory that the engine reads in place (whole records in bulk, or the rows
// one at a time after a --keep): the same checksum, record files and kept sidecar as `prepare` then `run` on the
// prepared file, for windowed r² and all-pairs CCC, one and two in-process ranks, on 37 samples (not a multiple of 4
// or 32), missing calls, 3 chromosomes, with --chr, --extract, --keep; and --maf, which keeps the temporary file.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mulberry32 } from '../../src/core/seededRandom.js';
import { writePlinkFileset, type DosageMatrix } from '../io/genotypeFixtures.js';
import { runCli } from './cliHarness.js';

const dir = mkdtempSync(join(tmpdir(), 'snptally-bed-in-memory-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const at = (name: string): string => join(dir, name);
const prefix = at('data');
const NUM_SNP = 240;
const NUM_SAMPLE = 37;

beforeAll(() => {
  const random = mulberry32(24);
  const dosages: DosageMatrix = Array.from({ length: NUM_SNP }, () => {
    const frequency = 0.05 + 0.9 * random();
    return Array.from({ length: NUM_SAMPLE }, () => {
      if (random() < 0.04) return null;
      return (random() < frequency ? 1 : 0) + (random() < frequency ? 1 : 0);
    });
  });
  writePlinkFileset(prefix, dosages, NUM_SAMPLE);
  // 3 chromosomes of 80 SNPs, 3–9 kb apart.
  let bp = 0;
  writeFileSync(`${prefix}.bim`, dosages.map((_, s) => {
    bp = s % 80 === 0 ? 5000 : bp + 3000 + Math.floor(random() * 6000);
    return `${1 + Math.floor(s / 80)}\trs${s}\t0\t${bp}\tG\tA\n`;
  }).join(''));
  writeFileSync(at('extract.txt'), Array.from({ length: NUM_SNP }, (_, s) => (s % 4 === 1 ? '' : `rs${s}\n`)).join(''));
  writeFileSync(at('keep.txt'), Array.from({ length: NUM_SAMPLE }, (_, i) => (i % 5 === 2 ? '' : `fam${i} ind${i}\n`)).join(''));
});

interface RunReport {
  readonly checksum: string;
  readonly entries: number;
  readonly outputFiles: readonly string[];
}

function run(args: readonly string[], stub: string, env: Record<string, string> = {}): { report: RunReport; stderr: string } {
  const outcome = runCli(['run', ...args, '--out', stub, '--json'], { env });
  expect(outcome.status, outcome.stderr).toBe(0);
  return { report: JSON.parse(outcome.stdout) as RunReport, stderr: outcome.stderr };
}

/** `inMemory`: where the SNPs are counted before their rows (not after --maf: then a temporary file, as before). */
const SELECTIONS: readonly { readonly name: string; readonly flags: () => string[]; readonly inMemory: boolean }[] = [
  { name: 'everything', flags: () => [], inMemory: true },
  { name: '--chr 1,3', flags: () => ['--chr', '1,3'], inMemory: true },
  { name: '--extract', flags: () => ['--extract', at('extract.txt')], inMemory: true },
  { name: '--keep', flags: () => ['--keep', at('keep.txt')], inMemory: true },
  { name: '--chr 2 --maf 0.2', flags: () => ['--chr', '2', '--maf', '0.2'], inMemory: false },
];

const ANALYSES: readonly { readonly name: string; readonly args: readonly string[] }[] = [
  { name: 'r² in 40 kb windows, 2 threads', args: ['--metric', 'r2', '--ld-window-kb', '40', '--ld-window', '99999', '--ld-window-r2', '0', '--threads', '2'] },
  { name: 'all-pairs sparse CCC, npv 2', args: ['--metric', 'ccc', '--sparse', '--npv', '2', '--threads', '2'] },
];

describe.each(SELECTIONS)('run on a fileset, $name (in memory: $inMemory)', ({ name, flags, inMemory: expectInMemory }) => {
  it.each(ANALYSES)('$name: as prepare then run on the prepared file', ({ args }) => {
    const tag = `${name}-${args[1]}`.replace(/[^a-z0-9]+/gi, '_');
    const prepared = at(`${tag}.packed`);
    const prepare = runCli(['prepare', prefix, ...flags(), '--out', prepared]);
    expect(prepare.status, prepare.stderr).toBe(0);
    const fromFile = run([...args, '--input', prepared], at(`${tag}-file`));
    const inMemory = run([...args, '--input', prefix, ...flags()], at(`${tag}-memory`), { SNPTALLY_TRACE: '1' });
    // The engine read the rows in memory (its trace says so), not a temporary file.
    expect(inMemory.stderr.includes('input in memory final')).toBe(expectInMemory);
    expect(inMemory.report.entries).toBeGreaterThan(0);
    expect(inMemory.report.checksum).toBe(fromFile.report.checksum);
    expect(inMemory.report.entries).toBe(fromFile.report.entries);
    expect(inMemory.report.outputFiles).toHaveLength(fromFile.report.outputFiles.length);
    inMemory.report.outputFiles.forEach((file, k) => expect(readFileSync(file).equals(readFileSync(fromFile.report.outputFiles[k]))).toBe(true));
    // The input's sidecar kept beside the records is the prepared file's.
    expect(readFileSync(at(`${tag}-memory.input.json`), 'utf8')).toBe(readFileSync(`${prepared}.json`, 'utf8'));
  });
});
