// Milestones of the `run` commands this process runs (a front end's translated commands share its process,
// translatedCommand.ts): a front end that reads the input beside its run waits until the run has opened its own, so
// that the run's start (its .bim and .fam, its transpose workers) does not queue behind the front end's reads.

const inputOpenedWaiters: (() => void)[] = [];

/** Resolves when a run of this process next opens its input (runCommand.ts), or when `orElse` settles first. */
export function nextRunInputOpened(orElse: Promise<unknown>): Promise<void> {
  return new Promise((resolve) => {
    inputOpenedWaiters.push(resolve);
    orElse.then(() => resolve(), () => resolve());
  });
}

/** A run of this process opened its input: wakes whoever waits for it. */
export function markRunInputOpened(): void {
  for (const wake of inputOpenedWaiters.splice(0)) wake();
}
