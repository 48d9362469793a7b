// Temporary output names and the removal of one process's leftovers (src/io/temporaryFiles.ts).
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isTemporaryNameFor, removeTemporaryFilesOf, temporaryPathFor } from '../../src/io/index.js';

const workDir = mkdtempSync(join(tmpdir(), 'snptally-tmpnames-'));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

describe('temporary names', () => {
  it('lie beside the final path and carry this process id', () => {
    const final = join(workDir, 'run_0.bin');
    const temporary = temporaryPathFor(final);
    expect(dirname(temporary)).toBe(workDir);
    expect(basename(temporary)).toMatch(new RegExp(`^run_0\\.bin\\.${process.pid}-[0-9a-f]{8}\\.tmp$`));
    expect(temporaryPathFor(final)).not.toBe(temporary);
    expect(isTemporaryNameFor(basename(temporary), 'run_')).toBe(true);
  });

  it('are told apart from finished files and from other outputs\' temporary files', () => {
    expect(isTemporaryNameFor('run_0.bin.123-0a1b2c3d.tmp', 'run_')).toBe(true);
    expect(isTemporaryNameFor('run_0.bin.123-0a1b2c3d.tmp', 'run.')).toBe(false);
    expect(isTemporaryNameFor('runs_0.bin.123-0a1b2c3d.tmp', 'run_')).toBe(false);
    expect(isTemporaryNameFor('run_0.bin', 'run_')).toBe(false);
    expect(isTemporaryNameFor('run_0.bin.123.tmp', 'run_')).toBe(false);
    expect(isTemporaryNameFor('run_0.bin.123-0a1b2c3d.tmp.bak', 'run_')).toBe(false);
    expect(isTemporaryNameFor('run_0.bin.123-0A1B2C3D.tmp', 'run_')).toBe(false);
  });

  it('removeTemporaryFilesOf removes the temporary files of the given outputs, of any process', () => {
    const dir = mkdtempSync(join(workDir, 'scan-'));
    const theirs = ['a_0.bin.4242-00000000.tmp', 'a_1.bin.4243-ffffffff.tmp'];
    const kept = ['a_0.bin', 'a.run.json.4242-12345678.tmp', 'ab_0.bin.4242-00000000.tmp', 'b_0.bin.4242-00000000.tmp', 'notes.txt'];
    for (const name of [...theirs, ...kept]) writeFileSync(join(dir, name), 'x');
    const removed = removeTemporaryFilesOf(join(dir, 'a_'));
    expect(removed.map((path) => basename(path)).sort()).toEqual([...theirs].sort());
    expect(readdirSync(dir).sort()).toEqual([...kept].sort());
    expect(removeTemporaryFilesOf(join(dir, 'missing', 'a_'))).toEqual([]);
    expect(existsSync(join(dir, 'a_0.bin'))).toBe(true);
  });
});
