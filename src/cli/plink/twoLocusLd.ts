// LD of one pair of SNPs from its 3×3 genotype-count table, with PLINK 1.9's arithmetic: the dosage r² of `--r2`
// (r2FromSums, as the engine computes it) and, for `--r2 d|dprime|dprime-signed`, the two-locus haplotype frequencies
// of plink_ld.c's em_phase_hethet (the maximum-likelihood root of the cubic for the double heterozygotes), from which
// PLINK takes D, D′ and a haplotype r² that replaces the dosage r² in those modes.
import { r2FromSums } from '../../analyses/r2/index.js';

// PLINK's constants (plink_common.h), kept bit for bit.
const EPSILON = 0.000000000931322574615478515625;
const SMALLISH_EPSILON = 0.00000000002910383045673370361328125;
const SMALL_EPSILON = 0.00000000000005684341886080801486968994140625;
const PI = 3.1415926535897932;

/**
 * A pair's genotype counts over the samples called in both: `counts[3·a + b]` samples carry a copies of SNP A's
 * allele 1 and b of SNP B's (a, b ∈ 0, 1, 2).
 */
export type GenotypeTable = Float64Array | Uint32Array | readonly number[];

/** PLINK's `--r2` value of the pair: the squared correlation of allele-1 dosages (NaN without variance). */
export function dosageR2(counts: GenotypeTable): number {
  let [n, sx, sy, sxx, syy, sxy] = [0, 0, 0, 0, 0, 0];
  for (let a = 0; a < 3; a++) {
    for (let b = 0; b < 3; b++) {
      const c = counts[3 * a + b];
      n += c;
      sx += a * c;
      sy += b * c;
      sxx += a * a * c;
      syy += b * b * c;
      sxy += a * b * c;
    }
  }
  return r2FromSums(n, sx, sy, sxx, syy, sxy);
}

/** cubicRealRoots' roots (at most 3) and solutions' candidates: no array per pair (they were most of a D′ table's time). */
const ROOTS = new Float64Array(3);

/**
 * Real roots of x³ + ax² + bx + c into ROOTS, ascending, multiple roots once (plink_common.c, cubic_real_roots);
 * returns how many.
 */
function cubicRealRoots(coefA: number, coefB: number, coefC: number): number {
  const a2 = coefA * coefA;
  const qq = (a2 - 3 * coefB) * (1.0 / 9.0);
  const rr = (2 * a2 * coefA - 9 * coefA * coefB + 27 * coefC) * (1.0 / 54.0);
  const r2 = rr * rr;
  const q3 = qq * qq * qq;
  const adiv3 = coefA * (1.0 / 3.0);
  if (r2 < q3) {
    let sq = Math.sqrt(qq);
    const angle = Math.acos(rr / (qq * sq)) * (1.0 / 3.0);
    sq *= -2;
    let r0 = sq * Math.cos(angle) - adiv3;
    let r1 = sq * Math.cos(angle + (2.0 * PI / 3.0)) - adiv3;
    let r2nd = sq * Math.cos(angle - (2.0 * PI / 3.0)) - adiv3;
    // Ascending, equal values in their order (a stable sort of three).
    if (r0 > r1) [r0, r1] = [r1, r0];
    if (r1 > r2nd) [r1, r2nd] = [r2nd, r1];
    if (r0 > r1) [r0, r1] = [r1, r0];
    ROOTS[0] = r0;
    if (r1 - r0 < EPSILON) {
      ROOTS[1] = r2nd;
      return r2nd - r0 < EPSILON ? 1 : 2;
    }
    ROOTS[1] = r1;
    ROOTS[2] = r2nd;
    return r2nd - r1 < EPSILON ? 2 : 3;
  }
  let dxx = -Math.pow(Math.abs(rr) + Math.sqrt(r2 - q3), 1.0 / 3.0);
  if (dxx === 0.0) {
    ROOTS[0] = -adiv3;
    return 1;
  }
  if (rr < 0.0) dxx = -dxx;
  const sq = qq / dxx;
  const first = dxx + sq - adiv3;
  if (Math.abs(dxx - sq) >= EPSILON * 8) {
    ROOTS[0] = first;
    return 1;
  }
  ROOTS[0] = dxx >= 0.0 ? -dxx - adiv3 : first;
  ROOTS[1] = dxx >= 0.0 ? first : -dxx - adiv3;
  return 2;
}

/** Haplotype frequencies of a pair: allele-1 frequencies of A (`freq1x`) and B (`freqx1`), and of the 1-1 haplotype. */
const FREQUENCIES = { freq1x: 0, freqx1: 0, freq11: 0 };

/**
 * plink_ld.c calc_lnlike: the log likelihood of the double heterozygotes split with `freq11Increment` in phase 1-1
 * (`known*`: the unambiguous haplotype counts 11, 12, 21, 22; `freq*` their frequencies).
 */
function logLikelihood(
  known11: number, known12: number, known21: number, known22: number, centerCount: number,
  freq11: number, freq12: number, freq21: number, freq22: number, halfHetHetShare: number, freq11Increment: number,
): number {
  const f11 = freq11 + freq11Increment;
  const f22 = freq22 + freq11Increment;
  const f12 = freq12 + halfHetHetShare - freq11Increment;
  const f21 = freq21 + halfHetHetShare - freq11Increment;
  let lnlike = centerCount * Math.log(f11 * f22 + f12 * f21);
  if (known11 !== 0.0) lnlike += known11 * Math.log(f11);
  if (known12 !== 0.0) lnlike += known12 * Math.log(f12);
  if (known21 !== 0.0) lnlike += known21 * Math.log(f21);
  if (known22 !== 0.0) lnlike += known22 * Math.log(f22);
  return lnlike;
}

/**
 * plink_ld.c em_phase_hethet_nobase + em_phase_hethet (autosomes) into FREQUENCIES; false when a SNP is monomorphic
 * over the calls. PLINK's classes count copies of its A1 from 0 = two copies, so its class (x, y) is counts[8 − 3x − y].
 */
function haplotypeFrequencies(counts: GenotypeTable): boolean {
  const c0 = counts[8], c1 = counts[7], c2 = counts[6], c3 = counts[5], c5 = counts[3], c6 = counts[2], c7 = counts[1], c8 = counts[0];
  const known11 = 2 * c0 + c1 + c3;
  const known12 = 2 * c2 + c1 + c5;
  const known21 = 2 * c6 + c3 + c7;
  const known22 = 2 * c8 + c5 + c7;
  const centerCount = counts[4];
  const twiceTotal = known11 + known12 + known21 + known22 + 2 * centerCount;
  if (twiceTotal === 0.0) return false;
  const reciprocal = 1.0 / twiceTotal;
  const freq11 = known11 * reciprocal;
  const freq12 = known12 * reciprocal;
  const freq21 = known21 * reciprocal;
  const freq22 = known22 * reciprocal;
  const prod1122 = freq11 * freq22;
  const prod1221 = freq12 * freq21;
  const halfHetHetShare = centerCount * reciprocal;
  FREQUENCIES.freq1x = freq11 + freq12 + halfHetHetShare;
  FREQUENCIES.freqx1 = freq11 + freq21 + halfHetHetShare;
  FREQUENCIES.freq11 = freq11;
  if (centerCount === 0) return !(prod1122 === 0.0 && prod1221 === 0.0);
  // The candidates are ROOTS[start … end).
  let start = 0;
  let end: number;
  if (prod1122 !== 0.0 || prod1221 !== 0.0) {
    end = cubicRealRoots(
      0.5 * (freq11 + freq22 - freq12 - freq21 - 3 * halfHetHetShare),
      0.5 * (prod1122 + prod1221 + halfHetHetShare * (freq12 + freq21 - freq11 - freq22 + halfHetHetShare)),
      -0.5 * halfHetHetShare * prod1122);
    while (end > 0 && ROOTS[end - 1] > halfHetHetShare + SMALLISH_EPSILON) end--;
    while (start < end && ROOTS[start] < -SMALLISH_EPSILON) start++;
    if (start === end) {
      // A lost double root at a boundary: PLINK compares the two boundary points.
      ROOTS[0] = 0;
      ROOTS[1] = halfHetHetShare;
      start = 0;
      end = 2;
    } else {
      if (ROOTS[start] < 0) ROOTS[start] = 0;
      if (ROOTS[end - 1] > halfHetHetShare) ROOTS[end - 1] = halfHetHetShare;
    }
  } else {
    const nonzeroXx = freq11 + freq22;
    const nonzeroXy = freq12 + freq21;
    ROOTS[0] = 0;
    if (nonzeroXx + SMALLISH_EPSILON < halfHetHetShare + nonzeroXy && nonzeroXy + SMALLISH_EPSILON < halfHetHetShare + nonzeroXx) {
      ROOTS[1] = (halfHetHetShare + nonzeroXy - nonzeroXx) * 0.5;
      ROOTS[2] = halfHetHetShare;
      end = 3;
    } else {
      ROOTS[1] = halfHetHetShare;
      end = 2;
    }
  }
  let best = ROOTS[start];
  if (end - start > 1) {
    // PLINK never updates its best likelihood here (it assigns the other way round): each candidate is compared with
    // the first one's likelihood, and the last candidate that beats it wins. Kept, to print PLINK's numbers.
    const firstLikelihood = logLikelihood(known11, known12, known21, known22, centerCount, freq11, freq12, freq21, freq22, halfHetHetShare, best);
    for (let k = start + 1; k < end; k++) {
      const candidate = ROOTS[k];
      if (logLikelihood(known11, known12, known21, known22, centerCount, freq11, freq12, freq21, freq22, halfHetHetShare, candidate) > firstLikelihood) best = candidate;
    }
  }
  FREQUENCIES.freq11 = freq11 + best;
  return true;
}

/** What `--r2 d`, `dprime` and `dprime-signed` add. */
export type DprimeKind = 'd' | 'dprime' | 'dprime-signed';

/** PLINK's haplotype-based values of a pair: the R2 column (signed: |r²| is printed and filtered) and the D/DP column. */
export interface HaplotypeLd {
  readonly signedR2: number;
  readonly extra: number;
}

/** plink_ld.c ld_dprime_thread for one autosomal pair: NaN, NaN for a monomorphic SNP. */
export function haplotypeLd(counts: GenotypeTable, kind: DprimeKind): HaplotypeLd {
  if (!haplotypeFrequencies(counts)) return { signedR2: NaN, extra: NaN };
  const { freq1x, freqx1, freq11 } = FREQUENCIES;
  const freq2x = 1.0 - freq1x;
  const freqx2 = 1.0 - freqx1;
  const expected = freqx1 * freq1x;
  let d = freq11 - expected;
  if (Math.abs(d) < SMALL_EPSILON) return { signedR2: 0, extra: 0 };
  const signedR2 = (Math.abs(d) * d) / (expected * freq2x * freqx2);
  if (kind !== 'd') {
    if (d >= 0) {
      d /= Math.min(freqx1 * freq2x, freqx2 * freq1x);
    } else {
      if (kind === 'dprime') d = -d;
      d /= Math.min(expected, freqx2 * freq2x);
    }
  }
  return { signedR2, extra: d };
}

/**
 * haplotypeLd of `numPairs` tables (`counts`, 9 per pair as GenotypeTable) into `values` (|R2|, what the table prints
 * and filters) and `extras` (the D or DP column).
 */
export function haplotypeLdOfTables(counts: Uint32Array, numPairs: number, kind: DprimeKind, values: Float64Array, extras: Float64Array): void {
  const table = new Float64Array(9);
  for (let k = 0; k < numPairs; k++) {
    for (let c = 0; c < 9; c++) table[c] = counts[9 * k + c];
    const ld = haplotypeLd(table, kind);
    values[k] = Math.abs(ld.signedR2);
    extras[k] = ld.extra;
  }
}
