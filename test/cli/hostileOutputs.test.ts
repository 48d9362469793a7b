// Issue 23, what commands write: nothing under a final name unless the command's files are all complete, nothing
// left by a failing rank or a killed run once --force runs again, nothing overwritten without --force, no output over
// one of the command's inputs. Full disks are real: a tmpfs of a few KiB in a private mount namespace.
import { spawn } from 'node:child_process';
import { existsSync, linkSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI_MAIN, runCli } from './cliHarness.js';
import { caseDirectories, listing, refusedLine, SMALL_RUN, runOnTinyDisk, succeeds, vcfLine, writeVcf } from './hostileHarness.js';

/** A fresh empty directory per case. */
const freshDir = caseDirectories('snptally-hostile-out-');

describe('case 4: a failing in-process rank', () => {
  it('leaves no rank file, temporary or final, of any rank', () => {
    const dir = freshDir();
    const outcome = refusedOrFailed(['run', '--vectors', '200', '--fields', '400', '--npv', '3', '--output', join(dir, 'o')],
      { SNPTALLY_DEBUG_FAIL_RANK: '0' });
    expect(outcome).toMatch(/induced failure of rank 0/);
    expect(listing(dir)).toEqual([]);
  });

  it('on a full disk (two ranks) leaves nothing and says so in words', () => {
    const dir = freshDir();
    mkdirSync(join(dir, 'disk'));
    const outcome = runOnTinyDisk(join(dir, 'disk'), 32, ['run', '--vectors', '52', '--fields', '50', '--threads', '1',
      '--npv', '2', '--output', 'DISK/p'], { cwd: dir });
    expect(outcome.status).toBe(1);
    expect(outcome.stderr).toMatch(/^snptally: rank \d: cannot write output file .*p_\d\.bin: no space left on device\n$/);
    expect(outcome.left).toEqual([]);
  });
});

describe('case 5: a command\'s files appear together', () => {
  it('run: when run.json cannot be written, the rank file does not appear either', () => {
    const dir = freshDir();
    mkdirSync(join(dir, 'disk'));
    // 52 vectors: 1326 pairs × 4 entries × 12 bytes = 63,648 bytes, all 16 pages of the disk; run.json needs one more.
    const outcome = runOnTinyDisk(join(dir, 'disk'), 64, ['run', '--vectors', '52', '--fields', '50', '--threads', '1', '--output', 'DISK/o'], { cwd: dir });
    expect(outcome.status).toBe(1);
    expect(outcome.stderr).toMatch(/^snptally: cannot write .*o\.run\.json: no space left on device\n$/);
    expect(outcome.left).toEqual([]);
  });

  it('prepare: when the sidecar cannot be written, the packed file does not appear either', () => {
    const dir = freshDir();
    mkdirSync(join(dir, 'disk'));
    // 16 SNPs × 16384 samples: the packed file fills the 64 KiB disk, the sidecar (sample IDs) finds no room.
    const numSample = 16384;
    writeVcf(join(dir, 'in.vcf'), numSample, Array.from({ length: 16 }, (_, s) => vcfLine(100 + s, Array.from({ length: numSample }, (_, i) => ((i + s) % 3 === 0 ? '0/1' : '0/0')))));
    const outcome = runOnTinyDisk(join(dir, 'disk'), 64, ['prepare', 'in.vcf', '--out', 'DISK/p.packed'], { cwd: dir });
    expect(outcome.status).toBe(1);
    expect(outcome.stderr).toMatch(/^snptally: cannot write .*p\.packed\.json: no space left on device\n$/);
    expect(outcome.left).toEqual([]);
  });
});

describe('case 6: no silent overwrite', () => {
  it('run refuses an existing run.json or input.json without --force, and replaces them with it', () => {
    const dir = freshDir();
    writeVcf(join(dir, 'in.vcf'), 4, [vcfLine(1, ['0/0', '0/1', '1/1', '0/1']), vcfLine(2, ['0/1', '0/0', '0/0', '1/1']), vcfLine(3, ['1/1', '0/1', '0/0', '0/0'])]);
    const stub = join(dir, 'o');
    succeeds(['run', '--input', join(dir, 'in.vcf'), '--threads', '1', '--output', stub]);
    rmSync(`${stub}_0.bin`);
    const before = readFileSync(`${stub}.run.json`, 'utf8');
    expect(refusedLine(['run', '--input', join(dir, 'in.vcf'), '--threads', '1', '--output', stub])).toMatch(/o\.input\.json .*already exists; use --force/);
    rmSync(`${stub}.input.json`);
    expect(refusedLine(['run', '--input', join(dir, 'in.vcf'), '--threads', '1', '--output', stub])).toMatch(/o\.run\.json already exists; use --force/);
    expect(readFileSync(`${stub}.run.json`, 'utf8')).toBe(before);
    succeeds(['run', '--input', join(dir, 'in.vcf'), '--threads', '1', '--output', stub, '--force']);
    expect(listing(dir)).toEqual(['in.vcf', 'o.input.json', 'o.run.json', 'o_0.bin']);
  });

  it('report refuses an existing --out without --force', () => {
    const dir = freshDir();
    succeeds([...SMALL_RUN, '--output', join(dir, 'o')]);
    writeFileSync(join(dir, 'page.html'), 'mine');
    expect(refusedLine(['report', join(dir, 'o'), '--out', join(dir, 'page.html')])).toMatch(/page\.html exists already; use --force/);
    expect(readFileSync(join(dir, 'page.html'), 'utf8')).toBe('mine');
    succeeds(['report', join(dir, 'o'), '--out', join(dir, 'page.html'), '--force']);
    expect(readFileSync(join(dir, 'page.html'), 'utf8')).toMatch(/^<!DOCTYPE html>/i);
  });
});

describe('case 8: no command writes over its own input', () => {
  it('prepare refuses --out naming its VCF or .bed, however spelled, even with --force', () => {
    const dir = freshDir();
    writeVcf(join(dir, 'in.vcf'), 4, [vcfLine(1, ['0/0', '0/1', '1/1', '0/1'])]);
    const vcfBytes = readFileSync(join(dir, 'in.vcf'));
    expect(refusedLine(['prepare', 'in.vcf', '--out', './in.vcf', '--force'], { cwd: dir })).toMatch(/would write \.\/in\.vcf over its own input in\.vcf/);
    expect(readFileSync(join(dir, 'in.vcf'))).toEqual(vcfBytes);
    succeeds(['prepare', 'in.vcf', '--out', 'd.packed'], { cwd: dir });
    writeFileSync(join(dir, 'd.bed'), new Uint8Array([0x6c, 0x1b, 0x01, 0]));
    writeFileSync(join(dir, 'd.bim'), '1\trs1\t0\t1\tG\tA\n');
    writeFileSync(join(dir, 'd.fam'), 'f i1 0 0 1 -9\n');
    linkSync(join(dir, 'd.bim'), join(dir, 'hard.link'));
    expect(refusedLine(['prepare', 'd', '--out', 'd.bed', '--force'], { cwd: dir })).toMatch(/over its own input d\.bed/);
    expect(refusedLine(['prepare', 'd', '--out', 'hard.link', '--force'], { cwd: dir })).toMatch(/over its own input d\.bim/);
  });

  it('merge refuses --out ./a.bin for input a.bin; run refuses rank files over --input', () => {
    const dir = freshDir();
    succeeds([...SMALL_RUN, '--output', join(dir, 'o')]);
    expect(refusedLine(['merge', 'o_0.bin', '--out', './o_0.bin', '--force'], { cwd: dir })).toMatch(/over its own input o_0\.bin/);
    writeFileSync(join(dir, 'raw_0.bin'), new Uint8Array(200));
    symlinkSync(join(dir, 'raw_0.bin'), join(dir, 'packed.raw'));
    expect(refusedLine([...SMALL_RUN, '--input', 'packed.raw', '--output', 'raw', '--force'], { cwd: dir })).toMatch(/would write raw_0\.bin over its own input packed\.raw/);
    expect(readFileSync(join(dir, 'raw_0.bin'))).toEqual(Buffer.alloc(200));
  });

  it('run refuses a --histograms file over its --input, even with --force', () => {
    const dir = freshDir();
    writeFileSync(join(dir, 'raw.bin'), new Uint8Array(200));
    expect(refusedLine([...SMALL_RUN, '--input', 'raw.bin', '--histograms', './raw.bin', '--force'], { cwd: dir }))
      .toMatch(/would write \.\/raw\.bin over its own input raw\.bin/);
    expect(readFileSync(join(dir, 'raw.bin'))).toEqual(Buffer.alloc(200));
  });
});

describe('case 12: --force removes what killed runs left', () => {
  it('a SIGKILLed run\'s temporary rank file goes; a running process\'s stays', async () => {
    const dir = freshDir();
    const stub = join(dir, 'o');
    const child = spawn(process.execPath, [CLI_MAIN, 'run', '--vectors', '4000', '--fields', '4000', '--threads', '1', '--output', stub], { stdio: 'ignore' });
    const deadline = Date.now() + 60_000;
    while (!listing(dir).some((name) => name.endsWith('.tmp')) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    const ended = new Promise((resolve) => child.on('close', resolve));
    child.kill('SIGKILL');
    await ended;
    const left = listing(dir);
    expect(left).toHaveLength(1);
    expect(left[0]).toMatch(/^o_0\.bin\.\d+-[0-9a-f]{8}\.tmp$/);
    // A file being written by a live process (this one) keeps its name.
    const live = `o_1.bin.${process.pid}-0123abcd.tmp`;
    writeFileSync(join(dir, live), '');
    succeeds([...SMALL_RUN, '--output', stub, '--force']);
    expect(listing(dir)).toEqual([live, 'o.run.json', 'o_0.bin'].sort());
  });
});

describe('case 13: merge of empty files that no run describes', () => {
  it('is refused and writes nothing', () => {
    const dir = freshDir();
    writeFileSync(join(dir, 'a.bin'), '');
    writeFileSync(join(dir, 'b.bin'), '');
    expect(refusedLine(['merge', 'a.bin', 'b.bin', '--out', 'all.bin'], { cwd: dir })).toMatch(/nothing to merge/);
    expect(listing(dir)).toEqual(['a.bin', 'b.bin']);
    expect(existsSync(join(dir, 'all.run.json'))).toBe(false);
  });
});

/** Runs the CLI expecting a failure (exit 1 or 2) with one line; returns it. */
function refusedOrFailed(args: readonly string[], env: Record<string, string>): string {
  const outcome = runCli(args, { env });
  expect([1, 2]).toContain(outcome.status);
  expect(outcome.stderr.trimEnd().split('\n')).toHaveLength(1);
  return outcome.stderr;
}
