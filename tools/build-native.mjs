// Builds the native AVX-512 popcount-GEMM kernel (mgemm/kernels/native, node-gyp) into
// build/native/snptally_popcount.node. Run by `npm run build:native`.
//
// The kernel is an optional speed-up: without a C++ toolchain (or off x86-64) the script writes
// build/native/UNAVAILABLE with the reason and succeeds, and `--backend cpu` uses the wasm kernel.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const sourceDir = path.join(repoRoot, 'mgemm/kernels/native');
const outDir = path.join(repoRoot, 'build/native');
const addonPath = path.join(outDir, 'snptally_popcount.node');
const unavailablePath = path.join(outDir, 'UNAVAILABLE');

const inputs = ['binding.gyp', 'src/popcountAvx512.cc'].map((name) => path.join(sourceDir, name));
if (existsSync(addonPath) && inputs.every((input) => statSync(input).mtimeMs <= statSync(addonPath).mtimeMs)) {
  console.log(`build:native: ${path.relative(repoRoot, addonPath)} is up to date`);
  process.exit(0);
}
mkdirSync(outDir, { recursive: true });
rmSync(addonPath, { force: true });
rmSync(unavailablePath, { force: true });

function unavailable(reason) {
  writeFileSync(unavailablePath, `${reason}\n`);
  console.warn(`build:native: skipped, the wasm kernel will be used: ${reason}`);
  process.exit(0);
}
if (process.arch !== 'x64') unavailable(`the native kernel is for x86-64, this is ${process.arch}`);
const cxx = spawnSync('g++', ['--version'], { encoding: 'utf8' });
if (cxx.error !== undefined || cxx.status !== 0) unavailable('no C++ compiler (g++) when snptally was built');

// The headers of the running Node, when installed next to it, so that node-gyp does not download them.
const nodeDir = path.resolve(path.dirname(process.execPath), '..');
const nodeDirArgs = existsSync(path.join(nodeDir, 'include/node/node_api.h')) ? [`--nodedir=${nodeDir}`] : [];
const nodeGyp = createRequire(import.meta.url).resolve('node-gyp/bin/node-gyp.js');
const build = spawnSync(process.execPath, [nodeGyp, 'rebuild', '--silent', ...nodeDirArgs], { cwd: sourceDir, stdio: 'inherit' });
if (build.status !== 0) {
  console.error('build:native: node-gyp failed (a C++ compiler is present, so this is an error)');
  process.exit(1);
}
copyFileSync(path.join(sourceDir, 'build/Release/snptally_popcount.node'), addonPath);
console.log(`build:native: ${path.relative(repoRoot, addonPath)}`);
