// Builds r²'s native window bands (src/analyses/r2/native, node-gyp) into build/r2/snptally_r2.node. Run by
// `npm run build:native` and at install (install-addons.mjs).
//
// An optional speed-up: without a C++ toolchain (or off x86-64) the script writes build/r2/UNAVAILABLE with the reason
// and succeeds, and windowed r² runs compute their bands in JavaScript with the kernel set's GEMM (the same files).
import { spawnSync } from 'node:child_process';
import { addonBuild, SHARED_NATIVE_HEADERS } from './addonBuild.mjs';

const build = addonBuild({
  label: 'build:native (r2)',
  sourceDir: 'src/analyses/r2/native',
  sources: ['src/r2Binding.cc', 'src/r2WindowBand.cc', 'src/r2WindowBand.h', 'src/ldText.cc', 'src/ldText.h', 'src/ldNumberText.h', 'src/r2Tallies.h', 'src/ldTextBinding.cc', ...SHARED_NATIVE_HEADERS],
  outDirName: 'r2',
  targetName: 'snptally_r2',
});
build.exitIfUpToDate();
const consequence = 'windowed r² bands will be computed in JavaScript';
if (process.arch !== 'x64') build.skip(`r²'s native window bands are built for x86-64, this is ${process.arch}`, consequence);
const cxx = spawnSync('g++', ['--version'], { encoding: 'utf8' });
if (cxx.error !== undefined || cxx.status !== 0) build.skip('no C++ compiler (g++) when snptally was built', consequence);
build.compile('a C++ compiler is present, so this is an error', consequence);
