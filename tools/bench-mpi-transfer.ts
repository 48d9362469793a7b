// Point-to-point transfer rate of a vector block through the MPI communicator (header + pieces, matched from the
// event loop), between two ranks of one host, as the 2-way block exchange moves it:
//
//   mpirun -np 2 node dist/tools/bench-mpi-transfer.js [--mib 724] [--reps 3] [--busy-ms 0]
//
// Rank 1 sends `--mib` MiB from shared memory (immutable, as the own block goes); rank 0 receives into shared memory
// and reports seconds and GB/s per repetition. With `--busy-ms N`, rank 0's main thread is also kept busy in slices
// of N ms (as a rank submitting GPU work is), to see how matching pieces from the event loop suffers.
import { detectMpiLaunch, startMpi } from '../src/parallel/index.js';
import {
  createToolProgram, parseNonNegativeNumber, parsePositiveInteger, parseToolOptions, valueOption,
} from './lib/cliOptions.js';

/** The command line, named as its long options. */
interface BenchMpiTransferOptions {
  readonly mib: number;
  readonly reps: number;
  readonly busyMs: number;
}

const options = parseToolOptions<BenchMpiTransferOptions>(createToolProgram('bench-mpi-transfer',
  'transfer rate of one vector block from rank 1 to rank 0 through the MPI communicator (run under mpirun -np 2)')
  .addOption(valueOption('--mib <n>', 'MiB sent per repetition', parsePositiveInteger, '724'))
  .addOption(valueOption('--reps <n>', 'repetitions', parsePositiveInteger, '3'))
  .addOption(valueOption('--busy-ms <ms>', 'keep rank 0\'s main thread busy in slices of this many ms (0: idle)', parseNonNegativeNumber, '0')));

const launch = detectMpiLaunch();
if (launch === null) throw new Error('run this under mpirun -np 2');
const runtime = await startMpi(launch);
const comm = runtime.world;
if (comm.size !== 2) throw new Error('bench-mpi-transfer needs exactly 2 ranks');
const bytes = options.mib << 20;
const busyMs = options.busyMs;
const block = new Uint32Array(new SharedArrayBuffer(bytes));
block.fill(comm.rank + 1);
for (let rep = 0; rep < options.reps; rep++) {
  await comm.barrier();
  const start = performance.now();
  if (comm.rank === 1) {
    await comm.send(0, rep, block, { immutable: true });
  } else {
    let receiving = true;
    const busy = async (): Promise<void> => {
      while (receiving && busyMs > 0) {
        const until = performance.now() + busyMs;
        while (performance.now() < until) { /* a slice of main-thread work */ }
        await new Promise((resolve) => { setImmediate(resolve); });
      }
    };
    const busyDone = busy();
    const got = await comm.recv(1, rep, new Uint32Array(new SharedArrayBuffer(0)));
    receiving = false;
    await busyDone;
    const seconds = (performance.now() - start) / 1000;
    if (got.length !== block.length || got[0] !== 2 || got[got.length - 1] !== 2) throw new Error('wrong block');
    process.stdout.write(`${(bytes / 2 ** 20).toFixed(0)} MiB in ${seconds.toFixed(3)} s: ${(bytes / seconds / 1e9).toFixed(2)} GB/s (busy slices ${busyMs} ms)\n`);
  }
  await comm.barrier();
}
await runtime.finalize();
