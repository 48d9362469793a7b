// Runs a sequence of (start → finish) jobs one ahead: job k+1 is started before job k is finished, so
// kernel threads compute the next tallies while the current ones are reduced and finalized.

/**
 * For each item in order: `start(item)` (e.g. a GEMM on worker threads), then `finish(item, result)`
 * (reduce over field slabs, finalize). At most two started jobs are in flight; `finish` calls run in order.
 */
export async function runOneAhead<T, R>(
  items: AsyncIterator<T>,
  start: (item: T) => Promise<R>,
  finish: (item: T, result: R) => Promise<void>,
): Promise<void> {
  let current = await items.next();
  let currentResult = current.done ? null : start(current.value);
  while (!current.done && currentResult !== null) {
    const next = await items.next();
    const nextResult = next.done ? null : start(next.value);
    // The next job may fail while this one finishes; its error surfaces when it is awaited.
    nextResult?.catch(() => undefined);
    await finish(current.value, await currentResult);
    current = next;
    currentResult = nextResult;
  }
}
