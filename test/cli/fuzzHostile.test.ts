// Fuzz test of issue 23: 1200 seeded cases, each a base input of one kind (VCF, PLINK .bed/.bim/.fam, prepared packed
// file and sidecar, metrics file, run.json, raw packed file) damaged one way (truncated, bits flipped, a junk line, a
// number made huge or negative, replaced by a link to /dev/zero, emptied) and read by a command that reads it (prepare,
// run, dump, top, merge, report). Each must exit 0 or 1 — a failure with exactly one `snptally: ` line on stderr —,
// never 2 or a signal, stay under a memory bound, and leave nothing behind: no temporary file, no output after a
// failure, nothing in $TMPDIR.
//
// How 1200 cases fit in a few minutes on 2 cores: most run in-process through the CLI's entry (commandLine.ts
// `runCommandLine`, stdout and stderr captured by swapping their write functions, status returned); every 20th runs as
// a real child process under /usr/bin/time, which measures its peak resident memory. In-process cases are bounded by
// this process's resident memory after each case.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommandLine } from '../../src/cli/commandLine.js';
import { patternedDosages, vcfText, writePlinkFileset } from '../io/genotypeFixtures.js';
import { CLI_MAIN } from './cliHarness.js';
import {
  commandsReading, MUTATIONS, mutateFile, pick, seededRandom, TARGET_FILES, TARGET_KINDS,
} from './fuzzMutations.js';

const NUM_CASES = 1200;
const SEED = 0x5eed23;
const CHILD_EVERY = 20;
/** Peak resident memory a case may reach: the inputs are kilobytes, so anything near this is a runaway. */
const MEMORY_BOUND_BYTES = 1536 << 20;
/** Names a successful command may add to its directory (complete outputs only). */
const OUTPUT_NAMES = new Set(['q.packed', 'q.packed.json', 'r_0.bin', 'r.run.json', 'r.input.json', 'm.bin', 'm.run.json', 'page.html']);

const root = mkdtempSync(join(tmpdir(), 'snptally-fuzz-'));
const baseDir = join(root, 'base');
const scratch = join(root, 'scratch');
const savedTmpdir = process.env.TMPDIR;
afterAll(() => {
  process.env.TMPDIR = savedTmpdir;
  // In-process `run` and `prepare` installed the CLI's interrupt handlers in this worker: the runner's own SIGTERM at
  // teardown is not theirs to report.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.removeAllListeners(signal);
  rmSync(root, { recursive: true, force: true });
});

interface CaseOutcome {
  readonly status: number | null;
  readonly signal: string | null;
  readonly stdout: string;
  readonly stderr: string;
  /** Peak resident bytes (the child's, or this process's after the case). */
  readonly peakBytes: number;
}

/** Runs a command line in this process, capturing what it writes. */
async function runInProcess(args: readonly string[]): Promise<CaseOutcome> {
  const captured = { stdout: '', stderr: '' };
  const realStdout = process.stdout.write;
  const realStderr = process.stderr.write;
  const capture = (stream: 'stdout' | 'stderr') => ((chunk: string | Uint8Array): boolean => {
    captured[stream] += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    return true;
  }) as typeof process.stdout.write;
  process.stdout.write = capture('stdout');
  process.stderr.write = capture('stderr');
  let status: number;
  try {
    status = await runCommandLine(['node', 'snptally', ...args]);
  } finally {
    process.stdout.write = realStdout;
    process.stderr.write = realStderr;
  }
  return { status, signal: null, ...captured, peakBytes: process.memoryUsage().rss };
}

/** Runs a command line as a child process under /usr/bin/time (its peak resident memory). */
function runAsChild(args: readonly string[]): CaseOutcome {
  const timeFile = join(root, 'time.txt');
  const child = spawnSync('/usr/bin/time', ['-f', '%M', '-o', timeFile, process.execPath, CLI_MAIN, ...args], {
    encoding: 'utf8', timeout: 60_000, env: { ...process.env, SNPTALLY_DEBUG: '', TMPDIR: scratch },
  });
  const peakKiB = Number(/(\d+)\s*$/.exec(readFileSync(timeFile, 'utf8'))?.[1] ?? 'NaN');
  return { status: child.status, signal: child.signal, stdout: child.stdout, stderr: child.stderr, peakBytes: peakKiB * 1024 };
}

beforeAll(async () => {
  mkdirSync(baseDir);
  mkdirSync(scratch);
  process.env.TMPDIR = scratch;
  const dosages = patternedDosages(12, 8, 7);
  writeFileSync(join(baseDir, 'in.vcf'), vcfText(dosages, 8));
  writePlinkFileset(join(baseDir, 'd'), dosages, 8);
  writeFileSync(join(baseDir, 'raw.bin'), Uint8Array.from({ length: 40 }, (_, i) => (i * 37) & 0xff));
  const at = (name: string): string => join(baseDir, name);
  for (const args of [['prepare', at('in.vcf'), '--out', at('p.packed')],
    ['run', '--input', at('p.packed'), '--sparse', '--threads', '1', '--output', at('o')]]) {
    const made = await runInProcess(args);
    expect(made.status, made.stderr).toBe(0);
  }
  expect(readdirSync(baseDir).sort()).toEqual([...Object.values(TARGET_FILES)].sort());
});

describe('fuzzed inputs', () => {
  // 1200 cases in one test: about 20 s on 2 idle cores, minutes on a busy machine, so a bound of its own rather than
  // the suite's 120 s per test.
  it(`${NUM_CASES} damaged inputs: exit 0 or 1 with one line, bounded memory, nothing left behind`, async () => {
    const random = seededRandom(SEED);
    const statuses = new Map<string, number>();
    for (let c = 0; c < NUM_CASES; c++) {
      const dir = join(root, `c${c}`);
      mkdirSync(dir);
      for (const name of Object.values(TARGET_FILES)) copyFileSync(join(baseDir, name), join(dir, name));
      const kind = pick(random, TARGET_KINDS);
      const mutation = pick(random, MUTATIONS);
      const damage = mutateFile(join(dir, TARGET_FILES[kind]), mutation, random);
      const args = pick(random, commandsReading(kind, dir));
      const before = readdirSync(dir).sort();
      const outcome = c % CHILD_EVERY === 0 ? runAsChild(args) : await runInProcess(args);
      const what = `case ${c}: ${kind} ${damage}; snptally ${args.join(' ')} → status ${outcome.status} signal ${outcome.signal}\n${outcome.stderr}`;
      expect(outcome.signal, what).toBeNull();
      expect([0, 1], what).toContain(outcome.status);
      const lines = outcome.stderr === '' ? [] : outcome.stderr.replace(/\n$/, '').split('\n');
      if (outcome.status === 1) expect(lines, what).toHaveLength(1);
      for (const line of lines) expect(line, what).toMatch(/^snptally: \S/);
      expect(outcome.peakBytes, what).toBeLessThan(MEMORY_BOUND_BYTES);
      const after = readdirSync(dir).sort();
      const added = after.filter((name) => !before.includes(name));
      if (outcome.status === 1) expect(added, what).toEqual([]);
      for (const name of added) expect(OUTPUT_NAMES.has(name), `${what}: left ${name}`).toBe(true);
      expect(readdirSync(scratch), what).toEqual([]);
      const key = `${args[0]} ${outcome.status}`;
      statuses.set(key, (statuses.get(key) ?? 0) + 1);
      rmSync(dir, { recursive: true, force: true });
    }
    // The cases reach every command, and both outcomes of the commands that read damaged data.
    for (const command of ['prepare', 'run', 'dump', 'top', 'merge', 'report']) expect(statuses.get(`${command} 1`) ?? 0, command).toBeGreaterThan(0);
    expect([...statuses.entries()].filter(([key]) => key.endsWith(' 0')).length).toBeGreaterThan(3);
  }, 600_000);
});
