// PLINK 1.9's missing-call rescaling of --distance (plink_calc.c calc_distance): a pair's allele-count distance over
// the SNPs both called, scaled up by total / (total − missing_i − missing_j + missing_both). With `flat-missing` each
// SNP weighs 1 (total = the SNP count); by default SNP s weighs w_s, its expected contribution under Hardy–Weinberg,
//   w_s = p(1 − p)(p² − p + 1)   (p itself when p is 0 or 1, as PLINK keeps it)
// with p the frequency of the major allele among the founders (PLINK's allele 2 once it has made allele 1 the minor
// one: 1 − p of .bed code 11's allele when that is below 0.5; 0.5 without a founder call),
// normalized to integers summing just under 2^32: round(w_s · (2^32 − numSnp) / Σw). The missing tallies are sparse
// (most calls are present), so they are counted here, SNP by SNP over the missing calls, not on the GEMM; the
// integers are exact and the doubles are PLINK's, in its order of operations.
import { closeSync, openSync, readSync } from 'node:fs';

/** Pairs of the triangle updated together (256 Ki uint32, 1 MiB: about an L2 cache). */
const PAIR_BLOCK = 1 << 18;

/** A sample-major packed file (vectors = samples, fields = SNPs, SPEC §1 codes). */
export interface SampleMajorFile {
  readonly path: string;
  readonly numSample: number;
  readonly numSnp: number;
}

/** The missing tallies of the rescaling: per sample, per pair (lower triangle i > j at i(i − 1)/2 + j), and the total. */
export interface MissingTallies {
  readonly total: number;
  readonly perSample: Float64Array;
  readonly perPair: Uint32Array;
}

/** Calls `visit(firstSample, rows)` for pieces of whole rows of packed bytes (about 32 MiB each), in file order. */
function forEachPiece(file: SampleMajorFile, visit: (firstSample: number, rows: Uint8Array) => void): void {
  const bytesPerRow = Math.ceil(file.numSnp / 4);
  const rowsPerPiece = Math.max(1, Math.floor((32 << 20) / Math.max(1, bytesPerRow)));
  const piece = new Uint8Array(rowsPerPiece * bytesPerRow);
  const fd = openSync(file.path, 'r');
  try {
    for (let first = 0; first < file.numSample; first += rowsPerPiece) {
      const numBytes = Math.min(rowsPerPiece, file.numSample - first) * bytesPerRow;
      let done = 0;
      while (done < numBytes) {
        const got = readSync(fd, piece, done, numBytes - done, first * bytesPerRow + done);
        if (got === 0) throw new Error(`${file.path} ended early`);
        done += got;
      }
      visit(first, piece.subarray(0, numBytes));
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * Founder genotype counts are added 4 SNPs at a time: a byte's codes become one uint32 of four 8-bit lanes per kind
 * (code 00, 01, 10), added to the byte position's lane accumulators, which are emptied into per-SNP counts every 255 rows.
 */
const LANES_OF_CODE = [0, 1, 2].map((code) => Uint32Array.from({ length: 256 }, (_, b) => {
  let lanes = 0;
  for (let f = 0; f < 4; f++) if (((b >> (2 * f)) & 3) === code) lanes |= 1 << (8 * f);
  return lanes;
}));
const MAX_LANE_ROWS = 255;

/** Per-SNP genotype counts of the founders: code 00 (two copies of allele 2), 01 (het), 10 (missing), and the founders. */
export interface FounderCounts {
  readonly byCode: readonly [Uint32Array, Uint32Array, Uint32Array];
  numFounders: number;
}

/** Adds founder rows to lane accumulators and empties them into the counts before a lane can overflow. */
class FounderCounter {
  readonly counts: FounderCounts;
  private readonly lanes: Uint32Array[];
  private rowsInLanes = 0;

  constructor(private readonly numSnp: number) {
    const bytesPerRow = Math.ceil(numSnp / 4);
    this.counts = { byCode: [new Uint32Array(numSnp), new Uint32Array(numSnp), new Uint32Array(numSnp)], numFounders: 0 };
    this.lanes = [0, 1, 2].map(() => new Uint32Array(bytesPerRow));
  }

  add(rows: Uint8Array, rowStart: number): void {
    for (let code = 0; code < 3; code++) {
      const lanes = this.lanes[code];
      const table = LANES_OF_CODE[code];
      for (let k = 0; k < lanes.length; k++) lanes[k] += table[rows[rowStart + k]];
    }
    this.counts.numFounders++;
    if (++this.rowsInLanes === MAX_LANE_ROWS) this.flush();
  }

  flush(): void {
    for (let code = 0; code < 3; code++) {
      const lanes = this.lanes[code];
      const counts = this.counts.byCode[code];
      for (let s = 0; s < this.numSnp; s++) counts[s] += (lanes[s >> 2] >>> (8 * (s & 3))) & 0xff;
      lanes.fill(0);
    }
    this.rowsInLanes = 0;
  }
}

/** The missing calls of a file, grouped by SNP: samples `samplesBySnp[firstOfSnp[s] …]` (ascending) miss SNP s. */
export interface MissingCalls {
  readonly firstOfSnp: Uint32Array;
  readonly samplesBySnp: Uint32Array;
}

/** One pass over the file: its missing calls by SNP, and the founders' genotype counts (founder null: none). */
function readMissingCalls(file: SampleMajorFile, founder: Uint8Array | null): { missing: MissingCalls; founderCounts: FounderCounts | null } {
  const bytesPerRow = Math.ceil(file.numSnp / 4);
  const founderCounter = founder === null ? null : new FounderCounter(file.numSnp);
  let snpOfMissing = new Uint32Array(1 << 16);
  let sampleOfMissing = new Uint32Array(1 << 16);
  let numMissing = 0;
  forEachPiece(file, (firstSample, rows) => {
    const numRows = rows.length / bytesPerRow;
    if (founderCounter !== null && founder !== null) {
      for (let r = 0; r < numRows; r++) if (founder[firstSample + r] === 1) founderCounter.add(rows, r * bytesPerRow);
    }
    for (let r = 0; r < numRows; r++) {
      const row = r * bytesPerRow;
      for (let k = 0; k < bytesPerRow; k++) {
        const b = rows[row + k];
        let missingBits = b & 0xaa & ~((b & 0x55) << 1);
        while (missingBits !== 0) {
          if (numMissing === snpOfMissing.length) {
            const grownSnps = new Uint32Array(2 * numMissing);
            grownSnps.set(snpOfMissing);
            snpOfMissing = grownSnps;
            const grownSamples = new Uint32Array(2 * numMissing);
            grownSamples.set(sampleOfMissing);
            sampleOfMissing = grownSamples;
          }
          const bit = 31 - Math.clz32(missingBits & -missingBits);
          missingBits &= missingBits - 1;
          snpOfMissing[numMissing] = 4 * k + (bit >> 1);
          sampleOfMissing[numMissing++] = firstSample + r;
        }
      }
    }
  });
  // Counting sort by SNP; samples stay ascending within a SNP.
  const firstOfSnp = new Uint32Array(file.numSnp + 1);
  for (let m = 0; m < numMissing; m++) firstOfSnp[snpOfMissing[m] + 1]++;
  for (let s = 0; s < file.numSnp; s++) firstOfSnp[s + 1] += firstOfSnp[s];
  const next = firstOfSnp.slice(0, file.numSnp);
  const samplesBySnp = new Uint32Array(numMissing);
  for (let m = 0; m < numMissing; m++) samplesBySnp[next[snpOfMissing[m]]++] = sampleOfMissing[m];
  founderCounter?.flush();
  return { missing: { firstOfSnp, samplesBySnp }, founderCounts: founderCounter?.counts ?? null };
}

/** PLINK 1.9's integer missing-call weight of each SNP from the founders' genotype counts, and the weights' sum (< 2^32). */
function plinkMissingWeights(numSnp: number, founderCounts: FounderCounts): { weights: Uint32Array; sum: number } {
  const weights = new Uint32Array(numSnp);
  const raw = new Float64Array(numSnp);
  const [hom2, het, missing] = founderCounts.byCode;
  let rawSum = 0;
  for (let s = 0; s < numSnp; s++) {
    const called = founderCounts.numFounders - missing[s];
    const frequency = called === 0 ? 0.5 : (2 * hom2[s] + het[s]) / (2 * called);
    // PLINK 1.9 makes allele 1 the minor allele on loading (without --keep-allele-order): p becomes 1 − p below 0.5.
    const p = frequency < 0.5 ? 1.0 - frequency : frequency;
    const w = p !== 0 && p !== 1 ? p * (1.0 - p) * (p * p - p + 1) : p;
    raw[s] = w;
    rawSum += w;
  }
  const scale = (4294967296.0 - numSnp) / rawSum;
  let sum = 0;
  for (let s = 0; s < numSnp; s++) {
    // C's (uint32_t)(x + 0.5) truncates; a non-finite scale (no weight at all) gives weight 0.
    const w = Math.trunc(raw[s] * scale + 0.5);
    weights[s] = Number.isFinite(w) ? w : 0;
    sum += weights[s];
  }
  return { weights, sum };
}

/**
 * The missing tallies of the rescaling from a sample-major file: each missing call of sample i at SNP s adds the SNP's
 * weight to sample i, and each pair missing at s adds it to the pair. `founder` (1 for a founder sample) gives PLINK's
 * default weights from the founders' allele frequencies; null gives flat-missing's weight 1 (the total is then the SNP
 * count).
 */
export function missingTallies(file: SampleMajorFile, founder: Uint8Array | null): MissingTallies {
  return talliesOfMissingCalls(readMissingCalls(file, founder), { numSample: file.numSample, numSnp: file.numSnp });
}

/** The missing calls of a source's SNP rows by SNP, and its founders' genotype counts (null: flat-missing's weights). */
export interface SnpMissingCalls {
  readonly missing: MissingCalls;
  readonly founderCounts: FounderCounts | null;
}

/** Each sample's missing calls (`counts[s]` SNPs each, listed sample after sample) grouped by SNP, samples ascending. */
export function missingCallsBySnp(lists: { readonly counts: Uint32Array; readonly snps: Uint32Array }, numSnp: number): MissingCalls {
  const firstOfSnp = new Uint32Array(numSnp + 1);
  for (const snp of lists.snps) firstOfSnp[snp + 1]++;
  for (let s = 0; s < numSnp; s++) firstOfSnp[s + 1] += firstOfSnp[s];
  const next = firstOfSnp.slice(0, numSnp);
  const samplesBySnp = new Uint32Array(lists.snps.length);
  for (let sample = 0, at = 0; sample < lists.counts.length; sample++) {
    for (const end = at + lists.counts[sample]; at < end; at++) samplesBySnp[next[lists.snps[at]]++] = sample;
  }
  return { firstOfSnp, samplesBySnp };
}

/** The tallies of missing calls grouped by SNP (missingTallies, or SNP rows read by missingCallsOfSnpRows). */
export function talliesOfMissingCalls(calls: SnpMissingCalls, sizes: { readonly numSample: number; readonly numSnp: number }): MissingTallies {
  const { numSample: n, numSnp } = sizes;
  const { missing, founderCounts } = calls;
  const weighting = founderCounts === null ? null : plinkMissingWeights(numSnp, founderCounts);
  const perSample = new Float64Array(n);
  const perPair = new Uint32Array((n * (n - 1)) / 2);
  const { firstOfSnp, samplesBySnp } = missing;
  const weightOf = (s: number): number => (weighting === null ? 1 : weighting.weights[s]);
  // Rows in blocks of about PAIR_BLOCK pairs, so that a block's part of the triangle stays in cache while every SNP
  // adds its missing pairs to it; cursor[s] is where SNP s's (ascending) samples reach the block.
  const cursor = firstOfSnp.slice(0, numSnp);
  for (let rowFirst = 0; rowFirst < n;) {
    let rowEnd = rowFirst + 1;
    while (rowEnd < n && (rowEnd * (rowEnd + 1)) / 2 - (rowFirst * (rowFirst - 1)) / 2 < PAIR_BLOCK) rowEnd++;
    for (let s = 0; s < numSnp; s++) {
      const first = firstOfSnp[s];
      const end = firstOfSnp[s + 1];
      let a = cursor[s];
      if (a === end || samplesBySnp[a] >= rowEnd) continue;
      const w = weightOf(s);
      for (; a < end && samplesBySnp[a] < rowEnd; a++) {
        const i = samplesBySnp[a];
        perSample[i] += w;
        const base = (i * (i - 1)) / 2;
        for (let b = first; b < a; b++) perPair[base + samplesBySnp[b]] += w;
      }
      cursor[s] = a;
    }
    rowFirst = rowEnd;
  }
  return { total: weighting === null ? numSnp : weighting.sum, perSample, perPair };
}

/**
 * Rescales the allele-count distances of the lower triangle `distances` (row i > j at i(i − 1)/2 + j) in place, as
 * PLINK 1.9 does: (total / (total − missing_i − missing_j + missing_ij)) · distance, the integers exact, then doubles.
 */
export function rescaleDistances(distances: Float64Array, tallies: MissingTallies, numSample: number): void {
  const { total, perSample, perPair } = tallies;
  for (let i = 1; i < numSample; i++) {
    const base = (i * (i - 1)) / 2;
    const missingI = perSample[i];
    for (let j = 0; j < i; j++) {
      const called = total - missingI - perSample[j] + perPair[base + j];
      distances[base + j] = (total / called) * distances[base + j];
    }
  }
}
