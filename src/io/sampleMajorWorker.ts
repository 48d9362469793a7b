// Entry of a transposition worker thread (sampleMajorChunks.ts ChunkWriterPool): for each chunk it is given, transposes its
// range of the chunk's samples and writes them into the sample-major file.
import { closeSync, openSync } from 'node:fs';
import { UserError } from '../core/errors.js';
import { serveTasks } from '../core/taskWorkerPool.js';
import { ChunkWriter, type ChunkTask, type SampleMajorFile } from './sampleMajorChunks.js';
import { systemErrorText } from './systemErrorText.js';

await serveTasks<ChunkTask, null>(async (data) => {
  const file = data as SampleMajorFile;
  return (task) => {
    // Opened per chunk (a few per run): a worker's descriptor would outlive its termination (threads share them).
    let output: number;
    try {
      output = openSync(file.sampleMajorPath, 'r+');
    } catch (error) {
      throw new UserError(`cannot write ${file.finalPath}: ${systemErrorText(error)}`);
    }
    try {
      new ChunkWriter(file, output).writePart(task);
    } finally {
      closeSync(output);
    }
    return { outcome: null };
  };
});
