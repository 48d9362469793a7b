// Buffer mappings (mapAsync) that nobody may await, kept until they settle: the runner's destroy() waits for them,
// since a thread that ends (an in-process rank unwinding after another failed) with a mapping of Dawn's unsettled
// aborts the process. Used by the staging ring (stagingRing.ts) and the runner's read-backs.

/** The mappings nobody awaits, until they settle. */
export class MappingsInFlight {
  private readonly mappings = new Set<Promise<void>>();

  /** Keeps `mapping` until it settles and returns it; its failure does not count as unhandled. */
  track(mapping: Promise<void>): Promise<void> {
    this.mappings.add(mapping);
    const forget = (): void => {
      this.mappings.delete(mapping);
    };
    mapping.then(forget, forget);
    return mapping;
  }

  /** Settles when every mapping tracked so far has settled. */
  async allSettled(): Promise<void> {
    await Promise.allSettled([...this.mappings]);
  }
}
