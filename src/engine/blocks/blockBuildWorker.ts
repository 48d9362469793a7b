// Entry of a block worker thread: claims chunks of a block's rows in order, fills them in shared memory (generated
// or read from the input file), reports each finished chunk to the main thread, and exits when no chunk is left.
// Code rows are packed into planes by the native addon where it loads (its module costs ~20 ms to load; packing in JS
// cost each worker ~0.25 s of a 4,000 × 50,000 block).
import { parentPort, workerData } from 'node:worker_threads';
import { decodeLargeViews } from '../../core/largeViews.js';
import { loadNativeCodePlanes } from '../../mgemm/index.js';
import { blockRowFiller, waitUntilRowsFinal, type BlockChunksTask } from './blockRows.js';

const task = decodeLargeViews<BlockChunksTask>(workerData);
const fillRows = blockRowFiller(task.fill, task.tables, { nativePacking: loadNativeCodePlanes() });
const numRows = task.fill.shape.numVectorReal;
// Started while a memory source is still written: ready (modules loaded, tables built) when its rows become final.
if (task.rowsFinal !== null) waitUntilRowsFinal(task.rowsFinal);
for (let chunk = Atomics.add(task.nextChunk, 0, 1); chunk < task.numChunks; chunk = Atomics.add(task.nextChunk, 0, 1)) {
  const first = chunk * task.chunkRows;
  fillRows(first, Math.min(first + task.chunkRows, numRows));
  parentPort?.postMessage(chunk);
}
