// Loads the compiled MPI binding (build/mpi/snptally_mpi.node) and types its functions; no logic.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { MessageArray } from '../communicator.js';

/** Communicator, request and matched-message handles are small integers; communicator 0 is MPI_COMM_WORLD. */
export type CommHandle = number;
export type RequestId = number;

/** The functions of parallel/mpi/src/mpiBinding.cc. Every call must come from the main thread. */
export interface MpiBinding {
  /** dlopen(`library`, RTLD_NOW | RTLD_GLOBAL), then MPI_Init_thread(MPI_THREAD_FUNNELED). */
  init(library: string): { readonly provided: number; readonly threadFunneled: boolean };
  finalize(): void;
  commRank(comm: CommHandle): number;
  commSize(comm: CommHandle): number;
  /** MPI_Comm_split: blocking and collective over `comm`; color ≥ 0 and key must fit a C int. */
  commSplit(comm: CommHandle, color: number, key: number): CommHandle;
  /** MPI_Comm_split_type(MPI_COMM_TYPE_SHARED): the ranks of this node. */
  commSplitShared(comm: CommHandle): CommHandle;
  commFree(comm: CommHandle): void;
  tagUpperBound(): number;
  /** MPI_Isend of the array's bytes; the binding keeps the array alive until the request completes. */
  isend(comm: CommHandle, dest: number, tag: number, data: MessageArray): RequestId;
  /** MPI_Improbe: the next message from (source, tag), now matched to this rank, or null. */
  improbe(comm: CommHandle, source: number, tag: number): { readonly messageId: number; readonly byteLength: number } | null;
  /** MPI_Imrecv of a matched message into `data` (exactly `byteLength` bytes). */
  imrecv(messageId: number, data: MessageArray): RequestId;
  /** MPI_Iallreduce(MPI_IN_PLACE, MPI_SUM) over the array's elements (Uint32 or Float64). */
  iallreduceSum(comm: CommHandle, data: Uint32Array | Float64Array): RequestId;
  /** MPI_Ibcast; every rank passes an array of the same kind and length. */
  ibcast(comm: CommHandle, root: number, data: MessageArray): RequestId;
  ibarrier(comm: CommHandle): RequestId;
  /**
   * MPI_Test on every pending request: the ids that completed (their arrays are released). With a spin, keeps
   * testing for up to that many microseconds until one completes.
   */
  testRequests(spinMicroseconds?: number): RequestId[];
  /** MPI_Abort(MPI_COMM_WORLD, errorCode). */
  abort(errorCode: number): void;
}

/** The binding, or why there is none. */
export type MpiBindingLoad =
  | { readonly available: true; readonly binding: MpiBinding }
  | { readonly available: false; readonly reason: string };

/** build/mpi/ at the repo root, seen from dist/src/parallel/mpi/ where this file runs once compiled. */
const ADDON_URL = new URL('../../../../build/mpi/snptally_mpi.node', import.meta.url);
const UNAVAILABLE_URL = new URL('../../../../build/mpi/UNAVAILABLE', import.meta.url);

let loaded: MpiBindingLoad | null = null;

/** Loads the binding once (loading does not initialize MPI). */
export function loadMpiBinding(): MpiBindingLoad {
  if (loaded !== null) return loaded;
  const addonPath = fileURLToPath(ADDON_URL);
  if (!existsSync(addonPath)) {
    const unavailablePath = fileURLToPath(UNAVAILABLE_URL);
    const reason = existsSync(unavailablePath)
      ? readFileSync(unavailablePath, 'utf8').trim()
      : `the MPI binding ${addonPath} is missing (in a source checkout: npm run build; an installed package builds it at install, unless its install script was skipped)`;
    loaded = { available: false, reason };
    return loaded;
  }
  try {
    loaded = { available: true, binding: createRequire(import.meta.url)(addonPath) as MpiBinding };
  } catch (error) {
    loaded = { available: false, reason: `cannot load ${addonPath}: ${error instanceof Error ? error.message : String(error)}` };
  }
  return loaded;
}
