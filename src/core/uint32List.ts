// A list of 32-bit unsigned integers that grows by doubling: millions of entries (missing calls) without a JS number
// array's garbage-collection cost.

export class Uint32List {
  private values: Uint32Array;
  private count = 0;

  constructor(initialCapacity = 1 << 12) {
    this.values = new Uint32Array(Math.max(1, initialCapacity));
  }

  /** Entries so far. */
  get length(): number {
    return this.count;
  }

  push(value: number): void {
    if (this.count === this.values.length) {
      const grown = new Uint32Array(2 * this.values.length);
      grown.set(this.values);
      this.values = grown;
    }
    this.values[this.count++] = value;
  }

  /** A copy of the entries, exactly as long as the list. */
  toArray(): Uint32Array {
    return this.values.slice(0, this.count);
  }
}
