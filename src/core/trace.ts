// Developer timing trace (SNPTALLY_TRACE=1): device opening, shader compiles, uploads, block exchanges and
// pipeline steps, one line each on stderr with the wall-clock time (seconds, modulo 1000, so that the lines of
// different processes line up) and the rank, so a run's fixed costs and waits can be told from its kernels.

const enabled = process.env.SNPTALLY_TRACE === '1';
let label = '';

/** Names this process's lines (e.g. `rank 1`); in-process ranks share one label, the last one set. */
export function setTraceLabel(name: string): void {
  label = `${name} `;
}

/** Writes one trace line: `what` happened now. */
export function traceMark(what: string): void {
  if (!enabled) return;
  process.stderr.write(`[trace] ${(((performance.timeOrigin + performance.now()) / 1000) % 1000).toFixed(3)} ${label}${what}\n`);
}

/** Runs `work` and, when tracing, writes `what` with its duration when it ends. */
export async function traced<R>(what: string, work: () => Promise<R>): Promise<R> {
  if (!enabled) return work();
  const start = performance.now();
  try {
    return await work();
  } finally {
    traceMark(`${what}: ${(performance.now() - start).toFixed(1)} ms`);
  }
}
