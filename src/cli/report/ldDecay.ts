// LD decay: kept pairs on one chromosome binned by their distance in base pairs, with each bin's mean and median r².

/** One distance bin [startBp, endBp) and the r² of its pairs. */
export interface LdDecayBin {
  readonly startBp: number;
  readonly endBp: number;
  readonly numPairs: number;
  readonly mean: number;
  readonly median: number;
}

/** Bins the report aims at: enough to show the curve's shape, few enough to read each one. */
export const TARGET_DECAY_BINS = 40;

/** Collects pairs into bins of `binWidthBp` from distance 0 (bin b = floor(distance / width)). */
export class LdDecayBinner {
  private readonly values: number[][] = [];

  constructor(readonly binWidthBp: number) {}

  add(distanceBp: number, value: number): void {
    const bin = Math.floor(distanceBp / this.binWidthBp);
    while (this.values.length <= bin) this.values.push([]);
    this.values[bin].push(value);
  }

  /** The bins up to the farthest pair; empty bins in between are left out (nothing to average). */
  bins(): LdDecayBin[] {
    const result: LdDecayBin[] = [];
    this.values.forEach((values, bin) => {
      if (values.length === 0) return;
      const sorted = Float64Array.from(values).sort();
      const middle = sorted.length >> 1;
      const median = sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
      let sum = 0;
      for (const value of values) sum += value;
      result.push({
        startBp: bin * this.binWidthBp, endBp: (bin + 1) * this.binWidthBp, numPairs: values.length, mean: sum / values.length, median,
      });
    });
    return result;
  }
}
