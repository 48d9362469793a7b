// Shared steps of the node-gyp builds of snptally's native addons (build-native.mjs, build-mpi.mjs):
// skip when up to date, record why an optional addon is unavailable, run node-gyp, copy the result.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The analyses' shared native headers (src/analyses/native), relative to an analysis's native folder. */
export const SHARED_NATIVE_HEADERS = ['checksumParts.h', 'recordFilter.h', 'napiArguments.h'].map((name) => `../../native/${name}`);

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * node-gyp's script: the devDependency in a source checkout, else the one npm brings and names to install scripts
 * (`npm_config_node_gyp`), as when the package is installed; null when neither is found.
 */
function findNodeGyp() {
  try {
    return createRequire(import.meta.url).resolve('node-gyp/bin/node-gyp.js');
  } catch {
    const fromNpm = process.env.npm_config_node_gyp;
    return fromNpm !== undefined && existsSync(fromNpm) ? fromNpm : null;
  }
}

/**
 * An addon build: `sourceDir` (with binding.gyp) → build/<outDirName>/<targetName>.node. `label` prefixes
 * messages (e.g. `build:mpi`). Call `exitIfUpToDate()` first, then `skip(reason, consequence)` or `compile(failureHint, consequence)`.
 */
export function addonBuild({ label, sourceDir, sources, outDirName, targetName }) {
  const source = path.join(repoRoot, sourceDir);
  const outDir = path.join(repoRoot, 'build', outDirName);
  const addonPath = path.join(outDir, `${targetName}.node`);
  const unavailablePath = path.join(outDir, 'UNAVAILABLE');
  const relative = path.relative(repoRoot, addonPath);
  return {
    /** Exits the process when the addon is newer than binding.gyp and its sources; else clears old outputs. */
    exitIfUpToDate() {
      const inputs = ['binding.gyp', ...sources].map((name) => path.join(source, name));
      if (existsSync(addonPath) && inputs.every((input) => statSync(input).mtimeMs <= statSync(addonPath).mtimeMs)) {
        console.log(`${label}: ${relative} is up to date`);
        process.exit(0);
      }
      mkdirSync(outDir, { recursive: true });
      rmSync(addonPath, { force: true });
      rmSync(unavailablePath, { force: true });
    },
    /** Records why the addon is not built (read at run time) and exits successfully. */
    skip(reason, consequence) {
      writeFileSync(unavailablePath, `${reason}\n`);
      console.warn(`${label}: skipped, ${consequence}: ${reason}`);
      process.exit(0);
    },
    /** Runs node-gyp; a failure here is an error (the prerequisites were found); without node-gyp, skips. */
    compile(failureHint, consequence) {
      // The headers of the running Node, when installed next to it, so that node-gyp does not download them.
      const nodeDir = path.resolve(path.dirname(process.execPath), '..');
      const nodeDirArgs = existsSync(path.join(nodeDir, 'include/node/node_api.h')) ? [`--nodedir=${nodeDir}`] : [];
      const nodeGyp = findNodeGyp();
      if (nodeGyp === null) this.skip('node-gyp was not found (it comes with npm) when snptally was built', consequence);
      const build = spawnSync(process.execPath, [nodeGyp, 'rebuild', '--silent', ...nodeDirArgs], { cwd: source, stdio: 'inherit' });
      if (build.status !== 0) {
        console.error(`${label}: node-gyp failed (${failureHint})`);
        process.exit(1);
      }
      copyFileSync(path.join(source, `build/Release/${targetName}.node`), addonPath);
      console.log(`${label}: ${relative}`);
    },
  };
}
