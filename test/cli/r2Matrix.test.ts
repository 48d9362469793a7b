// `snptally run --metric r2 --matrix triangle|square|square0 [--matrix-format text|bin|bin4]` writes PLINK 1.9's
// `--r2 <shape> [bin|bin4]` files: text and bin byte for byte those plink1.9 writes on the same .bed (plink1.9 --dummy
// data with missing calls); bin4 to within 4 float32 ulps, because PLINK computes its bin4 values in float32
// arithmetic while snptally rounds the exact double r² to float32 (its bin4 is exactly its bin rounded). The file does
// not depend on the backend (ref, cpu, webgpu), the decomposition (npv 1–3, npf 2, phases, half-diagonal plans) or
// the thread count; values equal a naive r² of the codes; options that cannot go with a matrix are refused.
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ldProblemCodes } from '../helpers/ldProblem.js';
import { naiveR2 } from '../helpers/naiveR2.js';
import { writePlinkFileset } from '../helpers/plinkFileset.js';
import { webgpuGate } from '../helpers/webgpuGate.js';
import { runCli } from './cliHarness.js';
import { ANALYSIS_NAMES, loadBuiltInAnalysis } from '../../src/analyses/registry.js';

const gate = await webgpuGate();
const dir = mkdtempSync(join(tmpdir(), 'snptally-r2-matrix-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function plink(args: readonly string[]): void {
  const r = spawnSync('plink1.9', [...args, '--threads', '1', '--allow-no-sex'], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`plink1.9 ${args.join(' ')} failed (${r.status}): ${r.stdout}${r.stderr}`);
}

/** plink1.9 --dummy data: `numSamples` × `numSnps`, 5 % missing calls. */
function dummyFileset(name: string, numSamples: number, numSnps: number, seed: number): string {
  const prefix = join(dir, name);
  plink(['--dummy', String(numSamples), String(numSnps), '0.05', '--seed', String(seed), '--make-bed', '--out', prefix]);
  return prefix;
}

const PLINK_MODIFIER = { text: [], bin: ['bin'], bin4: ['bin4'] } as const;
type Format = keyof typeof PLINK_MODIFIER;

function matrixPath(stub: string, format: Format): string {
  return format === 'text' ? `${stub}.ld` : `${stub}.ld.bin`;
}

/** PLINK's matrix file of `prefix`. */
function plinkMatrix(prefix: string, shape: string, format: Format): Buffer {
  const out = `${prefix}-plink-${shape}-${format}`;
  plink(['--bfile', prefix, '--r2', shape, ...PLINK_MODIFIER[format], '--out', out]);
  return readFileSync(matrixPath(out, format));
}

let runIdx = 0;
/** snptally's matrix file of `input` with extra run options; its --json report. */
function snptallyMatrix(
  input: string, shape: string, format: Format, extra: readonly string[] = [],
): { file: Buffer; report: { deviceFinalizedPairs: number; outputFiles: string[] } } {
  const stub = join(dir, `run${runIdx++}`);
  const outcome = runCli(['run', '--metric', 'r2', '--sparse', '--input', input, '--matrix', shape, '--matrix-format', format,
    '--output', stub, '--json', ...extra]);
  expect(outcome.status, outcome.stderr).toBe(0);
  const report = JSON.parse(outcome.stdout) as { deviceFinalizedPairs: number; outputFiles: string[] };
  expect(report.outputFiles).toEqual([matrixPath(stub, format)]);
  return { file: readFileSync(matrixPath(stub, format)), report };
}

const md5 = (bytes: Buffer): string => createHash('md5').update(bytes).digest('hex');

describe('r² dense matrix against plink1.9 --r2', () => {
  const prefix = dummyFileset('dummy', 40, 300, 11);

  for (const shape of ['triangle', 'square', 'square0'] as const) {
    it(`${shape}: text and bin byte for byte PLINK's; bin4 within 4 float32 ulps of PLINK's and exactly bin rounded`, () => {
      for (const format of ['text', 'bin'] as const) {
        const ours = snptallyMatrix(prefix, shape, format, ['--threads', '2']).file;
        expect(ours.equals(plinkMatrix(prefix, shape, format)), `${shape} ${format}`).toBe(true);
      }
      const theirs = new Float32Array(new Uint8Array(plinkMatrix(prefix, shape, 'bin4')).buffer);
      const ours = new Float32Array(new Uint8Array(snptallyMatrix(prefix, shape, 'bin4').file).buffer);
      const ourDoubles = new Float64Array(new Uint8Array(snptallyMatrix(prefix, shape, 'bin').file).buffer);
      expect(ours.length).toBe(theirs.length);
      const theirBits = new Int32Array(theirs.buffer);
      const ourBits = new Int32Array(ours.buffer);
      let maxUlps = 0;
      for (let k = 0; k < ours.length; k++) {
        expect(Number.isNaN(ours[k]), `element ${k}`).toBe(Number.isNaN(theirs[k]));
        if (Number.isNaN(ours[k])) {
          expect(ourBits[k]).toBe(theirBits[k]);
          continue;
        }
        expect(ours[k]).toBe(Math.fround(ourDoubles[k]));
        maxUlps = Math.max(maxUlps, Math.abs(ourBits[k] - theirBits[k]));
      }
      expect(maxUlps).toBeLessThanOrEqual(4);
    });
  }

  it('a matrix of several panels per block (2100 SNPs): triangle text byte for byte PLINK\'s', () => {
    const large = dummyFileset('large', 24, 2100, 5);
    expect(snptallyMatrix(large, 'triangle', 'text', ['--threads', '2']).file.equals(plinkMatrix(large, 'triangle', 'text'))).toBe(true);
  });
});

describe('r² dense matrix: one file whatever computes it', () => {
  const prefix = dummyFileset('decomposed', 30, 230, 23);
  const reference = { bin: md5(snptallyMatrix(prefix, 'square', 'bin', ['--threads', '1']).file), bin4: md5(snptallyMatrix(prefix, 'triangle', 'bin4', ['--threads', '1']).file) };
  const RUNS: readonly (readonly string[])[] = [
    ['--threads', '2'], ['--backend', 'ref'], ['--npv', '2'], ['--npv', '3', '--threads', '2'], ['--npv', '3', '--phases', '2'],
    ['--npf', '2'], ['--npv', '2', '--npf', '2', '--half-diagonal', 'split'], ['--npv', '2', '--phases', '2', '--half-diagonal', 'split'],
  ];
  for (const args of RUNS) {
    it(`${args.join(' ')}: square bin and triangle bin4 equal one cpu thread's`, () => {
      expect(md5(snptallyMatrix(prefix, 'square', 'bin', args).file)).toBe(reference.bin);
      expect(md5(snptallyMatrix(prefix, 'triangle', 'bin4', args).file)).toBe(reference.bin4);
    });
  }

  describe.skipIf(!gate.available)(`on the GPU (${gate.description})`, () => {
    for (const args of [[], ['--npv', '2'], ['--npv', '3']] as const) {
      it(`--backend webgpu ${args.join(' ')}: every value from the device, the cpu's files`, () => {
        const numPairs = (230 * 229) / 2;
        const square = snptallyMatrix(prefix, 'square', 'bin', ['--backend', 'webgpu', ...args]);
        expect(square.report.deviceFinalizedPairs).toBe(numPairs);
        expect(md5(square.file)).toBe(reference.bin);
        const triangle = snptallyMatrix(prefix, 'triangle', 'bin4', ['--backend', 'webgpu', ...args]);
        expect(triangle.report.deviceFinalizedPairs).toBe(numPairs);
        expect(md5(triangle.file)).toBe(reference.bin4);
      });
    }
  });
});

describe('r² dense matrix against a naive r²', () => {
  it('square bin: every value the double of the naive sums over common samples (NaN where undefined)', () => {
    const numVector = 70;
    const numField = 57;
    const codes = ldProblemCodes(numVector, numField, 99, 0.1);
    const prefix = join(dir, 'naive');
    writePlinkFileset(prefix, codes, numVector, numField);
    const naive = naiveR2(numVector, numField, true, (v, f) => codes[v * numField + f]);
    const file = snptallyMatrix(prefix, 'square', 'bin', ['--npv', '2']).file;
    const values = new Float64Array(new Uint8Array(file).buffer);
    let numNaN = 0;
    for (let i = 0; i < numVector; i++) {
      for (let j = 0; j < numVector; j++) {
        const expected = i === j ? 1 : naive.values.get(`${Math.min(i, j)},${Math.max(i, j)}`);
        if (expected === undefined) throw new Error(`no naive value of ${i}, ${j}`);
        if (Number.isNaN(expected)) numNaN++;
        expect(Object.is(values[i * numVector + j], expected) || (Number.isNaN(expected) && Number.isNaN(values[i * numVector + j])), `${i}, ${j}`).toBe(true);
      }
    }
    // The problem has undefined pairs (monomorphic SNPs), so NaN placement is checked too.
    expect(numNaN).toBeGreaterThan(0);
  });
});

describe('r² dense matrix refusals', () => {
  const prefix = dummyFileset('refused', 20, 30, 3);
  const refused = (args: readonly string[], message: RegExp): void => {
    const outcome = runCli(['run', '--input', prefix, '--sparse', ...args]);
    expect(outcome.status).toBe(1);
    expect(outcome.stderr).toMatch(message);
    expect(outcome.stderr.trim().split('\n')).toHaveLength(1);
  };

  it('ccc and duo (four table entries per pair) have no dense matrix', async () => {
    // The list names every built-in analysis with a dense matrix, r² among them.
    const analyses = await Promise.all(ANALYSIS_NAMES.map((name) => loadBuiltInAnalysis(name)));
    const withMatrix = analyses.filter((a) => a.results.includes('dense-matrix')).map((a) => a.name);
    expect(withMatrix).toContain('r2');
    refused(['--matrix', 'square', '--output', join(dir, 'ccc')],
      new RegExp(`^snptally: --matrix holds one value per pair, and --metric ccc has no dense-matrix result \\(metrics with one: ${withMatrix.join(', ')}\\)`));
    refused(['--metric', 'duo', '--matrix', 'triangle', '--output', join(dir, 'duo')], /--metric duo has no dense-matrix result/);
  });

  it('an existing matrix without --force; with --force it is replaced', () => {
    const stub = join(dir, 'existing');
    writeFileSync(`${stub}.ld`, 'old\n');
    refused(['--metric', 'r2', '--matrix', 'square', '--output', stub], /output .*existing\.ld already exists; use --force to overwrite/);
    const forced = runCli(['run', '--input', prefix, '--sparse', '--metric', 'r2', '--matrix', 'square', '--output', stub, '--force']);
    expect(forced.status, forced.stderr).toBe(0);
    expect(readFileSync(`${stub}.ld`, 'utf8').split('\n')).toHaveLength(31);
  });

  it('options a matrix cannot go with', () => {
    const r2 = ['--metric', 'r2', '--output', join(dir, 'opts')];
    refused([...r2, '--matrix', 'square', '--threshold', '0.2'], /--matrix writes every pair's value; --threshold applies to records/);
    refused([...r2, '--matrix-format', 'bin'], /--matrix-format applies to --matrix only/);
    refused([...r2, '--matrix', 'square', '--npv', '3', '--phases', '2', '--phase-max', '0'], /--matrix needs every pair: compute all phases/);
    refused([...r2, '--matrix', 'square', '--single-precision'], /use --matrix-format bin4/);
    refused(['--metric', 'r2', '--matrix', 'triangle'], /--matrix needs --out STUB \(the matrix is written to STUB\.ld\)/);
  });

  it('dump, top, merge and report refuse a matrix file: it holds values, not records', () => {
    const stub = join(dir, 'notrecords');
    const made = runCli(['run', '--input', prefix, '--sparse', '--metric', 'r2', '--matrix', 'triangle', '--matrix-format', 'bin4', '--output', stub]);
    expect(made.status, made.stderr).toBe(0);
    for (const args of [['dump', `${stub}.ld.bin`], ['top', `${stub}.ld.bin`], ['merge', '--out', join(dir, 'merged.bin'), `${stub}.ld.bin`]]) {
      const outcome = runCli(args);
      expect(outcome.status).toBe(1);
      expect(outcome.stdout).toBe('');
      expect(outcome.stderr.trim()).toMatch(/^snptally: .*notrecords\.ld\.bin is a dense triangle matrix \(bin4, PLINK's layout; .*\), not records/);
    }
    const report = runCli(['report', stub, '--out', join(dir, 'report.html')]);
    expect(report.status).toBe(1);
    expect(report.stderr.trim()).toMatch(/the run wrote a dense triangle matrix \(bin4\), not records/);
  });
});
