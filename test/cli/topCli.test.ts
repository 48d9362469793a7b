// `snptally run --top N`: one file STUB_top.bin named in the summary and in STUB.run.json, read by dump (its way from
// run.json) with the naive top N's rows; one-line errors for bad uses.
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { randomProblemCode } from '../../src/core/syntheticProblems.js';
import { naiveTopRecordWords } from '../helpers/naiveTop.js';
import { runCli } from './cliHarness.js';

const workDir = mkdtempSync(join(tmpdir(), 'snptally-top-cli-'));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

const SPEC = { metric: 'ccc', numWay: 3, sparse: false, param: 2 / 3, multiplier: 4.5 } as const;

describe('run --top', () => {
  const stub = join(workDir, 't');

  it('writes STUB_top.bin only, named in the summary and run.json; dump prints the naive top N', () => {
    const outcome = runCli(['run', '--way', '3', '--vectors', '13', '--fields', '40', '--npv', '2', '--top', '9', '--output', stub]);
    expect(outcome.status, outcome.stderr).toBe(0);
    expect(outcome.stdout).toContain(`output ${stub}_top.bin (top 9)\n`);
    expect(readdirSync(workDir).sort()).toEqual(['t.run.json', 't_top.bin']);
    // Sorted by value, as the file holds them (strongest first, ties by vector indices).
    const dumped = runCli(['dump', '--sort', 'value', '--no-header', `${stub}_top.bin`]);
    expect(dumped.status, dumped.stderr).toBe(0);
    const words = naiveTopRecordWords(SPEC, 13, 40, (v, f) => randomProblemCode(v, f, 40), 9);
    const values = new Float32Array(words.buffer);
    const rows = Array.from({ length: 9 }, (_, r) => {
      const coords = [0, 1, 2].map((w) => words[4 * r + w]);
      return `${coords.map((c) => c >> 1).join('\t')}\t${coords.map((c) => c & 1).join('')}\t`;
    });
    const lines = dumped.stdout.trimEnd().split('\n');
    expect(lines.length).toBe(9);
    lines.forEach((line, r) => {
      expect(line.startsWith(rows[r])).toBe(true);
      expect(Number(line.split('\t').at(-1))).toBeCloseTo(values[4 * r + 3], 6);
    });
  });

  it('refuses bad uses in one line', () => {
    const noOutput = runCli(['run', '--vectors', '8', '--fields', '10', '--top', '3']);
    expect(noOutput.status).toBe(1);
    expect(noOutput.stderr).toBe('snptally: --top needs --output STUB (the records are written to STUB_top.bin)\n');
    const zero = runCli(['run', '--vectors', '8', '--fields', '10', '--top', '0', '--output', join(workDir, 'z')]);
    expect(zero.status).toBe(1);
    expect(zero.stderr).toBe('snptally: --top must be a positive integer, got "0"\n');
    const exists = runCli(['run', '--way', '3', '--vectors', '13', '--fields', '40', '--top', '9', '--output', stub]);
    expect(exists.status).toBe(1);
    expect(exists.stderr).toBe(`snptally: output ${stub}_top.bin already exists; use --force to overwrite\n`);
    expect(existsSync(join(workDir, 'z_top.bin'))).toBe(false);
  });
});
