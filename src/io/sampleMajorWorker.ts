// Entry of a transposition worker thread (sampleMajorChunks.ts ChunkWriterPool): for each chunk it is given, transposes its
// range of the chunk's samples into the sample-major file or rows in memory; for rows in memory, reads, decodes and
// transposes a range of SNPs of a .bed (bedSampleRows.ts), and lists its samples' missing calls or hashes the rows when
// asked.
import { createHash } from 'node:crypto';
import { closeSync, openSync } from 'node:fs';
import { UserError } from '../core/errors.js';
import { serveTasks } from '../core/taskWorkerPool.js';
import { transposeBedRange } from './bedSampleRows.js';
import { ChunkWriter, missingCallsOfRange, type ChunkTask, type ChunkTaskOutcome, type SampleMajorRows } from './sampleMajorChunks.js';
import { systemErrorText } from './systemErrorText.js';

// The rows come as the pool's late setup: a pool may start before they are known (ChunkWriterPool.start).
await serveTasks<ChunkTask, ChunkTaskOutcome>(async (_data, lateSetup) => {
  const rows = await lateSetup() as SampleMajorRows;
  const { target } = rows;
  return (task) => {
    if (task.kind === 'missing') {
      const lists = missingCallsOfRange(rows, task.part);
      return { outcome: lists, transfer: [lists.counts.buffer as ArrayBuffer, lists.snps.buffer as ArrayBuffer] };
    }
    if (task.kind === 'hash') {
      if (target.kind !== 'memory') throw new Error('only rows in memory are hashed by a transposition worker');
      return { outcome: createHash('sha256').update(target.rows).digest('hex') };
    }
    if (task.kind === 'bed') {
      for (const part of task.parts) {
        if (Atomics.load(task.stop, 0) !== 0) break;
        transposeBedRange(rows, part);
      }
      return { outcome: null };
    }
    if (target.kind === 'memory') {
      new ChunkWriter(rows, null).writePart(task.part);
      return { outcome: null };
    }
    // Opened per chunk (a few per run): a worker's descriptor would outlive its termination (threads share them).
    let output: number;
    try {
      output = openSync(target.sampleMajorPath, 'r+');
    } catch (error) {
      throw new UserError(`cannot write ${target.finalPath}: ${systemErrorText(error)}`);
    }
    try {
      new ChunkWriter(rows, output).writePart(task.part);
    } finally {
      closeSync(output);
    }
    return { outcome: null };
  };
});
