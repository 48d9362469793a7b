// `snptally run --metric r2` agrees with PLINK 1.9's `--r2 square` on the same .bed: every pair to PLINK's
// printed precision (text), every value bit for bit after float32 rounding (binary output), and the
// checksum of PLINK's doubles equals snptally's. Data: plink1.9 --dummy (with and without missing calls)
// and a fileset of linked SNPs with undefined (nan) pairs.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ChecksumAccumulator, entryUid2, formatChecksum } from '../../src/core/checksum.js';
import { readMetricsFileRecords } from '../../src/io/index.js';
import { ldProblemCodes } from '../helpers/ldProblem.js';
import { readSquareBinary, readSquareText, writePlinkFileset } from '../helpers/plinkFileset.js';
import { runCli } from './cliHarness.js';

const dir = mkdtempSync(join(tmpdir(), 'snptally-r2-plink-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function plink(args: readonly string[]): void {
  const r = spawnSync('plink1.9', [...args, '--threads', '1', '--allow-no-sex'], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`plink1.9 ${args.join(' ')} failed (${r.status}): ${r.stdout}${r.stderr}`);
}

interface PlinkR2 {
  numVector: number;
  numField: number;
  /** The fileset prefix snptally reads (its own .bed reader). */
  prefix: string;
  text: string[][];
  doubles: Float64Array;
}

/** PLINK's square r² matrix (text and binary) of `<prefix>.bed`, and the .bed converted for snptally. */
function plinkSquare(prefix: string): PlinkR2 {
  plink(['--bfile', prefix, '--r2', 'square', '--out', `${prefix}-text`]);
  plink(['--bfile', prefix, '--r2', 'square', 'bin', '--out', `${prefix}-bin`]);
  const lines = (path: string): number => readFileSync(path, 'utf8').split('\n').filter((line) => line.trim() !== '').length;
  const numVector = lines(`${prefix}.bim`);
  const numField = lines(`${prefix}.fam`);
  return {
    numVector, numField, prefix,
    text: readSquareText(`${prefix}-text.ld`, numVector),
    doubles: readSquareBinary(`${prefix}-bin.ld.bin`, numVector),
  };
}

let runIdx = 0;
/** snptally's r² of every pair (i < j) as written (float32), and its checksum. */
function snptallyR2(
  p: PlinkR2, sparse: boolean, input: readonly string[] = ['--input', p.prefix],
): { checksum: string; values: Map<number, number> } {
  const stub = join(dir, `run${runIdx++}`);
  const outcome = runCli(['run', '--metric', 'r2', ...(sparse ? ['--sparse'] : []), ...input,
    '--npv', '2', '--threads', '2', '--output', stub, '--json']);
  expect(outcome.status, outcome.stderr).toBe(0);
  const report = JSON.parse(outcome.stdout) as { checksum: string; entries: number; outputFiles: string[] };
  expect(report.entries).toBe((p.numVector * (p.numVector - 1)) / 2);
  const values = new Map<number, number>();
  for (const file of report.outputFiles) {
    for (const { coords, value } of readMetricsFileRecords(file, 2)) {
      const [i, j] = coords.map((x) => x >> 1).sort((a, b) => a - b);
      values.set(i * p.numVector + j, value);
    }
  }
  expect(values.size).toBe(report.entries);
  return { checksum: report.checksum, values };
}

/** PLINK prints 6 significant digits: |ours − printed| ≤ half a unit of the 6th digit (+ float32 rounding). */
function agreesWithPrinted(ours: number, printed: string): boolean {
  if (printed === 'nan') return Number.isNaN(ours);
  const t = Number(printed);
  if (!Number.isFinite(t)) throw new Error(`unexpected PLINK value ${printed}`);
  if (t === 0) return ours === 0;
  const halfUnit = 0.5 * 10 ** (Math.floor(Math.log10(Math.abs(t))) - 5);
  return Math.abs(ours - t) <= halfUnit + Math.abs(t) * 2 ** -23;
}

/** Counts pairs (i < j) where snptally disagrees with PLINK's text, and checks the exact comparisons. */
function comparePairs(p: PlinkR2, ours: { checksum: string; values: Map<number, number> }): { mismatches: number; nan: number } {
  const plinkChecksum = new ChecksumAccumulator();
  let mismatches = 0, nan = 0, exact = 0;
  for (let i = 0; i < p.numVector; i++) for (let j = i + 1; j < p.numVector; j++) {
    const value = ours.values.get(i * p.numVector + j) as number;
    const plinkDouble = p.doubles[i * p.numVector + j];
    expect(p.doubles[j * p.numVector + i]).toBe(plinkDouble); // PLINK's matrix is symmetric
    if (!agreesWithPrinted(value, p.text[i][j])) mismatches++;
    if (Object.is(value, Math.fround(plinkDouble))) exact++;
    if (Number.isNaN(plinkDouble)) nan++;
    plinkChecksum.add(entryUid2(p.numVector, i, 1, j, 1), plinkDouble);
  }
  if (mismatches === 0) {
    expect(exact).toBe(ours.values.size);
    expect(ours.checksum).toBe(formatChecksum(plinkChecksum.sum()));
  }
  return { mismatches, nan };
}

describe('r2 agrees with plink1.9 --r2 square', () => {
  it('plink1.9 --dummy 1000 250 0.05 (missing calls): pairwise complete samples, every pair', () => {
    const prefix = join(dir, 'dummy-missing');
    plink(['--dummy', '1000', '250', '0.05', '--seed', '7', '--make-bed', '--out', prefix]);
    const p = plinkSquare(prefix);
    const sparse = comparePairs(p, snptallyR2(p, true));
    expect(sparse.mismatches).toBe(0);
    // r² always skips missing calls (as PLINK's --r2): without --sparse, and on a bare packed file (no sidecar).
    expect(comparePairs(p, snptallyR2(p, false)).mismatches).toBe(0);
    const packed = join(dir, 'dummy-missing.packed');
    expect(runCli(['prepare', prefix, '--out', packed]).status).toBe(0);
    const bare = join(dir, 'dummy-missing.bare');
    copyFileSync(packed, bare);
    const dims = ['--vectors', String(p.numVector), '--fields', String(p.numField)];
    expect(comparePairs(p, snptallyR2(p, false, ['--input', bare, ...dims])).mismatches).toBe(0);
    // The comparison can fail: other data of the same size disagree on nearly every pair.
    const other = join(dir, 'dummy-other');
    plink(['--dummy', '1000', '250', '0.05', '--seed', '9', '--make-bed', '--out', other]);
    const wrong = comparePairs(p, snptallyR2(p, false, ['--input', other]));
    expect(wrong.mismatches).toBeGreaterThan(0.9 * (p.numVector * (p.numVector - 1)) / 2);
  });

  it('plink1.9 --dummy 1000 250 0 (no missing calls): runs with and without --sparse both agree', () => {
    const prefix = join(dir, 'dummy-dense');
    plink(['--dummy', '1000', '250', '0', '--seed', '8', '--make-bed', '--out', prefix]);
    const p = plinkSquare(prefix);
    expect(comparePairs(p, snptallyR2(p, false)).mismatches).toBe(0);
    expect(comparePairs(p, snptallyR2(p, true)).mismatches).toBe(0);
  });

  it('linked SNPs, monomorphic and all-missing SNPs: strong r², and nan exactly where PLINK has nan', () => {
    const numVector = 240, numField = 1001;
    const prefix = join(dir, 'linked');
    writePlinkFileset(prefix, ldProblemCodes(numVector, numField, 99, 0.05), numVector, numField);
    const p = plinkSquare(prefix);
    const ours = snptallyR2(p, true);
    const { mismatches, nan } = comparePairs(p, ours);
    expect(mismatches).toBe(0);
    expect(nan).toBeGreaterThan(3 * numVector);
    expect([...ours.values.values()].filter((v) => v > 0.5).length).toBeGreaterThan(numVector / 4);
  });
});
