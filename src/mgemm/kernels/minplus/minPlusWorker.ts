// Entry of a min-plus kernel worker thread: runs the row-range tasks the pool posts (minPlusTasks.ts).
import { serveTasks } from '../../../core/taskWorkerPool.js';
import { createMinPlusTaskRunner, type MinPlusTask, type MinPlusWorkerData } from './minPlusTasks.js';

await serveTasks<MinPlusTask, null>(async (data) => {
  const runTask = await createMinPlusTaskRunner((data as MinPlusWorkerData).module);
  return (task) => {
    runTask(task);
    return { outcome: null };
  };
});
