// `snptally prepare` on the command line: outputs, refusal to overwrite, option and input errors; a run on a prepared file
// that changed after prepare fails on its hash (checked beside the run) and leaves no output.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { patternedDosages, writePlinkFileset } from '../io/genotypeFixtures.js';
import { runCli } from './cliHarness.js';

const workDir = mkdtempSync(join(tmpdir(), 'snptally-prepare-cli-'));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

const prefix = join(workDir, 'set');
writePlinkFileset(prefix, patternedDosages(6, 9, 0), 9);

describe('snptally prepare', () => {
  it('writes the packed file and sidecar, then refuses to overwrite them without --force', () => {
    const out = join(workDir, 'set.packed');
    const first = runCli(['prepare', prefix, '--out', out]);
    expect(first.status).toBe(0);
    expect(first.stdout).toMatch(/^prepared .*set\.packed: 6 SNPs × 9 samples, 0 missing calls, 0 sites skipped\n/);
    expect(existsSync(out) && existsSync(`${out}.json`)).toBe(true);
    const again = runCli(['prepare', prefix, '--out', out]);
    expect(again.status).toBe(1);
    expect(again.stderr).toMatch(/set\.packed or its sidecar exists already; use --force/);
    expect(runCli(['prepare', prefix, '--out', out, '--force']).status).toBe(0);
  });

  it.each([
    [['--permute', '-1'], /--permute must be a non-negative integer/],
    [['--permute', '4294967296'], /--permute must be below 2\^32/],
    [['--on-bad-site', 'ignore'], /option '--on-bad-site <policy>' argument 'ignore' is invalid/],
  ])('refuses %j', (extra, pattern) => {
    const outcome = runCli(['prepare', prefix, '--out', join(workDir, 'x.packed'), ...extra]);
    expect(outcome.status).toBe(1);
    expect(outcome.stderr).toMatch(pattern);
  });

  it('run on a prepared file changed after prepare (same size): the hash fails it, no output is left', () => {
    const packed = join(workDir, 'changed.packed');
    expect(runCli(['prepare', prefix, '--out', packed]).status).toBe(0);
    const stub = join(workDir, 'changed-run');
    expect(runCli(['run', '--input', packed, '--sparse', '--out', stub]).status).toBe(0);
    rmSync(`${stub}_0.bin`);
    rmSync(`${stub}.run.json`);
    rmSync(`${stub}.input.json`, { force: true });
    const bytes = readFileSync(packed);
    bytes[0] ^= 1;
    writeFileSync(packed, bytes);
    const outcome = runCli(['run', '--input', packed, '--sparse', '--out', stub]);
    expect(outcome.status).toBe(1);
    expect(outcome.stderr).toMatch(/changed\.packed does not match the SHA-256 in its sidecar .*: it changed after prepare/);
    expect(readdirSync(workDir).filter((name) => name.startsWith('changed-run'))).toEqual([]);
  });

  it('says what inputs it reads when given something else', () => {
    const path = join(workDir, 'notes.txt');
    writeFileSync(path, 'hello\n');
    const outcome = runCli(['prepare', path, '--out', join(workDir, 'y.packed')]);
    expect(outcome.status).toBe(1);
    expect(outcome.stderr).toMatch(/^snptally: .*notes\.txt is neither a PLINK fileset .* nor a VCF/);
  });
});
