// Builds the native finalize of pair-count rows (KING, the genotype distances: src/analyses/native/pairCounts,
// node-gyp) into build/paircounts/snptally_paircounts.node. Run by `npm run build:native` and at install
// (install-addons.mjs).
//
// An optional speed-up: without a C++ toolchain (or off x86-64) the script writes build/paircounts/UNAVAILABLE with the
// reason and succeeds, and those analyses finalize their pairs in JavaScript (the same values and checksum).
import { spawnSync } from 'node:child_process';
import { addonBuild } from './addonBuild.mjs';

const build = addonBuild({
  label: 'build:native (paircounts)',
  sourceDir: 'src/analyses/native/pairCounts',
  sources: ['src/pairCountsBinding.cc', 'src/pairCountRows.cc', 'src/pairCountRows.h', '../checksumParts.h', '../napiArguments.h', '../recordFilter.h'],
  outDirName: 'paircounts',
  targetName: 'snptally_paircounts',
});
build.exitIfUpToDate();
const consequence = 'KING and the distances will finalize their pairs in JavaScript';
if (process.arch !== 'x64') build.skip(`the native pair-count finalize is built for x86-64, this is ${process.arch}`, consequence);
const cxx = spawnSync('g++', ['--version'], { encoding: 'utf8' });
if (cxx.error !== undefined || cxx.status !== 0) build.skip('no C++ compiler (g++) when snptally was built', consequence);
build.compile('a C++ compiler is present, so this is an error', consequence);
