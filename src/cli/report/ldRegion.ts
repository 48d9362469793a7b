// Chooses the LD heatmap's region: the window of at most `maxSnps` consecutive SNPs on one chromosome that holds the
// most kept pairs (the first such window on ties), counted in one pass over the records.

/** A run of consecutive SNPs (source order) on one chromosome: [start, end). */
export interface SnpSegment {
  readonly start: number;
  readonly end: number;
}

/** A chosen window [start, end) and the kept pairs inside it. */
export interface LdRegion extends SnpSegment {
  readonly numPairs: number;
}

/** The maximal runs of consecutive SNPs that share a chromosome; one run of all SNPs when chromosomes are unknown. */
export function chromosomeSegments(chrom: readonly string[] | null, numSnp: number): SnpSegment[] {
  if (chrom === null) return numSnp === 0 ? [] : [{ start: 0, end: numSnp }];
  const segments: SnpSegment[] = [];
  let start = 0;
  for (let snpIdx = 1; snpIdx <= numSnp; snpIdx++) {
    if (snpIdx === numSnp || chrom[snpIdx] !== chrom[start]) {
      segments.push({ start, end: snpIdx });
      start = snpIdx;
    }
  }
  return segments;
}

/**
 * Counts, for every window start s, the pairs i < j with s ≤ i and j < s + maxSnps on one segment: a pair adds one
 * to the starts [max(segment start, j − maxSnps + 1), i], kept as a difference array (O(1) per pair).
 */
export class LdRegionCounter {
  private readonly startDeltas: Float64Array;
  private readonly segmentOfSnp: Int32Array;

  constructor(private readonly segments: readonly SnpSegment[], numSnp: number, private readonly maxSnps: number) {
    this.startDeltas = new Float64Array(numSnp + 1);
    this.segmentOfSnp = new Int32Array(numSnp);
    segments.forEach((segment, s) => this.segmentOfSnp.fill(s, segment.start, segment.end));
  }

  /** A kept pair of SNPs i < j (source order). */
  add(lowSnp: number, highSnp: number): void {
    const segment = this.segmentOfSnp[lowSnp];
    if (segment !== this.segmentOfSnp[highSnp] || highSnp - lowSnp >= this.maxSnps) return;
    this.startDeltas[Math.max(this.segments[segment].start, highSnp - this.maxSnps + 1)] += 1;
    this.startDeltas[lowSnp + 1] -= 1;
  }

  /**
   * The window with the most pairs; windows start where a whole `maxSnps` fit in their segment (a shorter segment is
   * one window). Null when no window holds a pair.
   */
  best(): LdRegion | null {
    let best: LdRegion | null = null;
    let running = 0;
    let segmentIdx = 0;
    for (let start = 0; start < this.segmentOfSnp.length; start++) {
      running += this.startDeltas[start];
      while (this.segments[segmentIdx].end <= start) segmentIdx++;
      const segment = this.segments[segmentIdx];
      if (start > Math.max(segment.start, segment.end - this.maxSnps)) continue;
      if (running > 0 && (best === null || running > best.numPairs)) {
        best = { start, end: Math.min(start + this.maxSnps, segment.end), numPairs: running };
      }
    }
    return best;
  }
}
