// What each thread of a command loads (a loader hook logs every module URL with its thread's kind): a CPU run's threads
// never load the WebGPU kernel set, MPI's runtime or analyses other than the run's own; `--version` loads no
// subcommand; `epistasis` loads neither `report` nor the PLINK front end. Guards the start-up cost against regressions,
// on dist/src's modules and on the bundle (the package's bin), whose files stand for the modules they hold.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { bundleContents, bundledCliMain } from '../../tools/lib/bundledCli.js';
import { simulateEpistasis } from '../../tools/lib/epistasisSimulation.js';
import { CLI_MAIN } from './cliHarness.js';

const dir = mkdtempSync(join(tmpdir(), 'snptally-modules-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const HOOKS = join(dir, 'hooks.mjs');
writeFileSync(HOOKS, [
  "import { appendFileSync } from 'node:fs';",
  'let tag = null;',
  'export function initialize(data) { tag = data; }',
  'export async function load(url, context, next) {',
  "  if (url.startsWith('file:')) appendFileSync(tag.log, `${tag.thread} ${url}\\n`);",
  '  return next(url, context);',
  '}',
].join('\n'));

/** Which modules the main thread and the worker threads loaded. */
interface LoadedModules {
  readonly main: string[];
  readonly workers: string[];
}

/** A build of the CLI: its entry, and the dist/src module URLs that a loaded file's URL stands for. */
interface CliBuild {
  readonly name: string;
  readonly main: string;
  modulesOf(url: string): string[];
}

const DIST_BUILD: CliBuild = { name: 'dist/src', main: CLI_MAIN, modulesOf: (url) => [url] };

/** The bundle: each of its files stands for the dist/src modules esbuild put in it (dependencies' files for themselves). */
function bundleBuild(): CliBuild {
  const main = bundledCliMain();
  const contents = bundleContents();
  const bundleDir = pathToFileURL(dirname(main)).href;
  const distSource = new URL('../src/', `${bundleDir}/`).href;
  return {
    name: 'dist/bundle', main,
    modulesOf: (url) => {
      if (!url.startsWith(`${bundleDir}/`)) return [url];
      const held = contents.get(url.slice(bundleDir.length + 1));
      if (held === undefined) throw new Error(`${url} is not a file of the bundle`);
      return held.map((module) => distSource + module);
    },
  };
}

/** Runs the CLI with the hook registered in every thread (workers inherit --import) and returns what each loaded. */
function loadsOf(build: CliBuild, name: string, args: readonly string[]): LoadedModules {
  const log = join(dir, `${name}-${build.name.replace('/', '-')}.log`);
  const register = 'import{register}from"node:module";import{isMainThread}from"node:worker_threads";' +
    `register(${JSON.stringify(pathToFileURL(HOOKS).href)},{data:{log:${JSON.stringify(log)},thread:isMainThread?"main":"worker"}});`;
  const child = spawnSync(process.execPath, [`--import=data:text/javascript,${encodeURIComponent(register)}`, build.main, ...args], {
    encoding: 'utf8', env: { ...process.env, SNPTALLY_DEBUG: '' }, timeout: 110_000,
  });
  expect(child.status, child.stderr).toBe(0);
  const lines = readFileSync(log, 'utf8').trim().split('\n').map((line) => line.split(' '));
  return {
    main: lines.filter(([thread]) => thread === 'main').flatMap(([, url]) => build.modulesOf(url)),
    workers: lines.filter(([thread]) => thread === 'worker').flatMap(([, url]) => build.modulesOf(url)),
  };
}

const matching = (urls: readonly string[], pattern: RegExp): string[] => urls.filter((url) => pattern.test(url));

describe.each([{ name: 'dist/src', buildOf: () => DIST_BUILD }, { name: 'dist/bundle', buildOf: bundleBuild }])('module loading of $name', ({ buildOf }) => {
  it('a CPU run on 2 threads: its kernel worker loads no WebGPU, no MPI runtime and no other analysis', () => {
    const { main, workers } = loadsOf(buildOf(), 'cpu', ['run', '--backend', 'cpu', '--threads', '2', '--vectors', '600', '--fields', '2000']);
    // The worker ran (so the checks below look at its loads), and finalized the run's analysis.
    expect(matching(workers, /\/mgemm\/kernels\/wasm\/gemmWorker\.js$/)).toHaveLength(1);
    expect(matching(workers, /\/analyses\/ccc\/index\.js$/)).toHaveLength(1);
    for (const urls of [main, workers]) {
      expect(matching(urls, /\/mgemm\/kernels\/webgpu\//)).toEqual([]);
      expect(matching(urls, /\/node_modules\/webgpu\//)).toEqual([]);
      expect(matching(urls, /\/mgemm\/kernels\/minplus\/minPlusGemm\.js$/)).toEqual([]);
      expect(matching(urls, /\/parallel\/mpi\/(mpiRuntime|mpiBinding|mpiCommunicator)\.js$/)).toEqual([]);
      expect(matching(urls, /\/analyses\/(duo|r2|king|distance|epistasis|czekanowski|grm)\//)).toEqual([]);
    }
  });

  it('--version loads no subcommand', () => {
    const { main, workers } = loadsOf(buildOf(), 'version', ['--version']);
    expect(matching(main, /\/cli\/commandLine\.js$/)).toHaveLength(1);
    expect(matching(main, /Command\.js$/)).toEqual([]);
    expect(matching(main, /\/(engine|analyses|mgemm)\//)).toEqual([]);
    expect(workers).toEqual([]);
  });

  it('epistasis loads neither the other subcommands nor the WebGPU kernel set', () => {
    const prefix = join(dir, 'cc');
    simulateEpistasis(prefix, {
      numSnp: 40, numCases: 30, numControls: 30, maf: 0.4, prevalence: 0.3, heritability: 0.02, model: 'pure',
      planted: [1, 38], missingRate: 0, seed: 1,
    });
    const { main } = loadsOf(buildOf(), 'epistasis', ['epistasis', '--bfile', prefix, '--order', '2', '--top', '3', '--backend', 'cpu', '--json']);
    expect(matching(main, /\/cli\/epistasis\/epistasisCommand\.js$/)).toHaveLength(1);
    expect(matching(main, /\/cli\/(runCommand|dumpCommand|topCommand|mergeCommand|reportCommand|prepareCommand)\.js$/)).toEqual([]);
    expect(matching(main, /\/cli\/(plink|report)\//)).toEqual([]);
    expect(matching(main, /\/mgemm\/kernels\/webgpu\//)).toEqual([]);
  });
});
