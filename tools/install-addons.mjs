// The package's install script (`npm install snptally`, `npm install -g`): builds the optional native parts where
// this machine can — the AVX-512 kernel (build-native.mjs), the epistasis scorer (build-epistasis-native.mjs), r²'s window bands (build-r2-native.mjs), KING's and the distances' finalize (build-paircounts-native.mjs), the MPI
// binding (build-mpi.mjs), the Vulkan layer that numbers GPUs (build-vulkan-layer.mjs) — each in its own process. It never fails the install: a part that cannot
// be built gets build/<part>/UNAVAILABLE with the reason, which runs report, and they use the prebuilt wasm kernel,
// no MPI, the first GPU. In a source checkout (tsconfig.json present) `npm run build` builds them instead.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from './addonBuild.mjs';

/** Each optional part: its build script and the folder of build/ where it lands. */
const OPTIONAL_PARTS = [
  { script: 'build-native.mjs', outDirName: 'native' },
  { script: 'build-epistasis-native.mjs', outDirName: 'epistasis' },
  { script: 'build-r2-native.mjs', outDirName: 'r2' },
  { script: 'build-paircounts-native.mjs', outDirName: 'paircounts' },
  { script: 'build-mpi.mjs', outDirName: 'mpi' },
  { script: 'build-vulkan-layer.mjs', outDirName: 'vulkan' },
];

if (existsSync(path.join(repoRoot, 'tsconfig.json'))) {
  console.log('snptally install: a source checkout; npm run build builds the native addons');
  process.exit(0);
}
for (const { script, outDirName } of OPTIONAL_PARTS) {
  const build = spawnSync(process.execPath, [path.join(repoRoot, 'tools', script)], { cwd: repoRoot, stdio: 'inherit' });
  if (build.status === 0) continue;
  // A compiler was found but the build failed (missing make or python3 for node-gyp, old headers, …).
  const outDir = path.join(repoRoot, 'build', outDirName);
  mkdirSync(outDir, { recursive: true });
  const how = build.error !== undefined ? build.error.message : `exit status ${build.status ?? build.signal}`;
  writeFileSync(path.join(outDir, 'UNAVAILABLE'), `its build at install failed (${how}); install again with --foreground-scripts to see why\n`);
  console.warn(`snptally install: ${script} failed (${how}); continuing without it`);
}
