// Entry of the worker thread of preparedFileCheck.ts: the SHA-256 of one file, posted once.
import { parentPort, workerData } from 'node:worker_threads';
import { UserError } from '../core/errors.js';
import type { FileHashReply } from './preparedFileCheck.js';
import { sha256OfFile } from './preparedSidecar.js';

const { path } = workerData as { readonly path: string };
let reply: FileHashReply;
try {
  reply = { digest: sha256OfFile(path) };
} catch (error) {
  reply = { error: error instanceof Error ? error.message : String(error), isUserError: error instanceof UserError };
}
parentPort?.postMessage(reply);
