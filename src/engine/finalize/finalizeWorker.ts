// Entry of a finalize worker thread: loads the run's analysis from its setup (finalizers.ts) and runs the tasks the
// finalize pool posts, answering each with its small results.
import { serveTasks } from '../../core/taskWorkerPool.js';
import { startFinalizeTasks, type FinalizeOutcome, type FinalizeSetup, type FinalizeTask } from './finalizeTasks.js';

await serveTasks<FinalizeTask, FinalizeOutcome>((data) => startFinalizeTasks(data as FinalizeSetup));
