// Runs a sequence of (start → finish) jobs one ahead: job k+1 is started before job k is finished, so
// kernel threads compute the next tallies while the current ones are reduced and finalized.

/** How the jobs overlap. */
export interface LookaheadOptions<T> {
  /**
   * Finish the first job before starting the second (later jobs one ahead): for jobs whose start reads what earlier
   * finishes learnt, e.g. a top-N run's records-only bar, which the first finish sets. Absent: false.
   */
  readonly firstAlone?: boolean;
  /** The same for any job this says true of (a top-N run's ramp of small panels, each tightening the bar). */
  readonly alone?: (item: T) => boolean;
}

/**
 * For each item in order: `start(item)` (e.g. a GEMM on worker threads), then `finish(item, result)`
 * (reduce over field slabs, finalize). At most two started jobs are in flight; `finish` calls run in order.
 */
export async function runOneAhead<T, R>(
  items: AsyncIterator<T>,
  start: (item: T) => Promise<R>,
  finish: (item: T, result: R) => Promise<void>,
  options: LookaheadOptions<T> = {},
): Promise<void> {
  let current = await items.next();
  let currentResult = current.done ? null : start(current.value);
  let isFirst = true;
  while (!current.done && currentResult !== null) {
    const alone = (isFirst && options.firstAlone === true) || (options.alone?.(current.value) ?? false);
    isFirst = false;
    if (alone) {
      await finish(current.value, await currentResult);
      current = await items.next();
      currentResult = current.done ? null : start(current.value);
      continue;
    }
    const next = await items.next();
    const nextResult = next.done ? null : start(next.value);
    // The next job may fail while this one finishes; its error surfaces when it is awaited.
    nextResult?.catch(() => undefined);
    await finish(current.value, await currentResult);
    current = next;
    currentResult = nextResult;
  }
}
