// CLI option validation: every bad option is one `snptally: …` line on stderr, exit status 1, no stdout.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli } from './cliHarness.js';

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

function expectUserError(args: readonly string[], messagePart: string): void {
  const outcome = runCli(args);
  expect(outcome.status, outcome.stderr).toBe(1);
  expect(outcome.stdout).toBe('');
  const lines = outcome.stderr.split('\n').filter((line) => line.length > 0);
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^snptally: /);
  expect(lines[0]).toContain(messagePart);
}

describe('snptally --version and --help', () => {
  it('prints the version of package.json', () => {
    const manifest = JSON.parse(readFileSync(resolve(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
    const outcome = runCli(['--version']);
    expect(outcome.status).toBe(0);
    expect(outcome.stdout.trim()).toBe(manifest.version);
  });

  it('prints help for the program and for each command with status 0', () => {
    for (const args of [['--help'], ['run', '--help'], ['dump', '--help'], ['help', 'run']]) {
      const outcome = runCli(args);
      expect(outcome.status, args.join(' ')).toBe(0);
      expect(outcome.stdout).toContain('Usage: snptally');
    }
    const runHelp = runCli(['run', '--help']).stdout;
    expect(runHelp).toContain('--threshold');
    expect(runHelp).toContain('--half-diagonal');
    expect(runHelp.replace(/\s+/g, ' ')).toContain('the checksum is unchanged');
  });

  it('help fits 80 columns, sentences unbroken, choices and defaults shown one way', () => {
    for (const command of ['run', 'prepare', 'dump', 'top', 'merge', 'report']) {
      const help = runCli([command, '--help'], { env: { COLUMNS: '80' } }).stdout;
      for (const line of help.split('\n')) expect(line.length, `${command}: ${line}`).toBeLessThanOrEqual(80);
      expect(help, command).not.toMatch(/\(default [^:]|default: "|choices: "|default: false/);
      // Descriptions are wrapped by commander, not by hand: no line of text ends a clause early.
      const description = help.split('\n\n')[1];
      for (const line of description.split('\n').slice(0, -1)) expect(line.length, `${command}: ${line}`).toBeGreaterThan(60);
    }
    const runHelp = runCli(['run', '--help']).stdout;
    for (const name of ['--out <stub>', '--bfile', '--vcf', '--chr', '--extract', '--keep', '--maf', '--geno']) expect(runHelp).toContain(name);
  });
});

describe('one vocabulary: --out and its alias --output', () => {
  it('writes the same files with either name and refuses both', () => {
    const dir = mkdtempSync(join(tmpdir(), 'snptally-out-alias-'));
    try {
      const job = ['run', '--vectors', '12', '--fields', '20', '--json'];
      const viaOut = JSON.parse(runCli([...job, '--out', join(dir, 'a')]).stdout) as { checksum: string; outputFiles: string[] };
      const viaOutput = JSON.parse(runCli([...job, '--output', join(dir, 'b')]).stdout) as { checksum: string; outputFiles: string[] };
      expect(viaOut.outputFiles).toEqual([join(dir, 'a_0.bin')]);
      expect(viaOutput.outputFiles).toEqual([join(dir, 'b_0.bin')]);
      expect(readFileSync(viaOut.outputFiles[0])).toEqual(readFileSync(viaOutput.outputFiles[0]));
      const both = runCli([...job, '--out', join(dir, 'c'), '--output', join(dir, 'd')]);
      expect(both.status).toBe(1);
      expect(both.stderr).toMatch(/^snptally: option '--output <stub>' cannot be used with option '--out <stub>'/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('snptally run option errors', () => {
  const cases: ReadonlyArray<readonly [string[], string]> = [
    [['--vectors', 'abc'], '--vectors must be a positive integer, got "abc"'],
    [['--vectors', '0'], '--vectors must be a positive integer'],
    [['--vectors', '1.5'], '--vectors must be a positive integer'],
    [['--fields', '-3'], '--fields'],
    [['--fields', '1e3'], '--fields must be a positive integer'],
    [['--threads', '0'], '--threads must be a positive integer'],
    [['--npv', 'two'], '--npv must be a positive integer'],
    [['--npv', '2', '--npf', '2', '--ranks', '3'], '--ranks 3 does not match --npv 2 × --npf 2 × --npr 1 = 4'],
    [['--phases', '3', '--phase-max', '3'], '--phase-max 3 must be less than --phases 3'],
    [['--phases', '3', '--phase-min', '2', '--phase-max', '1'], '--phase-min 2 must not exceed --phase-max 1'],
    [['--phase-min', '1'], '--phase-min 1 must be less than --phases 1'],
    [['extra'], 'too many arguments'],
    [['--way', '3', '--stages', '2', '--stage-min', 'x'], '--stage-min must be a non-negative integer'],
    [['--stages', '2'], '--stages applies to --way 3 only'],
    [['--way', '3', '--half-diagonal', 'split'], '--half-diagonal applies to --way 2 only (the 3-way slab plan has no half diagonal)'],
    [['--half-diagonal', 'columns'], "argument 'columns' is invalid"],
    [['--metric', 'pearson'], "argument 'pearson' is invalid"],
    [['--way', '4'], "argument '4' is invalid"],
    [['--backend', 'gpu'], "argument 'gpu' is invalid"],
    [['--problem', 'analytic', '--input', 'x.bin'], 'cannot be used with'],
    // An existing file that is neither a prepared file, a fileset nor a VCF: a raw packed file, which has no sizes.
    [['--input', resolve(REPO_ROOT, 'package.json'), '--vectors', '4'], '--input needs --vectors and --fields'],
    [['--input', 'no/such/x.bin', '--vectors', '4'], '--input no/such/x.bin does not exist'],
    [['--verify'], '--verify'],
    [['--threshold', 'high'], '--threshold must be a number, got "high"'],
    [['--threshold', '0.1,0.2'], '--threshold takes 1 value or, for --way 2, 4 comma-separated values'],
    [['--way', '3', '--threshold', '1,2,3,4'], 'for --way 3, 5 comma-separated values'],
    [['--threshold', '0.1,-1,0.2,0.3'], 'all non-negative'],
    [['--ccc-param', 'nan'], '--ccc-param must be a number'],
    [['--ccc-multiplier', '-2'], '--ccc-multiplier must not be negative'],
    [['--duo-multiplier', '3'], '--duo-multiplier applies to --metric duo only'],
    [['--metric', 'duo', '--ccc-multiplier', '3'], '--ccc-multiplier applies to --metric ccc only'],
    [['--output', ''], '--out must not be empty'],
    [['--no-such-option'], "unknown option '--no-such-option'"],
  ];
  for (const [args, messagePart] of cases) {
    it(`rejects ${args.join(' ')}`, () => expectUserError(['run', ...args], messagePart));
  }
});

describe('snptally command errors', () => {
  it('rejects an unknown command and a dump without files', () => {
    expectUserError(['frobnicate'], "unknown command 'frobnicate'");
    expectUserError(['dump'], "missing required argument 'files'");
    expectUserError(['dump', '/no/such/file.bin'], 'cannot read metrics file /no/such/file.bin');
  });
});
