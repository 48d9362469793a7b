// The generic worker script: builds the rank's communicator, runs the entry module's export, reports back.
import { parentPort, workerData } from 'node:worker_threads';
import { InProcessCommunicator } from './inProcessCommunicator.js';
import { MeshTransport } from './meshTransport.js';
import type { RankEntry, RankWorkerData, StopRequest, WorkerReport } from './messages.js';

const launcherPort = parentPort;
if (launcherPort === null) throw new Error('rankWorker.js must run as a worker thread');
const report = (message: WorkerReport): void => launcherPort.postMessage(message);

const data = workerData as RankWorkerData;
const transport = new MeshTransport(data.rank, data.ports);
const worldRanks = Array.from({ length: data.numRanks }, (_, rank) => rank);
const comm = new InProcessCommunicator(
  { transport, reportAbort: (message) => report({ kind: 'abort', message }) },
  'world',
  worldRanks,
  data.rank,
);

// Another rank failed: this rank's receives fail, so its run unwinds through its own error path (closing its GPU
// device) instead of the thread being terminated with the device open (launchInProcessRanks).
launcherPort.on('message', (request: StopRequest) => transport.stop(new Error(`stopped: ${request.reason}`)));

// A rejection nobody handles (or a throw outside the awaited chain) fails the rank as its own throw would, and its
// receives with it, so that the run unwinds through its error path. Left to Node, it ends the thread at once, and
// Dawn promises still pending there (a pipeline compile, a buffer mapping) abort the whole process.
const failStray = (error: unknown): void => {
  reportError(error);
  transport.stop(error instanceof Error ? error : new Error(String(error)));
};
process.on('unhandledRejection', failStray);
process.on('uncaughtException', failStray);

try {
  const entry = await loadEntry(data.entryModuleUrl, data.entryExportName);
  const result = await entry(comm, data.payload, (done, total) => report({ kind: 'progress', done, total }));
  report({ kind: 'result', result });
} catch (error) {
  reportError(error);
}
// The run's last collective is behind us, or it failed: let the thread end by itself (see launchInProcessRanks).
transport.close();
launcherPort.close();

function reportError(error: unknown): void {
  const described = error instanceof Error ? error : new Error(String(error));
  report({ kind: 'error', name: described.name, message: described.message, stack: described.stack });
}

async function loadEntry(moduleUrl: string, exportName: string): Promise<RankEntry> {
  const module = (await import(moduleUrl)) as Record<string, unknown>;
  const entry = module[exportName];
  if (typeof entry !== 'function') throw new Error(`${moduleUrl} has no function export '${exportName}'`);
  return entry as RankEntry;
}
