// Builds the native scorer of dense 2-way epistasis panels and bands (src/analyses/epistasis/native, node-gyp) into
// build/epistasis/snptally_epistasis.node. Run by `npm run build:native` and at install (install-addons.mjs).
//
// An optional speed-up: without a C++ toolchain (or off x86-64) the script writes build/epistasis/UNAVAILABLE with the
// reason and succeeds, and epistasis runs score their pairs in JavaScript (the same values, bit for bit).
import { spawnSync } from 'node:child_process';
import { addonBuild, SHARED_NATIVE_HEADERS } from './addonBuild.mjs';

const build = addonBuild({
  label: 'build:native (epistasis)',
  sourceDir: 'src/analyses/epistasis/native',
  sources: [
    'src/epistasisBinding.cc', 'src/densePairScores.cc', 'src/densePairScores.h', 'src/pairScoring.h', 'src/denseBand.cc', 'src/denseBand.h',
    ...SHARED_NATIVE_HEADERS,
  ],
  outDirName: 'epistasis',
  targetName: 'snptally_epistasis',
});
build.exitIfUpToDate();
const consequence = 'epistasis pairs will be scored in JavaScript';
if (process.arch !== 'x64') build.skip(`the native epistasis scorer is built for x86-64, this is ${process.arch}`, consequence);
const cxx = spawnSync('g++', ['--version'], { encoding: 'utf8' });
if (cxx.error !== undefined || cxx.status !== 0) build.skip('no C++ compiler (g++) when snptally was built', consequence);
build.compile('a C++ compiler is present, so this is an error', consequence);
