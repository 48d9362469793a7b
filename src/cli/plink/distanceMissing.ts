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
import { CODE_MISSING } from '../../core/bitCodes.js';

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

/** Calls `visit(sample, row)` for each sample's row of packed bytes, reading the file in large pieces. */
function forEachRow(file: SampleMajorFile, visit: (sample: number, row: Uint8Array) => void): void {
  const bytesPerRow = Math.ceil(file.numSnp / 4);
  const rowsPerPiece = Math.max(1, Math.floor((32 << 20) / Math.max(1, bytesPerRow)));
  const piece = new Uint8Array(rowsPerPiece * bytesPerRow);
  const fd = openSync(file.path, 'r');
  try {
    for (let first = 0; first < file.numSample; first += rowsPerPiece) {
      const numRows = Math.min(rowsPerPiece, file.numSample - first);
      const numBytes = numRows * bytesPerRow;
      let done = 0;
      while (done < numBytes) {
        const got = readSync(fd, piece, done, numBytes - done, first * bytesPerRow + done);
        if (got === 0) throw new Error(`${file.path} ended early`);
        done += got;
      }
      for (let r = 0; r < numRows; r++) visit(first + r, piece.subarray(r * bytesPerRow, (r + 1) * bytesPerRow));
    }
  } finally {
    closeSync(fd);
  }
}

/** The missing calls of a file, grouped by SNP: samples `samplesBySnp[firstOfSnp[s] …]` (ascending) miss SNP s. */
interface MissingCalls {
  readonly firstOfSnp: Uint32Array;
  readonly samplesBySnp: Uint32Array;
}

/** One pass over the file: its missing calls by SNP, and how often each byte value occurs at each byte position among founders. */
function readMissingCalls(file: SampleMajorFile, founder: Uint8Array | null): { missing: MissingCalls; founderByteCounts: Uint32Array | null } {
  const bytesPerRow = Math.ceil(file.numSnp / 4);
  // Founder byte histograms: one add per byte, decoded once per SNP at the end.
  const founderByteCounts = founder === null ? null : new Uint32Array(bytesPerRow * 256);
  let snpOfMissing = new Uint32Array(1 << 16);
  let sampleOfMissing = new Uint32Array(1 << 16);
  let numMissing = 0;
  forEachRow(file, (sample, row) => {
    if (founderByteCounts !== null && founder !== null && founder[sample] === 1) {
      for (let k = 0; k < bytesPerRow; k++) founderByteCounts[(k << 8) | row[k]]++;
    }
    for (let k = 0; k < bytesPerRow; k++) {
      const b = row[k];
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
        sampleOfMissing[numMissing++] = sample;
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
  return { missing: { firstOfSnp, samplesBySnp }, founderByteCounts };
}

/** PLINK 1.9's integer missing-call weight of each SNP from the founders' byte histograms, and the weights' sum (< 2^32). */
function plinkMissingWeights(numSnp: number, founderByteCounts: Uint32Array): { weights: Uint32Array; sum: number } {
  const weights = new Uint32Array(numSnp);
  const raw = new Float64Array(numSnp);
  let rawSum = 0;
  for (let s = 0; s < numSnp; s++) {
    // Founder genotype counts of SNP s: code 00 (two copies of allele 2), 01 (het), called.
    let hom2 = 0, het = 0, called = 0;
    const shift = 2 * (s & 3);
    const counts = founderByteCounts.subarray((s >> 2) << 8, ((s >> 2) + 1) << 8);
    for (let value = 0; value < 256; value++) {
      const count = counts[value];
      if (count === 0) continue;
      const code = (value >> shift) & 3;
      if (code === CODE_MISSING) continue;
      called += count;
      if (code === 0) hom2 += count;
      else if (code === 1) het += count;
    }
    const frequency = called === 0 ? 0.5 : (2 * hom2 + het) / (2 * called);
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
 * The missing tallies of the rescaling: each missing call of sample i at SNP s adds the SNP's weight to sample i, and
 * each pair missing at s adds it to the pair. `founder` (1 for a founder sample) gives PLINK's default weights from
 * the founders' allele frequencies; null gives flat-missing's weight 1 (the total is then the SNP count).
 */
export function missingTallies(file: SampleMajorFile, founder: Uint8Array | null): MissingTallies {
  const n = file.numSample;
  const { missing, founderByteCounts } = readMissingCalls(file, founder);
  const weighting = founderByteCounts === null ? null : plinkMissingWeights(file.numSnp, founderByteCounts);
  const perSample = new Float64Array(n);
  const perPair = new Uint32Array((n * (n - 1)) / 2);
  const { firstOfSnp, samplesBySnp } = missing;
  for (let s = 0; s < file.numSnp; s++) {
    const w = weighting === null ? 1 : weighting.weights[s];
    const first = firstOfSnp[s];
    const end = firstOfSnp[s + 1];
    for (let a = first; a < end; a++) {
      const i = samplesBySnp[a];
      perSample[i] += w;
      const base = (i * (i - 1)) / 2;
      for (let b = first; b < a; b++) perPair[base + samplesBySnp[b]] += w;
    }
  }
  return { total: weighting === null ? file.numSnp : weighting.sum, perSample, perPair };
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
