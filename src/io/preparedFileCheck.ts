// A prepared file's check (preparedSidecar.ts checkPreparedFile) with its SHA-256 on a worker thread, so that a run
// starts while the hash is computed: its size at once, its hash settled later (250 MB: ~0.2 s of SHA-NI, a fifth of a
// GPU KING run of 20,000 samples). The caller awaits `checked` before anything of the run is committed.
import { Worker } from 'node:worker_threads';
import { UserError } from '../core/errors.js';
import { checkPreparedFileDigest, checkPreparedFileSize, type PreparedSidecar } from './preparedSidecar.js';

/** What the hashing worker posts: the file's SHA-256, or why it could not read it. */
export type FileHashReply = { readonly digest: string } | { readonly error: string; readonly isUserError: boolean };

/** A check under way. */
export interface PreparedFileCheck {
  /** Resolves when the file's hash matches its sidecar; rejects with checkPreparedFile's UserError otherwise. */
  readonly checked: Promise<void>;
  /** Ends the worker (a run that failed before it needed the result); `checked` then never settles. */
  stop(): Promise<void>;
}

const WORKER_URL = new URL('./fileHashWorker.js', import.meta.url);

/**
 * Checks `packedPath`'s size against its sidecar now and starts hashing it on a worker thread.
 * @throws UserError for a size that differs (as checkPreparedFile).
 */
export function startPreparedFileCheck(packedPath: string, sidecar: PreparedSidecar): PreparedFileCheck {
  checkPreparedFileSize(packedPath, sidecar);
  const worker = new Worker(WORKER_URL, { workerData: { path: packedPath } });
  const checked = new Promise<void>((resolve, reject) => {
    worker.once('message', (reply: FileHashReply) => {
      try {
        if ('error' in reply) throw reply.isUserError ? new UserError(reply.error) : new Error(reply.error);
        checkPreparedFileDigest(packedPath, sidecar, reply.digest);
        resolve();
      } catch (error) {
        reject(error);
      }
    });
    worker.once('error', reject);
  });
  // A run that fails first never awaits the check: its rejection must not end the process as unhandled.
  checked.catch(() => undefined);
  return { checked, stop: async () => { await worker.terminate(); } };
}
