// The bundled CLI (dist/bundle/main.js, the package's bin; tools/bundle.mjs) does what dist/src/cli/main.js does: the
// same stdout (timings left out) and the same output files byte for byte, over commands that start every kind of
// thread a CPU run has — kernel and finalize workers (the finalize guest imported by URL), in-process ranks (their
// entry imported by URL), the sample-major transposition, block builds, the hash of a prepared file and of rows in
// memory — and find the native addons and the wasm relative to dist/src.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundledCliMain } from '../../tools/lib/bundledCli.js';
import { simulateEpistasis } from '../../tools/lib/epistasisSimulation.js';
import { runPeer } from '../helpers/runPeer.js';
import { CLI_MAIN } from './cliHarness.js';

const dir = mkdtempSync(join(tmpdir(), 'snptally-bundled-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A JSON report without what differs from run to run: timings (keys naming seconds or rates), the free memory. */
function withoutTimings(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutTimings);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).filter(([key]) => !/seconds|PerSecond|hostMemoryLimit/i.test(key))
    .map(([key, inner]) => [key, withoutTimings(inner)]));
}

/** Runs `args` with one build's main in its own output folder (`{out}` in args names it); its stdout and files. */
function runBuild(main: string, name: string, args: readonly string[]): { stdout: string; files: Map<string, Buffer> } {
  const out = mkdtempSync(join(dir, `${name}-`));
  const child = spawnSync(process.execPath, [main, ...args.map((arg) => arg.replaceAll('{out}', out))], {
    encoding: 'utf8', env: { ...process.env, SNPTALLY_DEBUG: '' }, timeout: 110_000,
  });
  expect(child.status, child.stderr).toBe(0);
  const files = new Map(readdirSync(out).map((file) => [file, readFileSync(join(out, file))]));
  return { stdout: child.stdout.replaceAll(out, '{out}'), files };
}

/**
 * Both builds' runs of `args`: the same stdout (JSON without timings, or text; the PLINK front end's names a scratch
 * folder of its own) and the same files.
 */
function expectSameRuns(name: string, args: readonly string[], stdout: 'json' | 'text' | 'scratch-named'): void {
  const fromDist = runBuild(CLI_MAIN, `${name}-dist`, args);
  const fromBundle = runBuild(bundledCliMain(), `${name}-bundle`, args);
  if (stdout === 'json') expect(withoutTimings(JSON.parse(fromBundle.stdout))).toEqual(withoutTimings(JSON.parse(fromDist.stdout)));
  else if (stdout === 'text') expect(fromBundle.stdout).toBe(fromDist.stdout);
  expect([...fromBundle.files.keys()].sort()).toEqual([...fromDist.files.keys()].sort());
  if (args.some((arg) => arg.includes('{out}'))) expect(fromDist.files.size, `${name}: output files`).toBeGreaterThan(0);
  for (const [file, bytes] of fromDist.files) {
    if (/\.(json|log)$/.test(file)) continue; // run and input descriptions: timings, paths and dates
    expect(fromBundle.files.get(file)!.equals(bytes), `${name}: ${file}`).toBe(true);
  }
}

describe('the bundled CLI against dist/src', () => {
  const dummy = join(dir, 'dummy');
  const cases = join(dir, 'cases');
  const prepared = join(dir, 'dummy.packed');
  beforeAll(() => {
    runPeer('plink1.9', ['--dummy', '120', '900', '0.03', '--seed', '3', '--make-bed', '--out', dummy]);
    expect(spawnSync(process.execPath, [CLI_MAIN, 'prepare', dummy, '--out', prepared]).status).toBe(0);
    simulateEpistasis(cases, {
      numSnp: 300, numCases: 100, numControls: 100, maf: 0.4, prevalence: 0.3, heritability: 0.02, model: 'pure',
      planted: [1, 298], missingRate: 0.01, seed: 2,
    });
  });

  it('--version and a CCC 2-way run on 2 threads (records)', () => {
    expectSameRuns('version', ['--version'], 'text');
    expectSameRuns('ccc', ['run', '--vectors', '400', '--fields', '700', '--threads', '2', '--threshold', '0.6', '--out', '{out}/ccc', '--json'], 'json');
  });

  it('3-way DUO on 2 × 2 in-process ranks', () => {
    expectSameRuns('duo3', ['run', '--metric', 'duo', '--way', '3', '--vectors', '48', '--fields', '300', '--npv', '2', '--npf', '2',
      '--threads', '2', '--threshold', '0.5', '--out', '{out}/duo3', '--json'], 'json');
  });

  it('plink --make-king (transposition, block builds, the rows\' hash) and a prepared file\'s r² windows', () => {
    expectSameRuns('king', ['plink', '--bfile', dummy, '--make-king', 'triangle', 'bin', '--threads', '2', '--out', '{out}/king'], 'scratch-named');
    expectSameRuns('r2', ['run', '--metric', 'r2', '--input', prepared, '--ld-window-kb', '400', '--ld-window', '99999', '--ld-window-r2', '0',
      '--threads', '2', '--out', '{out}/r2', '--json'], 'json');
  });

  it('epistasis 2-way K2 on 2 threads (the native dense bands)', () => {
    expectSameRuns('epistasis', ['epistasis', '--bfile', cases, '--order', '2', '--top', '5', '--threads', '2', '--json'], 'json');
  });
});
