// A prepared file's check (preparedSidecar.ts checkPreparedFile) with its SHA-256 on a worker thread, so that a run
// starts while the hash is computed: its size at once, its hash settled later (250 MB: ~0.2 s of SHA-NI, a fifth of a
// GPU KING run of 20,000 samples). The caller awaits `checked` before anything of the run is committed.
import { Worker } from 'node:worker_threads';
import { UserError } from '../core/errors.js';
import { encodeLargeViews } from '../core/largeViews.js';
import { checkPreparedFileDigest, checkPreparedFileSize, type PreparedSidecar } from './preparedSidecar.js';

/** What the hashing worker hashes: a file, or bytes in shared memory. */
export type HashedData = { readonly path: string } | { readonly bytes: Uint8Array };

/** What the hashing worker posts: the SHA-256, or why it could not read the file. */
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
  const hashing = startHashWorker({ path: packedPath });
  const checked = hashing.digest.then((digest) => checkPreparedFileDigest(packedPath, sidecar, digest));
  // A run that fails first never awaits the check: its rejection must not end the process as unhandled.
  checked.catch(() => undefined);
  return { checked, stop: hashing.stop };
}

/**
 * The SHA-256 of `bytes` (over a SharedArrayBuffer: the worker reads them where they are) on a worker thread, so that
 * this thread goes on meanwhile; `stop` ends the worker (the digest then never settles).
 */
export function startBytesHash(bytes: Uint8Array): { readonly digest: Promise<string>; stop(): Promise<void> } {
  return startHashWorker({ bytes });
}

function startHashWorker(data: HashedData): { readonly digest: Promise<string>; stop(): Promise<void> } {
  const worker = new Worker(WORKER_URL, { workerData: encodeLargeViews(data) });
  const digest = new Promise<string>((resolve, reject) => {
    worker.once('message', (reply: FileHashReply) => {
      if ('error' in reply) reject(reply.isUserError ? new UserError(reply.error) : new Error(reply.error));
      else resolve(reply.digest);
    });
    worker.once('error', reject);
  });
  digest.catch(() => undefined);
  return { digest, stop: async () => { await worker.terminate(); } };
}
