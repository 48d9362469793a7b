// Public API of the parallel layer: the process grid, pure decomposition plans, and the communicators.
export type { Communicator, MessageArray, ReceiveOptions, SendOptions } from './communicator.js';
export { evenSplit, rangeLength, type IndexRange } from './evenSplit.js';
export {
  coordsOf,
  fieldSlabRange,
  numFieldLocal,
  numRanks,
  numVectorLocal,
  rankOf,
  validateGrid,
  vectorBlockRange,
  type GridCoords,
  type ProcessGrid,
} from './grid.js';
export { MAX_QUAD_PHASES, maxNumPhase, validateDecomposition, type DecomposedProblem, type Decomposition } from './decomposition.js';
export {
  blockCirculantPlan,
  HALF_DIAGONAL_PLANS,
  halfDiagonalCut,
  isHalfDiagonal,
  numBlockDiagonals,
  rowComputesDiagonal,
  type BlockCirculantPlanInput,
  type BlockCirculantStep,
  type HalfDiagonalPlan,
} from './blockCirculantPlan.js';
export {
  numSlabUnits,
  sectionAxisPart3,
  sectionNumPart3,
  slabBlockUnits,
  slabPhaseUnits,
  slabPlan,
  slabSectionRange,
  slabUnitForStage,
  type SlabAxis,
  type SlabBlockUnit,
  type SlabPart,
  type SlabPhaseInput,
  type SlabPlanInput,
  type SlabUnit,
} from './slabPlan.js';
export {
  blockExchangePlan,
  type BlockExchange,
  type BlockTransfer,
  type BlocksNeeded,
} from './blockExchangePlan.js';
export {
  colPairsOf,
  firstColPairOf,
  MAX_QUAD_VECTORS,
  numPairs,
  quadPartIndex,
  quadPlan,
  quadsOfTile,
  quadTiles,
  rowPairIndex,
  rowPairJ,
  rowPairsOf,
  type QuadPlanInput,
  type QuadTile,
} from './quadPlan.js';
export { CollectiveCommunicator } from './collectiveCommunicator.js';
export { LocalCommunicator } from './localCommunicator.js';
export {
  launchInProcessRanks,
  RankError,
  type LaunchInProcessOptions,
  type ProgressReporter,
  type RankEntry,
} from './inProcess/index.js';
export { broadcastObject, gatherObjects } from './objectMessages.js';
// MPI loads its binding and runtime only in a process that starts it (detectMpiLaunch itself reads the environment).
export { detectMpiLaunch, type MpiLaunch } from './mpi/launchEnv.js';
export type { MpiRuntime } from './mpi/mpiRuntime.js';
export type { MpiCommunicator } from './mpi/mpiCommunicator.js';
export { startMpi } from './mpiOnDemand.js';
