// Worker thread of recordOrderPool.ts: puts one request's records in key order and file layout and sends them back.
import { parentPort } from 'node:worker_threads';
import { decodeLargeViews, encodeLargeViews } from '../../../../core/largeViews.js';
import { orderedTripleRecords } from './recordOrder.js';
import type { RecordOrderJob, RecordOrderReply } from './recordOrderPool.js';

const port = parentPort;
if (port === null) throw new Error('recordOrderWorker runs as a worker thread');
port.on('message', (posted: unknown) => {
  const job = decodeLargeViews<RecordOrderJob>(posted);
  let reply: RecordOrderReply;
  try {
    // The job's records are this thread's own (transferred): ordered without another copy.
    const words = orderedTripleRecords(job.words, job.count, job.slices);
    reply = { id: job.id, words };
    port.postMessage(encodeLargeViews(reply), [words.buffer as ArrayBuffer]);
  } catch (error) {
    reply = { id: job.id, error: (error as Error).message };
    port.postMessage(reply);
  }
});
