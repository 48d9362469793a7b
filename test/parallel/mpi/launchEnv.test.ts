// Launch detection from the environment: Open MPI's mpirun, PMI-2 and PMIx launchers, or none.
import { describe, expect, it } from 'vitest';
import { detectMpiLaunch } from '../../../src/parallel/index.js';

describe('detectMpiLaunch', () => {
  it('sees no launcher in a plain environment', () => {
    expect(detectMpiLaunch({ PATH: '/usr/bin', SLURM_NTASKS: '4' })).toBeNull();
  });

  it('reads rank and size from Open MPI, PMI-2 and PMIx variables', () => {
    expect(detectMpiLaunch({ OMPI_COMM_WORLD_RANK: '2', OMPI_COMM_WORLD_SIZE: '6' }))
      .toEqual({ evidence: 'OMPI_COMM_WORLD_RANK=2', worldRank: 2, worldSize: 6 });
    expect(detectMpiLaunch({ PMI_RANK: '0', PMI_SIZE: '3' })).toEqual({ evidence: 'PMI_RANK=0', worldRank: 0, worldSize: 3 });
    expect(detectMpiLaunch({ PMIX_RANK: '5', SLURM_NTASKS: '8' })).toEqual({ evidence: 'PMIX_RANK=5', worldRank: 5, worldSize: 8 });
  });

  it('keeps a launch whose numbers it cannot read, without them', () => {
    expect(detectMpiLaunch({ PMIX_RANK: 'x' })).toEqual({ evidence: 'PMIX_RANK=x', worldRank: null, worldSize: null });
  });
});
