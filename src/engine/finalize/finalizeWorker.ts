// Entry of a finalize worker thread: loads the run's analysis from its setup (finalizers.ts) and runs the tasks the
// finalize pool posts, answering each with its small results (record words and histogram counts transferred, not copied).
import { serveTasks } from '../../core/taskWorkerPool.js';
import { loadFinalizers } from './finalizers.js';
import { LocalFinalizer, type FinalizeOutcome, type FinalizeSetup, type FinalizeTask } from './finalizeTasks.js';

await serveTasks<FinalizeTask, FinalizeOutcome>(async (data) => {
  const setup = data as FinalizeSetup;
  const finalizer = new LocalFinalizer(setup, await loadFinalizers(setup.finalizers));
  return (task) => {
    const outcome = finalizer.run(task);
    const histogram = outcome.histogram === null ? [] : [outcome.histogram.counts.buffer as ArrayBuffer];
    return { outcome, transfer: [outcome.recordWords.buffer as ArrayBuffer, ...histogram] };
  };
});
