// The package's JavaScript API (`import { run } from 'snptally'`): SPEC §5 reference checksums, options mapped onto
// `snptally run`'s, inputs and outputs, one-line errors, and the example that imports the package by its name.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { run, UserError, type RunOptions } from '../../src/api/index.js';
import { randomProblemCode } from '../../src/core/syntheticProblems.js';
import { packFieldValues, writePackedVectorFile } from '../../src/io/index.js';
import { runCli } from '../cli/cliHarness.js';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const workDir = mkdtempSync(join(tmpdir(), 'snptally-api-'));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

/** SPEC §5 reference checksums (CoMet) and the options of the same problems. */
const REFERENCE_RUNS: ReadonlyArray<readonly [RunOptions, string]> = [
  [{ problem: 'analytic', vectors: 4, fields: 2, verify: true }, '0-245201878478-801640733671948288'],
  [{ vectors: 48, fields: 100 }, '0-34600668891914-795881718560018816'],
  [{ sparse: true, vectors: 48, fields: 100, npv: 2, npf: 2 }, '0-33543338342814-112679650647204196'],
  [{ way: 3, vectors: 36, fields: 100, threads: 1 }, '0-144962007142596-694338058451516346'],
  [{ metric: 'duo', sparse: true, vectors: 48, fields: 100, backend: 'ref' }, '0-25544782430596-363343116734123798'],
];

/** `snptally run --json` of the same job, for what the API maps onto the command line's options. */
function cliRun(args: readonly string[]): { checksum: string; entries: number } {
  const outcome = runCli(['run', '--json', ...args]);
  expect(outcome.status, outcome.stderr).toBe(0);
  const { checksum, entries } = JSON.parse(outcome.stdout) as { checksum: string; entries: number };
  return { checksum, entries };
}

describe('run() from JavaScript', () => {
  for (const [options, checksum] of REFERENCE_RUNS) {
    it(`${JSON.stringify(options)} → ${checksum}`, async () => {
      const result = await run(options);
      expect(result.checksum).toBe(checksum);
      expect(result.rankDevices).toHaveLength((options.npv ?? 1) * (options.npf ?? 1));
      if (options.verify === true) expect(result.verifiedValues).toBeGreaterThan(0);
    });
  }

  it('maps threshold, multiplier and p as the command line does', async () => {
    const cases: ReadonlyArray<readonly [RunOptions, string[]]> = [
      [{ threshold: 0.9 }, ['--threshold', '0.9']],
      [{ threshold: [0.5, 0.8, 1.2, 2] }, ['--threshold', '0.5,0.8,1.2,2']],
      [{ metric: 'duo', multiplier: 3, threshold: 0.4 }, ['--metric', 'duo', '--duo-multiplier', '3', '--threshold', '0.4']],
      [{ cccParam: 0.5, multiplier: 4, threshold: 0.7 }, ['--ccc-param', '0.5', '--ccc-multiplier', '4', '--threshold', '0.7']],
    ];
    for (const [options, args] of cases) {
      const result = await run({ vectors: 40, fields: 64, ...options });
      const expected = cliRun(['--vectors', '40', '--fields', '64', ...args]);
      expect({ checksum: result.checksum, entries: result.entries }, JSON.stringify(options)).toEqual(expected);
    }
    // A threshold keeps fewer entries than none: the options reached the engine.
    expect((await run({ vectors: 40, fields: 64, threshold: 0.9 })).entries).toBeLessThan((await run({ vectors: 40, fields: 64 })).entries);
  });

  it('reads a packed input file, and a PLINK fileset (converted on the fly)', async () => {
    const packed = join(workDir, 'random48x100.bin');
    writePackedVectorFile(packed, packFieldValues(48, 100, (v, f) => randomProblemCode(v, f, 100)), 48, 100);
    expect((await run({ input: packed, vectors: 48, fields: 100 })).checksum).toBe('0-34600668891914-795881718560018816');

    const plink = spawnSync('plink1.9', ['--dummy', '30', '40', '0.05', '--make-bed', '--seed', '7', '--out', join(workDir, 'dummy')], { encoding: 'utf8' });
    expect(plink.status, plink.stderr).toBe(0);
    const fromApi = await run({ input: join(workDir, 'dummy'), metric: 'r2' });
    expect(fromApi.checksum).toBe(cliRun(['--input', join(workDir, 'dummy'), '--metric', 'r2']).checksum);
    expect(fromApi.comparisons).toBe(((40 * 39) / 2) * 30);
  });

  it('writes rank files and run.json with out, and refuses to overwrite them without force', async () => {
    const stub = join(workDir, 'written');
    const result = await run({ vectors: 24, fields: 50, npv: 2, out: stub, threshold: 1 });
    expect(result.outputFiles).toEqual([`${stub}_0.bin`, `${stub}_1.bin`]);
    for (const file of [...result.outputFiles, `${stub}.run.json`]) expect(existsSync(file)).toBe(true);
    await expect(run({ vectors: 24, fields: 50, npv: 2, out: stub })).rejects.toThrow(UserError);
    expect((await run({ vectors: 24, fields: 50, npv: 2, out: stub, force: true })).outputFiles).toHaveLength(2);
  });

  it('refuses bad options with a UserError naming them, before any work', async () => {
    const bad: ReadonlyArray<readonly [Record<string, unknown>, RegExp]> = [
      [{ vector: 48 }, /^run\(\): unknown option "vector" \(options: metric, way, /],
      [{ vectors: 0 }, /^--vectors must be a positive integer/],
      [{ vectors: 2.5 }, /^--vectors must be a positive integer/],
      [{ way: 4 }, /^--way must be one of 2, 3, got "4"/],
      [{ threshold: '0.5' }, /^run\(\): threshold must be a number or an array of numbers, got "0\.5"$/],
      [{ threshold: [0.5, '1'] }, /^run\(\): threshold must be a number or an array of numbers, got \[0\.5,"1"\]$/],
      [{ vectors: '48' }, /^run\(\): vectors must be a number, got "48"$/],
      [{ sparse: 'yes' }, /^run\(\): sparse must be a boolean, got "yes"$/],
      [{ onProgress: 1 }, /^run\(\): onProgress must be a function, got 1$/],
      [{ metric: 'r2', multiplier: 2 }, /^--metric r2 has no multiplier/],
      [{ input: join(workDir, 'absent.bin'), vectors: 4, fields: 4 }, /absent\.bin/],
    ];
    await expect(run(null as unknown as RunOptions)).rejects.toThrow(/^run\(\): options must be an object$/);
    for (const [options, message] of bad) {
      const failure = await run(options as RunOptions).then(() => null, (error: unknown) => error);
      expect(failure, JSON.stringify(options)).toBeInstanceOf(UserError);
      expect((failure as UserError).message, JSON.stringify(options)).toMatch(message);
    }
  });

  it('reports progress through onProgress, ending at the total', async () => {
    const reports: Array<readonly [number, number]> = [];
    const result = await run({ vectors: 30, fields: 40, onProgress: (done, total) => reports.push([done, total]) });
    expect(reports.length).toBeGreaterThan(0);
    expect(result.comparisons).toBe(((30 * 29) / 2) * 40);
    expect(reports[reports.length - 1]).toEqual([result.comparisons, result.comparisons]);
    for (let r = 1; r < reports.length; r += 1) expect(reports[r][0]).toBeGreaterThanOrEqual(reports[r - 1][0]);
  });

  it('examples/run-from-javascript.mjs imports the package by its name and gets SPEC §5\'s checksum', () => {
    const child = spawnSync(process.execPath, [join(repoRoot, 'examples/run-from-javascript.mjs')], { encoding: 'utf8', timeout: 60_000 });
    expect(child.stderr).toBe('');
    expect(child.status).toBe(0);
    expect(child.stdout).toMatch(/^checksum 0-34600668891914-795881718560018816 entries 4512 comparisons 112800 kernels \S+\n$/);
  });
});
