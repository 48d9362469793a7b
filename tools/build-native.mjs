// Builds the native AVX-512 popcount-GEMM kernel, its code-row packing and vector sums, and the GRM's OpenBLAS entry (opened at run time; mgemm/kernels/native, node-gyp) into
// build/native/snptally_popcount.node. Run by `npm run build:native`.
//
// The kernel is an optional speed-up: without a C++ toolchain (or off x86-64) the script writes
// build/native/UNAVAILABLE with the reason and succeeds, and `--backend cpu` uses the wasm kernel.
import { spawnSync } from 'node:child_process';
import { addonBuild } from './addonBuild.mjs';

const build = addonBuild({
  label: 'build:native',
  sourceDir: 'src/mgemm/kernels/native',
  sources: [
    'src/popcountAvx512.cc', 'src/popcountKernel.h', 'src/horizontal4x4.cc', 'src/verticalLoops.cc', 'src/verticalMicrokernel.h',
    'src/verticalPacking.cc', 'src/verticalPacking.h', 'src/layoutChoice.cc', 'src/amxSupport.cc', 'src/amxPacking.h',
    'src/amxPacking.cc', 'src/amxMicrokernel.h', 'src/amxLoops.cc', 'src/complementTerms.cc', 'src/openBlasSyrk.cc', 'src/codePlanes.cc',
  ],
  outDirName: 'native',
  targetName: 'snptally_popcount',
});
build.exitIfUpToDate();
const consequence = 'the wasm kernel will be used';
if (process.arch !== 'x64') build.skip(`the native kernel is for x86-64, this is ${process.arch}`, consequence);
const cxx = spawnSync('g++', ['--version'], { encoding: 'utf8' });
if (cxx.error !== undefined || cxx.status !== 0) build.skip('no C++ compiler (g++) when snptally was built', consequence);
build.compile('a C++ compiler is present, so this is an error', consequence);
