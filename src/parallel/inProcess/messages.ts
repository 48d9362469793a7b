// The messages between the launcher, its rank workers, and ranks among themselves (all structured-clonable).
import type { MessagePort } from 'node:worker_threads';
import type { Communicator, MessageArray } from '../communicator.js';

/** How a rank tells the launcher how far it is; the launcher sums over ranks. */
export type ProgressReporter = (done: number, total: number) => void;

/** The function an entry module exports; its result must be structured-clonable. */
export type RankEntry = (comm: Communicator, payload: unknown, reportProgress: ProgressReporter) => Promise<unknown>;

/** What the launcher hands each worker. */
export interface RankWorkerData {
  readonly rank: number;
  readonly numRanks: number;
  /** ports[s]: this rank's end of the channel to rank s; null for itself. */
  readonly ports: ReadonlyArray<MessagePort | null>;
  readonly entryModuleUrl: string;
  readonly entryExportName: string;
  readonly payload: unknown;
}

/** One point-to-point message on a rank-to-rank channel (the source is the channel's far end). */
export interface WireMessage {
  readonly contextId: string;
  readonly tag: number;
  readonly data: MessageArray;
}

/** Launcher → worker: another rank failed; end this rank's run (its receives fail) and the thread. */
export interface StopRequest {
  readonly kind: 'stop';
  readonly reason: string;
}

/** Worker → launcher. */
export type WorkerReport =
  | { readonly kind: 'progress'; readonly done: number; readonly total: number }
  | { readonly kind: 'result'; readonly result: unknown }
  | { readonly kind: 'error'; readonly name: string; readonly message: string; readonly stack: string | undefined }
  | { readonly kind: 'abort'; readonly message: string };
