// Reads a r² run's kept pairs for the LD plots, in two streaming passes over its metrics files: the first counts
// pairs per heatmap window and finds the farthest same-chromosome pair, the second fills the chosen window's
// cells and the decay bins. Memory: the window's cells, and one value per same-chromosome pair for the medians.
import { coordVectorIndex, readMetricsFileChunks } from '../../io/index.js';
import type { SnpNaming } from '../snpNaming.js';
import { LdDecayBinner, TARGET_DECAY_BINS, type LdDecayBin } from './ldDecay.js';
import { chromosomeSegments, LdRegionCounter, type LdRegion } from './ldRegion.js';
import { roundStepAtLeast } from './svgText.js';

/** Most SNPs of the heatmap: beyond some 200 a cell is smaller than a couple of pixels on a page. */
export const MAX_HEATMAP_SNPS = 200;
/** Most pairs drawn as dots behind the decay curve (every k-th pair): more only darken the plot. */
export const MAX_DECAY_DOTS = 3000;

/** The heatmap's window and its pairs' r²: `values[a · numSnp + b]` for window SNPs a < b, NaN where not kept. */
export interface LdWindowValues {
  readonly region: LdRegion;
  readonly values: Float32Array;
}

/** What the decay plot draws. */
export interface LdDecayData {
  readonly binWidthBp: number;
  readonly bins: readonly LdDecayBin[];
  /** Pairs on one chromosome, and a sample of them as [distance, r²] dots. */
  readonly numPairs: number;
  readonly dots: ReadonlyArray<readonly [number, number]>;
}

/** Both LD plots' data; a plot that cannot be drawn has the reason instead. */
export interface LdPlotData {
  readonly window: LdWindowValues | string;
  readonly decay: LdDecayData | string;
}

/** Calls `visit(lowSnp, highSnp, value)` for every kept pair with a defined value, SNPs in source order. */
function forEachPair(files: readonly string[], naming: SnpNaming, visit: (low: number, high: number, value: number) => void): void {
  for (const file of files) {
    for (const chunk of readMetricsFileChunks(file, 2)) {
      const { coords, values } = chunk;
      for (let r = 0; r < chunk.numRecords; r++) {
        const value = values[r];
        if (Number.isNaN(value)) continue;
        const a = naming.snpIndexOf(coordVectorIndex(coords[2 * r]));
        const b = naming.snpIndexOf(coordVectorIndex(coords[2 * r + 1]));
        if (a !== b) visit(Math.min(a, b), Math.max(a, b), value);
      }
    }
  }
}

/** The heatmap window and decay bins of the kept pairs of a r² run over `numSnp` SNPs. */
export function readLdPlotData(files: readonly string[], naming: SnpNaming, numSnp: number): LdPlotData {
  const snps = naming.preparedSidecar?.snps ?? null;
  const chrom = snps === null ? null : snps.chrom;
  const pos = snps === null ? null : snps.pos;
  const counter = new LdRegionCounter(chromosomeSegments(chrom, numSnp), numSnp, MAX_HEATMAP_SNPS);
  let farthest = 0;
  let numSameChrom = 0;
  forEachPair(files, naming, (low, high) => {
    counter.add(low, high);
    if (chrom !== null && pos !== null && chrom[low] === chrom[high]) {
      numSameChrom++;
      farthest = Math.max(farthest, Math.abs(pos[high] - pos[low]));
    }
  });
  const region = counter.best();
  const decayReason = pos === null ? 'the run has no sidecar with positions (a synthetic problem or a raw packed file)'
    : numSameChrom === 0 ? 'no kept pair has both SNPs on one chromosome'
      : farthest === 0 ? 'every kept pair on one chromosome is at distance 0 (positions missing?)' : null;
  const binner = decayReason === null ? new LdDecayBinner(roundStepAtLeast(farthest / TARGET_DECAY_BINS)) : null;
  const dotEvery = Math.max(1, Math.ceil(numSameChrom / MAX_DECAY_DOTS));
  const dots: Array<[number, number]> = [];
  const width = region === null ? 0 : region.end - region.start;
  const windowValues = new Float32Array(width * width).fill(NaN);
  let sameChromSeen = 0;
  if (region !== null || binner !== null) {
    forEachPair(files, naming, (low, high, value) => {
      if (region !== null && low >= region.start && high < region.end) {
        windowValues[(low - region.start) * width + (high - region.start)] = value;
      }
      if (binner !== null && chrom !== null && pos !== null && chrom[low] === chrom[high]) {
        const distance = Math.abs(pos[high] - pos[low]);
        binner.add(distance, value);
        if (sameChromSeen++ % dotEvery === 0) dots.push([distance, value]);
      }
    });
  }
  return {
    window: region === null ? `no kept pair lies within ${MAX_HEATMAP_SNPS} consecutive SNPs on one chromosome` : { region, values: windowValues },
    decay: binner === null ? decayReason ?? '' : { binWidthBp: binner.binWidthBp, bins: binner.bins(), numPairs: numSameChrom, dots },
  };
}
