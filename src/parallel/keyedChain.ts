// Asynchronous work run in call order per key: the communicators' sends to one (dest, tag) must leave in the
// order they were called even when one of them waits (for `ready`) before it can go.

export class KeyedChain {
  /** Per key, settles when the last work of the key has settled. */
  private readonly tails = new Map<string, Promise<void>>();

  /** Whether work of `key` is still running or waiting (new work of the key must then go through `run`). */
  isBusy(key: string): boolean {
    return this.tails.has(key);
  }

  /**
   * Starts `work` once every earlier work of `key` has settled (resolved or rejected: a failure of one does not
   * hold back the next); resolves or rejects as `work` does.
   */
  run(key: string, work: () => Promise<void>): Promise<void> {
    const before = this.tails.get(key);
    const running = (async () => {
      await before;
      await work();
    })();
    const settled = running.catch(() => undefined);
    this.tails.set(key, settled);
    void settled.then(() => {
      if (this.tails.get(key) === settled) this.tails.delete(key);
    });
    return running;
  }

  /** Settles once all work started so far has settled. */
  async idle(): Promise<void> {
    await Promise.all(this.tails.values());
  }
}
