// Progress of work that finishes out of order but is used in order: a block's chunks built by several workers,
// a message's pieces arriving over MPI. Readers wait for a leading part; writers report each part done.

/** Which of `numParts` parts are done, and how many leading parts `[0, leading)` are all done. */
export class LeadingRun {
  private readonly isDone: Uint8Array;
  private leadingParts = 0;

  constructor(private readonly numParts: number) {
    this.isDone = new Uint8Array(numParts);
  }

  /** Parts `[0, leading)` are all done. */
  get leading(): number {
    return this.leadingParts;
  }

  /** Marks part `index` done; returns the new `leading`. */
  markDone(index: number): number {
    if (!(index >= 0 && index < this.numParts)) throw new RangeError(`part ${index} of ${this.numParts}`);
    this.isDone[index] = 1;
    while (this.leadingParts < this.numParts && this.isDone[this.leadingParts] === 1) this.leadingParts++;
    return this.leadingParts;
  }
}

/** A value that only grows (rows built, bytes arrived), with waits for it to reach a mark, or a failure. */
export class Watermark {
  private current = 0;
  private failure: { readonly reason: unknown } | null = null;
  private waits: Array<{ readonly mark: number; resolve(): void; reject(reason: unknown): void }> = [];

  get value(): number {
    return this.current;
  }

  /** Raises the value to `to` (a lower value changes nothing) and resolves the waits it reaches. */
  advance(to: number): void {
    if (to <= this.current) return;
    this.current = to;
    const waiting = [];
    for (const wait of this.waits) {
      if (wait.mark <= this.current) wait.resolve();
      else waiting.push(wait);
    }
    this.waits = waiting;
  }

  /** Rejects every wait not yet reached, and every later one, with `reason`. */
  fail(reason: unknown): void {
    this.failure ??= { reason };
    for (const wait of this.waits) wait.reject(this.failure.reason);
    this.waits = [];
  }

  /** Resolves once the value is at least `mark` (at once if it is); rejects if the work fails first. */
  whenReached(mark: number): Promise<void> {
    if (mark <= this.current) return Promise.resolve();
    if (this.failure !== null) return Promise.reject(this.failure.reason);
    return new Promise((resolve, reject) => this.waits.push({ mark, resolve, reject }));
  }
}
