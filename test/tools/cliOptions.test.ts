// The tools' shared command line (tools/lib/cliOptions.ts): values are parsed strictly with the option named in
// every error, and each built tool prints help with status 0 and stops on a bad value with one line and status 1.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Option } from 'commander';
import { describe, expect, it } from 'vitest';
import { UserError } from '../../src/core/errors.js';
import {
  choiceOf, createToolProgram, listOf, parseNonNegativeNumber, parsePositiveInteger, valueOption,
} from '../../tools/lib/cliOptions.js';

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const BUILT_TOOLS = join(REPO_ROOT, 'dist/tools');

/** The value of `option`'s attribute after parsing `args` with a program that has only that option. */
function parsedValue(option: Option, args: readonly string[]): unknown {
  const program = createToolProgram('test-tool', 'one option').addOption(option);
  program.parse([...args], { from: 'user' });
  return program.opts()[option.attributeName()];
}

/** The UserError message of parsing `args`, or a failure when they parse. */
function parseError(option: Option, args: readonly string[]): string {
  try {
    parsedValue(option, args);
  } catch (error) {
    expect(error).toBeInstanceOf(UserError);
    return (error as UserError).message;
  }
  throw new Error(`${args.join(' ')} was accepted`);
}

function runTool(tool: string, args: readonly string[]): { status: number | null; stdout: string; stderr: string } {
  const child = spawnSync(process.execPath, [join(BUILT_TOOLS, `${tool}.js`), ...args], { encoding: 'utf8', timeout: 60_000 });
  return { status: child.status, stdout: child.stdout, stderr: child.stderr };
}

describe('valueOption with the shared parsers', () => {
  it('reads a positive integer, parses its default as typed, and names the option when the text is not one', () => {
    const reps = (): Option => valueOption('--reps <n>', 'repetitions', parsePositiveInteger, '5');
    expect(parsedValue(reps(), ['--reps', '7'])).toBe(7);
    expect(parsedValue(reps(), [])).toBe(5);
    expect(reps().defaultValueDescription).toBe('5');
    expect(parseError(reps(), ['--reps', 'abc'])).toBe('--reps must be a positive integer, got "abc"');
    for (const bad of ['0', '-3', '1.5', '1e3', '']) expect(parseError(reps(), ['--reps', bad])).toMatch(/^--reps must be a positive integer/);
  });

  it('reads a non-negative number', () => {
    const busy = (): Option => valueOption('--busy-ms <ms>', 'busy slices', parseNonNegativeNumber, '0');
    expect(parsedValue(busy(), ['--busy-ms', '2.5'])).toBe(2.5);
    expect(parsedValue(busy(), [])).toBe(0);
    expect(parseError(busy(), ['--busy-ms', '-1'])).toBe('--busy-ms must not be negative, got "-1"');
    expect(parseError(busy(), ['--busy-ms', 'NaN'])).toBe('--busy-ms must be a number, got "NaN"');
  });

  it('reads a comma-separated list item by item, an empty or bad item naming the option', () => {
    const procs = (): Option => valueOption('--procs <list>', 'process counts', listOf(parsePositiveInteger), '1,2');
    expect(parsedValue(procs(), ['--procs', '1,2,4'])).toEqual([1, 2, 4]);
    expect(parsedValue(procs(), ['--procs', '3'])).toEqual([3]);
    expect(parsedValue(procs(), [])).toEqual([1, 2]);
    expect(parseError(procs(), ['--procs', '1,x'])).toBe('--procs must be a positive integer, got "x"');
    expect(parseError(procs(), ['--procs', '1,,2'])).toMatch(/^--procs must be a positive integer/);
    expect(parseError(procs(), ['--procs', '2,-1'])).toMatch(/^--procs /);
  });

  it('reads list items from a fixed set, exactly as written', () => {
    const series = (): Option => valueOption('--series <list>', 'series', listOf(choiceOf(['weak', 'strong'] as const)), 'weak,strong');
    expect(parsedValue(series(), ['--series', 'strong'])).toEqual(['strong']);
    expect(parsedValue(series(), [])).toEqual(['weak', 'strong']);
    expect(parseError(series(), ['--series', 'weak,medium'])).toBe('--series must be one of weak, strong, got "medium"');
    expect(parseError(series(), ['--series', 'Weak'])).toMatch(/^--series must be one of/);
  });
});

describe('a built tool (bench-mgemm)', () => {
  it('prints help listing every option with its default, status 0', () => {
    const outcome = runTool('bench-mgemm', ['--help']);
    expect(outcome.status, outcome.stderr).toBe(0);
    expect(outcome.stdout).toMatch(/^Usage: bench-mgemm \[options\]/);
    for (const [flag, defaultText] of [['--vectors <n>', '2048'], ['--fields <n>', '8192'], ['--threads <list>', '1,2'], ['--reps <n>', '5']]) {
      expect(outcome.stdout).toMatch(new RegExp(`${flag}.*\\(default: ${defaultText}\\)`));
    }
    expect(outcome.stdout).toContain('--backend <name>');
  });

  it('stops on a bad value with one line naming the option, status 1, before any work', () => {
    for (const [args, message] of [
      [['--reps', 'abc'], 'bench-mgemm: --reps must be a positive integer, got "abc"'],
      [['--vectors', '-5'], 'bench-mgemm: --vectors must be a positive integer, got "-5"'],
      [['--backend', 'gpu'], "bench-mgemm: option '--backend <name>' argument 'gpu' is invalid. Allowed choices are ref, cpu."],
      [['--bogus'], "bench-mgemm: unknown option '--bogus'"],
    ] as const) {
      const outcome = runTool('bench-mgemm', args);
      expect(outcome.status, args.join(' ')).toBe(1);
      expect(outcome.stdout).toBe('');
      expect(outcome.stderr).toBe(`${message}\n`);
    }
  });
});

describe('every tool', () => {
  const tools = readdirSync(join(REPO_ROOT, 'tools')).filter((name) => name.endsWith('.ts')).map((name) => name.slice(0, -'.ts'.length));

  it('is found', () => {
    expect(tools).toContain('bench-gpu');
    expect(tools.length).toBeGreaterThanOrEqual(8);
  });

  it.each(tools)('%s prints help with status 0, and its header comment names every option of the help', (tool) => {
    const outcome = runTool(tool, ['--help']);
    expect(outcome.status, outcome.stderr).toBe(0);
    expect(outcome.stdout).toMatch(new RegExp(`^Usage: ${tool} `));
    const helpOptions = [...outcome.stdout.matchAll(/^ {2}(?:-\w, )?(--[\w-]+)/gm)].map((match) => match[1]).filter((flag) => flag !== '--help');
    const source = readFileSync(join(REPO_ROOT, 'tools', `${tool}.ts`), 'utf8');
    const header = source.slice(0, source.search(/^(?!\/\/)/m));
    for (const flag of helpOptions) expect(header, `${tool}: ${flag}`).toMatch(new RegExp(`${flag}(?![\\w-])`));
    expect(runTool(tool, ['--no-such-option']).status).toBe(1);
  });
});
