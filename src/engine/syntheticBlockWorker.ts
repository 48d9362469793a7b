// Entry of a block worker thread: fills one row range of a synthetic block in shared memory, then exits.
import { workerData } from 'node:worker_threads';
import { fillSyntheticRows, type SyntheticRowsTask } from './syntheticRows.js';

const task = workerData as SyntheticRowsTask;
fillSyntheticRows(task.fill, task.rowFirst, task.rowEnd);
