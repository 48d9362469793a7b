// Entry of a kernel worker thread: runs the tasks the pool posts (kernelTasks.ts).
import { serveTasks } from '../../../core/taskWorkerPool.js';
import { startKernelTasks } from './kernelTasks.js';
import type { GemmWorkerData, KernelTask } from './workerProtocol.js';

await serveTasks<KernelTask, unknown>((data, lateSetup) => startKernelTasks(data as GemmWorkerData, lateSetup));
