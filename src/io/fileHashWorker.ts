// Entry of the worker thread of preparedFileCheck.ts: the SHA-256 of one file, or of bytes in shared memory, posted once.
import { createHash } from 'node:crypto';
import { parentPort, workerData } from 'node:worker_threads';
import { UserError } from '../core/errors.js';
import { decodeLargeViews } from '../core/largeViews.js';
import type { FileHashReply, HashedData } from './preparedFileCheck.js';
import { sha256OfFile } from './preparedSidecar.js';

const data = decodeLargeViews<HashedData>(workerData);
let reply: FileHashReply;
try {
  reply = { digest: 'path' in data ? sha256OfFile(data.path) : createHash('sha256').update(data.bytes).digest('hex') };
} catch (error) {
  reply = { error: error instanceof Error ? error.message : String(error), isUserError: error instanceof UserError };
}
parentPort?.postMessage(reply);
