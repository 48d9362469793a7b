// The previous, allocating port of plink_ld.c's em_phase_hethet (cli/plink/twoLocusLd.ts before its allocation-free
// rewrite), kept verbatim as the reference the rewrite must equal bit for bit (test/cli/twoLocusLdFast.test.ts).
// PLINK's constants (plink_common.h), kept bit for bit.
const EPSILON = 0.000000000931322574615478515625;
const SMALLISH_EPSILON = 0.00000000002910383045673370361328125;
const SMALL_EPSILON = 0.00000000000005684341886080801486968994140625;
const PI = 3.1415926535897932;

/**
 * A pair's genotype counts over the samples called in both: `counts[3·a + b]` samples carry a copies of SNP A's
 * allele 1 and b of SNP B's (a, b ∈ 0, 1, 2).
 */
type GenotypeTable = Float64Array | Uint32Array | readonly number[];

/** Real roots of x³ + ax² + bx + c, ascending, multiple roots once (plink_common.c, cubic_real_roots). */
function cubicRealRoots(coefA: number, coefB: number, coefC: number): number[] {
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
    const roots = [sq * Math.cos(angle) - adiv3, sq * Math.cos(angle + (2.0 * PI / 3.0)) - adiv3, sq * Math.cos(angle - (2.0 * PI / 3.0)) - adiv3];
    roots.sort((x, y) => x - y);
    if (roots[1] - roots[0] < EPSILON) {
      roots[1] = roots[2];
      return roots[1] - roots[0] < EPSILON ? roots.slice(0, 1) : roots.slice(0, 2);
    }
    return roots[2] - roots[1] < EPSILON ? roots.slice(0, 2) : roots;
  }
  let dxx = -Math.pow(Math.abs(rr) + Math.sqrt(r2 - q3), 1.0 / 3.0);
  if (dxx === 0.0) return [-adiv3];
  if (rr < 0.0) dxx = -dxx;
  const sq = qq / dxx;
  const first = dxx + sq - adiv3;
  if (Math.abs(dxx - sq) >= EPSILON * 8) return [first];
  return dxx >= 0.0 ? [-dxx - adiv3, first] : [first, -dxx - adiv3];
}

/** Haplotype frequencies of a pair: allele-1 frequencies of A (`freq1x`) and B (`freqx1`), and of the 1-1 haplotype. */
interface HaplotypeFrequencies {
  readonly freq1x: number;
  readonly freqx1: number;
  readonly freq11: number;
}

/** plink_ld.c calc_lnlike: the log likelihood of the double heterozygotes split with `freq11Increment` in phase 1-1. */
function logLikelihood(known: readonly number[], centerCount: number, freq: readonly number[], halfHetHetShare: number, freq11Increment: number): number {
  const f11 = freq[0] + freq11Increment;
  const f22 = freq[3] + freq11Increment;
  const f12 = freq[1] + halfHetHetShare - freq11Increment;
  const f21 = freq[2] + halfHetHetShare - freq11Increment;
  let lnlike = centerCount * Math.log(f11 * f22 + f12 * f21);
  if (known[0] !== 0.0) lnlike += known[0] * Math.log(f11);
  if (known[1] !== 0.0) lnlike += known[1] * Math.log(f12);
  if (known[2] !== 0.0) lnlike += known[2] * Math.log(f21);
  if (known[3] !== 0.0) lnlike += known[3] * Math.log(f22);
  return lnlike;
}

/**
 * plink_ld.c em_phase_hethet_nobase + em_phase_hethet (autosomes): null when a SNP is monomorphic over the calls.
 * PLINK's classes count copies of its A1 from 0 = two copies, so class k is 2 − a of `counts`.
 */
function haplotypeFrequencies(counts: GenotypeTable): HaplotypeFrequencies | null {
  const plinkCount = (classA: number, classB: number): number => counts[3 * (2 - classA) + (2 - classB)];
  const c = Array.from({ length: 9 }, (_, k) => plinkCount(Math.floor(k / 3), k % 3));
  const known = [2 * c[0] + c[1] + c[3], 2 * c[2] + c[1] + c[5], 2 * c[6] + c[3] + c[7], 2 * c[8] + c[5] + c[7]];
  const centerCount = c[4];
  const twiceTotal = known[0] + known[1] + known[2] + known[3] + 2 * centerCount;
  if (twiceTotal === 0.0) return null;
  const reciprocal = 1.0 / twiceTotal;
  const freq = known.map((k) => k * reciprocal);
  const [freq11, freq12, freq21, freq22] = freq;
  const prod1122 = freq11 * freq22;
  const prod1221 = freq12 * freq21;
  const halfHetHetShare = centerCount * reciprocal;
  const freq1x = freq11 + freq12 + halfHetHetShare;
  const freqx1 = freq11 + freq21 + halfHetHetShare;
  if (centerCount === 0) {
    return prod1122 === 0.0 && prod1221 === 0.0 ? null : { freq1x, freqx1, freq11 };
  }
  let solutions: number[];
  if (prod1122 !== 0.0 || prod1221 !== 0.0) {
    solutions = cubicRealRoots(
      0.5 * (freq11 + freq22 - freq12 - freq21 - 3 * halfHetHetShare),
      0.5 * (prod1122 + prod1221 + halfHetHetShare * (freq12 + freq21 - freq11 - freq22 + halfHetHetShare)),
      -0.5 * halfHetHetShare * prod1122);
    let end = solutions.length;
    while (end > 0 && solutions[end - 1] > halfHetHetShare + SMALLISH_EPSILON) end--;
    let start = 0;
    while (start < end && solutions[start] < -SMALLISH_EPSILON) start++;
    if (start === end) {
      // A lost double root at a boundary: PLINK compares the two boundary points.
      solutions = [0, halfHetHetShare];
    } else {
      solutions = solutions.slice(start, end);
      if (solutions[0] < 0) solutions[0] = 0;
      if (solutions[solutions.length - 1] > halfHetHetShare) solutions[solutions.length - 1] = halfHetHetShare;
    }
  } else {
    const nonzeroXx = freq11 + freq22;
    const nonzeroXy = freq12 + freq21;
    solutions = nonzeroXx + SMALLISH_EPSILON < halfHetHetShare + nonzeroXy && nonzeroXy + SMALLISH_EPSILON < halfHetHetShare + nonzeroXx
      ? [0, (halfHetHetShare + nonzeroXy - nonzeroXx) * 0.5, halfHetHetShare]
      : [0, halfHetHetShare];
  }
  let best = solutions[0];
  if (solutions.length > 1) {
    // PLINK never updates its best likelihood here (it assigns the other way round): each candidate is compared with
    // the first one's likelihood, and the last candidate that beats it wins. Kept, to print PLINK's numbers.
    const firstLikelihood = logLikelihood(known, centerCount, freq, halfHetHetShare, best);
    for (let s = 1; s < solutions.length; s++) {
      if (logLikelihood(known, centerCount, freq, halfHetHetShare, solutions[s]) > firstLikelihood) best = solutions[s];
    }
  }
  return { freq1x, freqx1, freq11: freq11 + best };
}

/** What `--r2 d`, `dprime` and `dprime-signed` add. */
type DprimeKind = 'd' | 'dprime' | 'dprime-signed';

/** PLINK's haplotype-based values of a pair: the R2 column (signed: |r²| is printed and filtered) and the D/DP column. */
interface HaplotypeLd {
  readonly signedR2: number;
  readonly extra: number;
}

/** plink_ld.c ld_dprime_thread for one autosomal pair: NaN, NaN for a monomorphic SNP. */
export function referenceHaplotypeLd(counts: GenotypeTable, kind: DprimeKind): HaplotypeLd {
  const frequencies = haplotypeFrequencies(counts);
  if (frequencies === null) return { signedR2: NaN, extra: NaN };
  const { freq1x, freqx1, freq11 } = frequencies;
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
