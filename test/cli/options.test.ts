// CLI option validation: every bad option is one `snptally: …` line on stderr, exit status 1, no stdout.
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
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
    [['--output', ''], '--output must not be empty'],
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
