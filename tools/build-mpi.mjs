// Builds the MPI binding (parallel/mpi, node-gyp) into build/mpi/snptally_mpi.node. Run by `npm run build:mpi`.
//
// A machine without Open MPI's compiler wrapper (package libopenmpi-dev) gets no binding: the script
// writes build/mpi/UNAVAILABLE with the reason and succeeds, so everything else builds; a run started
// under mpirun then stops with that reason. With mpicc present, a failing compile fails the build.

import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const sourceDir = path.join(repoRoot, 'parallel/mpi');
const outDir = path.join(repoRoot, 'build/mpi');
const addonPath = path.join(outDir, 'snptally_mpi.node');
const unavailablePath = path.join(outDir, 'UNAVAILABLE');

const inputs = ['binding.gyp', 'src/mpiBinding.cc'].map((name) => path.join(sourceDir, name));
if (existsSync(addonPath) && inputs.every((input) => statSync(input).mtimeMs <= statSync(addonPath).mtimeMs)) {
  console.log(`build:mpi: ${path.relative(repoRoot, addonPath)} is up to date`);
  process.exit(0);
}

mkdirSync(outDir, { recursive: true });
rmSync(addonPath, { force: true });
rmSync(unavailablePath, { force: true });

const mpicc = spawnSync('mpicc', ['--showme:incdirs'], { encoding: 'utf8' });
if (mpicc.error !== undefined || mpicc.status !== 0) {
  const reason = 'Open MPI development files were not found when snptally was built (no mpicc); ' +
    'install libopenmpi-dev (Debian: apt-get install openmpi-bin libopenmpi-dev) and run npm run build';
  writeFileSync(unavailablePath, `${reason}\n`);
  console.warn(`build:mpi: skipped, MPI support unavailable: ${reason}`);
  process.exit(0);
}

// The headers of the running Node, when installed next to it (/usr/include/node, /usr/local/include/node),
// so that node-gyp does not need to download them.
const nodeDir = path.resolve(path.dirname(process.execPath), '..');
const nodeDirArgs = existsSync(path.join(nodeDir, 'include/node/node_api.h')) ? [`--nodedir=${nodeDir}`] : [];
const nodeGyp = createRequire(import.meta.url).resolve('node-gyp/bin/node-gyp.js');
const build = spawnSync(process.execPath, [nodeGyp, 'rebuild', '--silent', ...nodeDirArgs], {
  cwd: sourceDir, stdio: 'inherit',
});
if (build.status !== 0) {
  console.error('build:mpi: node-gyp failed (mpicc is present, so this is an error)');
  process.exit(1);
}
copyFileSync(path.join(sourceDir, 'build/Release/snptally_mpi.node'), addonPath);
console.log(`build:mpi: ${path.relative(repoRoot, addonPath)}`);
