// Developer timing trace of the WebGPU path (SNPTALLY_GPU_TRACE=1): device opening, shader compiles and
// large uploads, one line each on stderr, so a run's fixed costs can be told from its kernels.

const enabled = process.env.SNPTALLY_GPU_TRACE === '1';
const origin = performance.now();

/** Runs `work` and, when tracing, writes `what` with its duration and the time since the process began tracing. */
export async function traced<R>(what: string, work: () => Promise<R>): Promise<R> {
  if (!enabled) return work();
  const start = performance.now();
  try {
    return await work();
  } finally {
    const end = performance.now();
    process.stderr.write(`[gpu-trace] +${((end - origin) / 1000).toFixed(3)} s ${what}: ${(end - start).toFixed(1)} ms\n`);
  }
}
