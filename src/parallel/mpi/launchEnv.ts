// Recognizes a process started by an MPI launcher (mpirun, mpiexec, srun) from its environment.

/** What the launcher told this process before MPI is initialized. */
export interface MpiLaunch {
  /** The variable that gave the launch away, for messages. */
  readonly evidence: string;
  /** World rank, when the launcher exports it (rank 0 decides alone what to print). */
  readonly worldRank: number | null;
  /** Number of processes, when the launcher exports it. */
  readonly worldSize: number | null;
}

type Environment = Readonly<Record<string, string | undefined>>;

/** Rank and size variables of Open MPI's mpirun, of PMI-2 (srun --mpi=pmi2, MPICH) and of PMIx (srun --mpi=pmix). */
const LAUNCH_VARIABLES = [
  { rank: 'OMPI_COMM_WORLD_RANK', size: 'OMPI_COMM_WORLD_SIZE' },
  { rank: 'PMI_RANK', size: 'PMI_SIZE' },
  { rank: 'PMIX_RANK', size: 'SLURM_NTASKS' },
] as const;

/** The launch this process is part of, or null when it was started directly (a singleton run). */
export function detectMpiLaunch(env: Environment = process.env): MpiLaunch | null {
  for (const { rank, size } of LAUNCH_VARIABLES) {
    const rankText = env[rank];
    if (rankText === undefined) continue;
    return { evidence: `${rank}=${rankText}`, worldRank: integerOrNull(rankText), worldSize: integerOrNull(env[size]) };
  }
  return null;
}

function integerOrNull(text: string | undefined): number | null {
  if (text === undefined || !/^\d+$/.test(text)) return null;
  return Number(text);
}
