// Entry of a min-plus kernel worker thread: runs the row-range tasks the pool posts (minPlusTasks.ts).
import { serveTasks } from '../../../core/taskWorkerPool.js';
import { createMinPlusTaskRunner, type MinPlusTask } from './minPlusTasks.js';

await serveTasks<MinPlusTask, null>(async () => {
  const runTask = createMinPlusTaskRunner();
  return (task) => {
    runTask(task);
    return { outcome: null };
  };
});
