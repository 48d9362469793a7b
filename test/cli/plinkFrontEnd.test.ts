// `snptally plink <PLINK flags>` against plink1.9 with the same flags on the same fileset (three chromosomes, real
// positions, missing calls): the same .ld byte for byte (all pairs with inter-chr, D/D′ modes, selections, gz), the
// same matrix files (text and bin byte for byte, bin4 within float32 rounding), a .log, and one-line refusals.
// Windowed table mode (PLINK's default) is in plinkWindows.test.ts.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './cliHarness.js';
import { runPlink, writeLdFixture } from './plinkLdFixture.js';

const dir = mkdtempSync(join(tmpdir(), 'snptally-plink-front-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const data = join(dir, 'd');

beforeAll(() => {
  writeLdFixture(data, 120, 60, 0.03);
  writeFileSync(join(dir, 'snps.txt'), `${readFileSync(`${data}.bim`, 'utf8').trim().split('\n').filter((_, s) => s % 4 !== 1).map((line) => line.split('\t')[1]).join('\n')}\n`);
  writeFileSync(join(dir, 'people.txt'), `${readFileSync(`${data}.fam`, 'utf8').trim().split('\n').slice(0, 90).map((line) => line.split(/\s+/).slice(0, 2).join(' ')).join('\n')}\n`);
});

let caseIdx = 0;
/** Runs the same flags through plink1.9 and snptally plink; returns both output prefixes. */
function both(flags: readonly string[]): { plinkOut: string; ours: string; stdout: string } {
  const plinkOut = join(dir, `p${caseIdx}`);
  const ours = join(dir, `s${caseIdx++}`);
  runPlink(['--bfile', data, ...flags, '--out', plinkOut]);
  const outcome = runCli(['plink', '--bfile', data, ...flags, '--out', ours]);
  expect(outcome.stderr).toBe('');
  expect(outcome.status).toBe(0);
  return { plinkOut, ours, stdout: outcome.stdout };
}

describe('snptally plink --r2 tables', () => {
  const tableCases: Array<readonly string[]> = [
    ['--r2', 'inter-chr', '--ld-window-r2', '0.02'],
    ['--r2', 'inter-chr', '--ld-window-r2', '0'],
    ['--r2', 'inter-chr', 'dprime', '--ld-window-r2', '0.02'],
    ['--r2', 'inter-chr', 'dprime-signed', '--ld-window-r2', '0'],
    ['--r2', 'inter-chr', 'd', '--ld-window-r2', '0.05'],
    ['--r2', 'inter-chr', '--chr', '1', '5', '--maf', '0.1', '--geno', '0.05', '--extract', join(dir, 'snps.txt'), '--keep', join(dir, 'people.txt'), '--ld-window-r2', '0.01'],
  ];
  for (const flags of tableCases) {
    it(`writes plink1.9's .ld byte for byte: ${flags.filter((flag) => !flag.startsWith('/')).join(' ')}`, () => {
      const { plinkOut, ours } = both(flags);
      const expected = readFileSync(`${plinkOut}.ld`, 'latin1');
      expect(expected.split('\n').length).toBeGreaterThan(20);
      expect(readFileSync(`${ours}.ld`, 'latin1')).toBe(expected);
    });
  }

  it('compresses the table with gz, as <out>.ld.gz', () => {
    const { plinkOut, ours } = both(['--r2', 'inter-chr', 'gz', '--ld-window-r2', '0.1']);
    expect(existsSync(`${ours}.ld`)).toBe(false);
    expect(gunzipSync(readFileSync(`${ours}.ld.gz`)).toString('latin1')).toBe(gunzipSync(readFileSync(`${plinkOut}.ld.gz`)).toString('latin1'));
  });

  it('writes a .log naming the options in effect and the snptally commands it ran, also on stdout', () => {
    const { ours, stdout } = both(['--r2', 'inter-chr', '--ld-window-r2', '0.3']);
    const log = readFileSync(`${ours}.log`, 'utf8');
    expect(log).toBe(stdout);
    expect(log).toContain('Options in effect:\n  --bfile');
    expect(log).toContain('  --r2 inter-chr\n  --ld-window-r2 0.3\n');
    expect(log).toMatch(/\n {2}snptally prepare --bfile \S+ --filter-founders --out \S+input\.packed --json\n {2}snptally run --metric r2 --input /);
    expect(log).toContain('60 variants and 120 people pass filters and QC.');
    expect(log).toContain(`Results written to ${ours}.ld .`);
    // Nothing else is left beside the outputs (the scratch directory is gone).
    expect(readdirSync(dir).filter((name) => name.startsWith('.snptally-plink-'))).toEqual([]);
  });
});

describe('snptally plink --r2 matrices', () => {
  it('writes square and square0 text byte for byte', () => {
    for (const shape of ['square', 'square0']) {
      const { plinkOut, ours } = both(['--r2', shape]);
      expect(readFileSync(`${ours}.ld`, 'latin1')).toBe(readFileSync(`${plinkOut}.ld`, 'latin1'));
    }
  });

  it('writes triangle gz, and bin (square when no shape is given) byte for byte', () => {
    let { plinkOut, ours } = both(['--r2', 'triangle', 'gz']);
    expect(gunzipSync(readFileSync(`${ours}.ld.gz`))).toEqual(gunzipSync(readFileSync(`${plinkOut}.ld.gz`)));
    for (const flags of [['--r2', 'triangle', 'bin'], ['--r2', 'bin']]) {
      ({ plinkOut, ours } = both(flags));
      expect(readFileSync(`${ours}.ld.bin`)).toEqual(readFileSync(`${plinkOut}.ld.bin`));
    }
  });

  it('writes square0 bin4 within float32 rounding of PLINK\'s', () => {
    const { plinkOut, ours } = both(['--r2', 'square0', 'bin4']);
    const theirs = new Float32Array(readFileSync(`${plinkOut}.ld.bin`).buffer.slice(0));
    const mine = new Float32Array(readFileSync(`${ours}.ld.bin`).buffer.slice(0));
    expect(mine.length).toBe(60 * 60);
    mine.forEach((value, k) => {
      if (Number.isNaN(theirs[k])) expect(value).toBeNaN();
      else expect(Math.abs(value - theirs[k])).toBeLessThanOrEqual(4 * 2 ** -24 * Math.max(Math.abs(theirs[k]), 2 ** -20));
    });
  });
});

describe('snptally plink refusals', () => {
  const refusals: Array<[readonly string[], RegExp]> = [
    [['--r2', 'with-freqs'], /^snptally: plink: --r2 modifier 'with-freqs' is not supported \(supported: /],
    [['--r2', '--hwe', '0.001'], /^snptally: plink: --hwe is not supported \(supported: --bfile /],
    [['--r', 'square'], /^snptally: plink: --r is not supported/],
    [['--r2', 'square', 'dprime'], /^snptally: plink: --r2 'dprime' cannot be used with matrix output\n$/],
    [['--r2', 'square', 'bin', 'gz'], /^snptally: plink: conflicting --r2 modifiers\n$/],
    [['--r2', 'inter-chr', '--ld-window', '5'], /^snptally: plink: --ld-window cannot be used with the --r2 'inter-chr' or matrix/],
    [['--r2', 'square', '--ld-window-r2', '0.1'], /^snptally: plink: --ld-window-r2 cannot be used with the --r2 matrix/],
    [['--r2', '--ld-window-r2', '2'], /^snptally: plink: --ld-window-r2 must be a number in \[0, 1\], got "2"\n$/],
    [['--freq'], /^snptally: plink: --freq is not supported/],
    [['--r2', 'inter-chr', '--chr', 'nosuch-'], /^snptally: prepare: .*--chr/],
  ];
  for (const [flags, message] of refusals) {
    it(`refuses ${flags.join(' ')} in one line, exit status 1`, () => {
      const outcome = runCli(['plink', '--bfile', data, ...flags, '--out', join(dir, 'refused')]);
      expect(outcome.status).toBe(1);
      expect(outcome.stderr).toMatch(message);
      expect(outcome.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(readdirSync(dir).filter((name) => name.startsWith('refused') || name.startsWith('.snptally-plink-'))).toEqual([]);
    });
  }

  it('replaces an existing output only with --force', () => {
    const out = join(dir, 'again');
    const flags = ['plink', '--bfile', data, '--r2', 'square', 'bin4', '--out', out];
    expect(runCli(flags).status).toBe(0);
    const second = runCli(flags);
    expect(second.status).toBe(1);
    expect(second.stderr).toBe(`snptally: plink: ${out}.ld.bin exists: give --force to replace it\n`);
    expect(runCli([...flags, '--force']).status).toBe(0);
  });
});
