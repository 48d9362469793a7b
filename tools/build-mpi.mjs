// Builds the MPI binding (parallel/mpi, node-gyp) into build/mpi/snptally_mpi.node. Run by `npm run build:mpi`.
//
// A machine without Open MPI's compiler wrapper (package libopenmpi-dev) gets no binding: the script
// writes build/mpi/UNAVAILABLE with the reason and succeeds, so everything else builds; a run started
// under mpirun then stops with that reason. With mpicc present, a failing compile fails the build.
import { spawnSync } from 'node:child_process';
import { addonBuild } from './addonBuild.mjs';

const build = addonBuild({
  label: 'build:mpi',
  sourceDir: 'src/parallel/mpi',
  sources: ['src/mpiBinding.cc'],
  outDirName: 'mpi',
  targetName: 'snptally_mpi',
});
build.exitIfUpToDate();
const mpicc = spawnSync('mpicc', ['--showme:incdirs'], { encoding: 'utf8' });
const consequence = 'MPI support unavailable';
if (mpicc.error !== undefined || mpicc.status !== 0) {
  build.skip('Open MPI development files were not found when snptally was built (no mpicc); ' +
    'install libopenmpi-dev (Debian: apt-get install openmpi-bin libopenmpi-dev) and run npm run build (or install snptally again)',
  consequence);
}
build.compile('mpicc is present, so this is an error', consequence);
