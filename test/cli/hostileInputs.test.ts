// Issue 23, what commands read: bounded counts and resources, side files that must be regular files of bounded size,
// overlong VCF lines, files of different runs that must not mix, and messages that say what is wrong. Every case is
// a quick one-line refusal (exit 1) that leaves nothing behind.
import { readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from './cliHarness.js';
import { caseDirectories, listing, refusedLine, SMALL_RUN, succeeds, vcfLine, writeVcf } from './hostileHarness.js';

/** A fresh empty directory per case. */
const freshDir = caseDirectories('snptally-hostile-in-');

/** Runs `run` with --output in a fresh directory; the refusal leaves it empty. Returns the line and the seconds taken. */
function refusedRun(args: readonly string[]): { line: string; seconds: number } {
  const dir = freshDir();
  const start = performance.now();
  const line = refusedLine(['run', ...args, '--output', join(dir, 'o')]);
  expect(listing(dir)).toEqual([]);
  return { line, seconds: (performance.now() - start) / 1000 };
}

describe('cases 1–2: threads, ranks and memory are bounded before any work', () => {
  it('refuses at once what used to exhaust the heap or take a minute', () => {
    expect(refusedRun(['--vectors', '8', '--fields', '10', '--threads', '4000']).line).toMatch(/--threads 4000 is more than/);
    expect(refusedRun(['--npv', '2000', '--vectors', '4000', '--fields', '8']).line).toMatch(/2000 ranks .*mpirun$/);
    expect(refusedRun(['--vectors', '2147483648', '--fields', '8']).line).toMatch(/estimated peak host memory/);
    const many = refusedRun(['--vectors', '200000000', '--fields', '8', '--npv', '100']);
    expect(many.line).toMatch(/estimated peak host memory/);
    expect(many.seconds).toBeLessThan(20);
  });
});

describe('case 3: count options are bounded', () => {
  it('report --bins and --top, top -k', () => {
    const dir = freshDir();
    succeeds([...SMALL_RUN, '--output', join(dir, 'o')]);
    for (const bins of ['1000000', '100000000']) {
      expect(refusedLine(['report', join(dir, 'o'), '--out', join(dir, 'r.html'), '--bins', bins])).toMatch(/--bins must be an integer from 1 to 1000/);
    }
    expect(refusedLine(['report', join(dir, 'o'), '--out', join(dir, 'r.html'), '--top', '99999999'])).toMatch(/--top must be an integer from 1 to 10000/);
    expect(refusedLine(['top', join(dir, 'o_0.bin'), '-k', '4000000000'])).toMatch(/--count must be an integer from 0 to 1000000/);
    expect(listing(dir)).toEqual(['o.run.json', 'o_0.bin']);
  });
});

describe('case 7: files of different runs do not mix', () => {
  const dir = freshDir();
  const run = (stub: string, args: readonly string[]): void => { succeeds(['run', ...args, '--threads', '1', '--output', join(dir, stub)]); };

  it('merge refuses other ways, other vector counts, and a file given twice; dump and top a contradicting --way', () => {
    run('two', ['--vectors', '10', '--fields', '40']);
    run('three', ['--way', '3', '--vectors', '10', '--fields', '40']);
    run('fifty', ['--vectors', '50', '--fields', '40']);
    const merge = (files: readonly string[]): string => refusedLine(['merge', ...files, '--out', 'm.bin'], { cwd: dir });
    expect(merge(['two_0.bin', 'three_0.bin'])).toMatch(/different runs \(2-way and 3-way\)/);
    expect(merge(['two_0.bin', 'fifty_0.bin'])).toMatch(/different runs \(10 and 50 vectors\)/);
    expect(merge(['two_0.bin', `${dir}/two_0.bin`])).toMatch(/is given twice/);
    expect(refusedLine(['dump', '--way', '3', 'two_0.bin'], { cwd: dir })).toMatch(/--way 3 contradicts .*two\.run\.json, which says the records are 2-way/);
    expect(refusedLine(['top', '--way', '2', 'three_0.bin'], { cwd: dir })).toMatch(/--way 2 contradicts/);
    expect(listing(dir).filter((name) => name.startsWith('m.'))).toEqual([]);
  });

  it('dump checks vector indices against the run\'s vector count', () => {
    const info = JSON.parse(readFileSync(join(dir, 'fifty.run.json'), 'utf8')) as Record<string, unknown>;
    writeFileSync(join(dir, 'fifty.run.json'), JSON.stringify({ ...info, numVector: 10 }));
    expect(refusedLine(['dump', 'fifty_0.bin'], { cwd: dir })).toMatch(/names vector \d+, but the run has 10 vectors/);
  });
});

describe('case 9: side files are regular files of bounded size', () => {
  it('refuses /dev/zero as --sidecar, as run.json\'s sidecar, as run.json and as a prepared file\'s sidecar', () => {
    const dir = freshDir();
    succeeds([...SMALL_RUN, '--output', join(dir, 'o')]);
    expect(refusedLine(['dump', '--sidecar', '/dev/zero', join(dir, 'o_0.bin')])).toMatch(/sidecar \/dev\/zero: it is a character device, not a regular file/);
    const info = JSON.parse(readFileSync(join(dir, 'o.run.json'), 'utf8')) as Record<string, unknown>;
    writeFileSync(join(dir, 'o.run.json'), JSON.stringify({ ...info, sidecar: '/dev/zero' }));
    expect(refusedLine(['top', join(dir, 'o_0.bin')])).toMatch(/not a regular file/);
    rmSync(join(dir, 'o.run.json'));
    symlinkSync('/dev/zero', join(dir, 'o.run.json'));
    expect(refusedLine(['report', join(dir, 'o'), '--out', join(dir, 'r.html')])).toMatch(/run-info file .*o\.run\.json: it is a character device/);
    writeFileSync(join(dir, 'x.packed'), new Uint8Array(8));
    symlinkSync('/dev/zero', join(dir, 'x.packed.json'));
    expect(refusedLine(['run', '--input', join(dir, 'x.packed')])).toMatch(/sidecar .*x\.packed\.json: it is a character device/);
  });

  it('refuses a run.json larger than its cap', () => {
    const dir = freshDir();
    succeeds([...SMALL_RUN, '--output', join(dir, 'o')]);
    writeFileSync(join(dir, 'o.run.json'), Buffer.alloc(5 << 20, 0x20));
    expect(refusedLine(['dump', join(dir, 'o_0.bin')])).toMatch(/run-info file .* has 5242880 bytes, more than the 4 MiB/);
  });
});

describe('case 10: VCF lines are bounded and a VCF must be a file', () => {
  it('refuses a VCF whose data line passes 128 MiB, naming the line, and a .vcf linked to /dev/zero', () => {
    const dir = freshDir();
    writeVcf(join(dir, 'long.vcf'), 2, [vcfLine(1, ['0/0', '0/1'])]);
    const huge = Buffer.alloc((128 << 20) + 4096, 0x41);
    writeFileSync(join(dir, 'long.vcf'), huge, { flag: 'a' });
    const start = performance.now();
    expect(refusedLine(['prepare', join(dir, 'long.vcf'), '--out', join(dir, 'p')])).toMatch(/long\.vcf line 4 is longer than 128 MiB/);
    expect((performance.now() - start) / 1000).toBeLessThan(30);
    symlinkSync('/dev/zero', join(dir, 'zero.vcf'));
    expect(refusedLine(['prepare', join(dir, 'zero.vcf'), '--out', join(dir, 'q')])).toMatch(/zero\.vcf: it is a character device, not a regular file/);
    expect(listing(dir)).toEqual(['long.vcf', 'zero.vcf']);
  });
});

describe('case 11: messages say what is wrong', () => {
  const dir = freshDir();

  it('a junk VCF line has a column count, never a negative one; an empty GT is an error unless skipped', () => {
    writeVcf(join(dir, 'junk.vcf'), 3, [vcfLine(1, ['0/0', '0/1', '1/1']), 'junk\tline\there']);
    expect(refusedLine(['prepare', join(dir, 'junk.vcf'), '--out', join(dir, 'j')])).toMatch(/junk\.vcf line 4: 3 tab-separated columns, not even the 9 fixed ones, but the header names 3 samples$/);
    writeVcf(join(dir, 'empty.vcf'), 3, [vcfLine(1, ['0/0', '0/1', '1/1']), vcfLine(2, ['0/0', '', '1/1'])]);
    expect(refusedLine(['prepare', join(dir, 'empty.vcf'), '--out', join(dir, 'e')])).toMatch(/empty\.vcf line 4: sample 2: empty GT field \(use --on-bad-site skip/);
    const skipped = runCli(['prepare', join(dir, 'empty.vcf'), '--out', join(dir, 'e'), '--on-bad-site', 'skip', '--json']);
    expect(skipped.status).toBe(0);
    expect(skipped.stderr).toMatch(/^snptally: skipped .*empty\.vcf line 4: sample 2: empty GT field\n$/);
    expect(JSON.parse(skipped.stdout)).toMatchObject({ numVector: 1, skippedSites: 1 });
  });

  it('--input that does not exist, an output directory that makes no files, a file used as a directory', () => {
    expect(refusedLine(['run', '--input', join(dir, 'nonexist')])).toMatch(/--input .*nonexist does not exist/);
    const proc = refusedLine([...SMALL_RUN, '--output', '/proc/o']);
    expect(proc).toMatch(/cannot create output file \/proc\/o_0\.bin: no such file or directory$/);
    writeFileSync(join(dir, 'plain'), '');
    expect(refusedLine([...SMALL_RUN, '--output', join(dir, 'plain', 'o')])).toMatch(/plain\/o_0\.bin: not a directory/);
    expect(refusedLine(['prepare', join(dir, 'junk.vcf'), '--out', join(dir, 'plain', 'p')])).toMatch(/not a directory/);
  });
});
