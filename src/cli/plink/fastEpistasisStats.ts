// PLINK 1.9's --fast-epistasis statistics of a pair's 3×3 genotype tables in cases and controls, ported from
// plink_ld.c (fepi_counts_to_stats — Ueki's adjusted log odds ratio, after Howey's CASSI —, and the BOOST log-linear
// test, boost_calc_p_bc / boost_calc_p_ca / fepi_counts_to_boost_chisq) in its order of operations, with its p-values
// (plink_common.c normdist, PLINK 1.07's approximation; the χ² upper tail) and thresholds (ltqnorm, inverse χ²).
//
// Counts are PLINK's layout: `counts[9·group + 3·a + b]`, group 0 cases, 1 controls; a, b the genotypes of SNP 1 and
// SNP 2 as PLINK indexes them, 0 = two copies of A1, 1 = het, 2 = no copy.

/** The default statistic: z² of the difference of case and control log odds ratios, and its p-value; NaN: failed. */
export function fastEpistasisZsq(counts: ArrayLike<number>): number {
  const cases = oddsRatioStats(counts, 0);
  const controls = oddsRatioStats(counts, 9);
  const diff = cases.logOddsRatio - controls.logOddsRatio;
  return (diff * diff) / (cases.variance + controls.variance);
}

function oddsRatioStats(counts: ArrayLike<number>, at: number): { logOddsRatio: number; variance: number } {
  const n = (t: number): number => counts[at + t];
  let c11 = 4 * n(0) + 2 * (n(1) + n(3)) + n(4);
  let c12 = 4 * n(2) + 2 * (n(1) + n(5)) + n(4);
  let c21 = 4 * n(6) + 2 * (n(3) + n(7)) + n(4);
  let c22 = 4 * n(8) + 2 * (n(5) + n(7)) + n(4);
  let noAdjustment = true;
  for (let t = 0; t < 9; t++) if (n(t) === 0) noAdjustment = false;
  if (!noAdjustment) {
    c11 += 4.5;
    c12 += 4.5;
    c21 += 4.5;
    c22 += 4.5;
  }
  let rc11 = 1.0 / c11, rc12 = 1.0 / c12, rc21 = 1.0 / c21, rc22 = 1.0 / c22;
  const logOddsRatio = Math.log(c11 * c22 * rc12 * rc21);
  c11 = rc11 - rc12;
  c12 = rc11 - rc21;
  let dxx = rc11 - rc12 - rc21 + rc22;
  c21 = rc22 - rc12;
  c22 = rc22 - rc21;
  rc11 *= rc11; rc12 *= rc12; rc21 *= rc21; rc22 *= rc22;
  c11 *= c11; c12 *= c12; c21 *= c21; c22 *= c22;
  dxx *= dxx;
  const add = noAdjustment ? 0 : 0.5;
  const m = (t: number): number => n(t) + add;
  const variance = 4 * (4 * (rc11 * m(0) + rc12 * m(2) + rc21 * m(6) + rc22 * m(8)) + c11 * m(1) + c12 * m(3) + c21 * m(5) + c22 * m(7)) + dxx * m(4);
  return { logOddsRatio, variance };
}

/** The default statistic's p-value as PLINK prints it: 2·normdist(−√z²), PLINK 1.07's normal approximation. */
export function fastEpistasisP(zsq: number): number {
  return normdist(-Math.sqrt(zsq)) * 2;
}

/** PLINK 1.07's normal CDF approximation (plink_common.c normdist). */
export function normdist(zz: number): number {
  const sqrt2pi = 2.50662827463;
  const t0 = 1 / (1 + 0.2316419 * Math.abs(zz));
  const z1 = Math.exp(-0.5 * zz * zz) / sqrt2pi;
  const p0 = z1 * t0 * (0.31938153 + t0 * (-0.356563782 + t0 * (1.781477937 + t0 * (-1.821255978 + 1.330274429 * t0))));
  return zz >= 0 ? 1 - p0 : p0;
}

const IVN_A = [-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02, 1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00];
const IVN_B = [-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02, 6.680131188771972e+01, -1.328068155288572e+01];
const IVN_C = [-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00, -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00];
const IVN_D = [7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00, 3.754408661907416e+00];

/** Acklam's inverse normal CDF, as PLINK's ltqnorm (0 < p < 1). */
export function ltqnorm(p: number): number {
  const low = 0.02425;
  if (p < low || p > 1 - low) {
    const q = Math.sqrt(-2 * Math.log(p < low ? p : 1 - p));
    const value = (((((IVN_C[0] * q + IVN_C[1]) * q + IVN_C[2]) * q + IVN_C[3]) * q + IVN_C[4]) * q + IVN_C[5]) /
      ((((IVN_D[0] * q + IVN_D[1]) * q + IVN_D[2]) * q + IVN_D[3]) * q + 1);
    return p < low ? value : -value;
  }
  const q = p - 0.5;
  const r = q * q;
  return (((((IVN_A[0] * r + IVN_A[1]) * r + IVN_A[2]) * r + IVN_A[3]) * r + IVN_A[4]) * r + IVN_A[5]) * q /
    (((((IVN_B[0] * r + IVN_B[1]) * r + IVN_B[2]) * r + IVN_B[3]) * r + IVN_B[4]) * r + 1);
}

/** ln Γ(x), Lanczos (g = 7, 9 terms): ~15 digits, enough for p-values printed to 4. */
function logGamma(x: number): number {
  const g = [0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
    12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7];
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  const y = x - 1;
  let sum = g[0];
  for (let t = 1; t < 9; t++) sum += g[t] / (y + t);
  const tt = y + 7.5;
  return 0.5 * Math.log(2 * Math.PI) + (y + 0.5) * Math.log(tt) - tt + Math.log(sum);
}

/** Upper tail of χ² with `df` degrees of freedom at x: Q(df/2, x/2), series or continued fraction. */
export function chiSquareUpperTail(x: number, df: number): number {
  if (!(x > 0)) return 1;
  const a = df / 2, z = x / 2;
  const logPrefix = a * Math.log(z) - z - logGamma(a);
  if (z < a + 1) {
    let term = 1 / a, sum = term;
    for (let n = 1; n < 1000 && Math.abs(term) > Math.abs(sum) * 1e-17; n++) sum += (term *= z / (a + n));
    return Math.max(0, 1 - sum * Math.exp(logPrefix));
  }
  // Lentz's continued fraction for Q.
  let b = z + 1 - a, c = 1 / 1e-300, d = 1 / b, h = d;
  for (let n = 1; n < 1000; n++) {
    const an = -n * (n - a);
    b += 2;
    d = an * d + b; if (Math.abs(d) < 1e-300) d = 1e-300;
    c = b + an / c; if (Math.abs(c) < 1e-300) c = 1e-300;
    d = 1 / d;
    const delta = d * c;
    h *= delta;
    if (Math.abs(delta - 1) < 1e-16) break;
  }
  return Math.exp(logPrefix) * h;
}

/** The χ² value whose upper tail is q (PLINK's inverse_chiprob; 0 for q ≥ 1), by bisection. */
export function inverseChiSquare(q: number, df: number): number {
  if (q >= 1) return 0;
  let lo = 0, hi = 1;
  while (chiSquareUpperTail(hi, df) > q) hi *= 2;
  for (let step = 0; step < 200 && hi - lo > hi * 1e-16; step++) {
    const mid = (lo + hi) / 2;
    if (chiSquareUpperTail(mid, df) > q) lo = mid; else hi = mid;
  }
  return (lo + hi) / 2;
}

/** A BOOST result: the statistic (NaN: failed), its degrees of freedom (0 with NaN), whether it was printed. */
export interface BoostResult {
  readonly chisq: number;
  readonly df: number;
  /** Whether PLINK stores the value (its screening statistic passed --epi1), so that the pair has a line. */
  readonly recorded: boolean;
  /** The value that counts for --epi2 and the best pair (PLINK's return value). */
  readonly measure: number;
}

/** Clears the two low bits of a double's significand, as PLINK stores BOOST's df there. */
function clearLowBits(value: number): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, value, true);
  view.setUint8(0, view.getUint8(0) & ~3);
  return view.getFloat64(0, true);
}

/** BOOST (PLINK's fepi_counts_to_boost_chisq with its p_bc, p_ca), `alpha1sq`/`alpha2sq` indexed by df adjustment. */
export function boostChisq(counts: ArrayLike<number>, alpha1sq: readonly number[]): BoostResult {
  const recip = (n: number): number => (n === 0 ? 0 : 1.0 / n);
  const pBc = new Float64Array(6), pCa = new Float64Array(6);
  for (let group = 0; group < 2; group++) {
    const byB = [0, 1, 2].map((b) => counts[9 * group + b] + counts[9 * group + 3 + b] + counts[9 * group + 6 + b]);
    const total = recip(byB[0] + byB[1] + byB[2]);
    for (let b = 0; b < 3; b++) pBc[3 * group + b] = byB[b] * total;
  }
  let dfAdj = 0;
  for (let a = 0; a < 3; a++) {
    const cases = counts[3 * a] + counts[3 * a + 1] + counts[3 * a + 2];
    const controls = counts[9 + 3 * a] + counts[9 + 3 * a + 1] + counts[9 + 3 * a + 2];
    if (cases + controls === 0) dfAdj++;
    const total = recip(cases + controls);
    pCa[2 * a] = cases * total;
    pCa[2 * a + 1] = controls * total;
  }
  const failed: BoostResult = { chisq: NaN, df: 0, recorded: false, measure: NaN };
  if (dfAdj > 1) return failed;
  const muXx = new Float64Array(9);
  let sum = 0, emptyB = 0, tau = 0, measure = 0;
  for (let b = 0; b < 3; b++) {
    const ujj = counts[b] + counts[b + 9], ukk = counts[b + 3] + counts[b + 12], umm = counts[b + 6] + counts[b + 15];
    const unn = ujj + ukk + umm;
    if (unn === 0) {
      if (emptyB++) return failed;
      dfAdj++;
    }
    sum += unn;
    const dxx = recip(unn);
    muXx[3 * b] = ujj * dxx; muXx[3 * b + 1] = ukk * dxx; muXx[3 * b + 2] = umm * dxx;
  }
  let cell = 0;
  for (let group = 0; group < 2; group++) {
    for (let a = 0; a < 3; a++) {
      const dyy = pCa[2 * a + group];
      for (let b = 0; b < 3; b++) {
        const dxx = muXx[a + 3 * b] * pBc[3 * group + b] * dyy;
        tau += dxx;
        const n = counts[cell++];
        if (n) measure = dxx !== 0.0 ? measure - n * Math.log(dxx * recip(n)) : measure + n * Math.log(n);
      }
    }
  }
  const sumRecip = recip(sum);
  measure = 2 * (measure + sum * Math.log(tau * sumRecip));
  if (!(measure > alpha1sq[dfAdj])) return { chisq: NaN, df: 4 >> dfAdj, recorded: false, measure };
  const mu = new Float64Array(18).fill(1.0);
  const mu0 = new Float64Array(18);
  let error: number;
  do {
    mu0.set(mu);
    for (let t = 0; t < 9; t++) muXx[t] = mu[2 * t] + mu[2 * t + 1];
    for (let t = 0; t < 9; t++) {
      const dxx = muXx[t] !== 0.0 ? (counts[t] + counts[t + 9]) / muXx[t] : muXx[t];
      mu[2 * t] *= dxx; mu[2 * t + 1] *= dxx;
    }
    for (let a = 0, at = 0; a < 18; a += 6) for (let k = a; k < a + 2; k++) muXx[at++] = mu[k] + mu[k + 2] + mu[k + 4];
    for (let a = 0; a < 3; a++) for (let k = 0; k < 2; k++) {
      let dxx = muXx[2 * a + k];
      if (dxx !== 0.0) dxx = (counts[9 * k + 3 * a] + counts[9 * k + 3 * a + 1] + counts[9 * k + 3 * a + 2]) / dxx;
      mu[6 * a + k] *= dxx; mu[6 * a + k + 2] *= dxx; mu[6 * a + k + 4] *= dxx;
    }
    for (let t = 0; t < 6; t++) muXx[t] = mu[t] + mu[t + 6] + mu[t + 12];
    for (let b = 0; b < 3; b++) for (let k = 0; k < 2; k++) {
      let dxx = muXx[2 * b + k];
      if (dxx !== 0.0) dxx = (counts[9 * k + b] + counts[9 * k + b + 3] + counts[9 * k + b + 6]) / dxx;
      mu[2 * b + k] *= dxx; mu[2 * b + k + 6] *= dxx; mu[2 * b + k + 12] *= dxx;
    }
    error = 0.0;
    for (let t = 0; t < 18; t++) error += Math.abs(mu[t] - mu0[t]);
  } while (error > 0.001);
  tau = 0.0;
  measure = 0.0;
  cell = 0;
  for (let k = 0; k < 2; k++) for (let a = 0; a < 3; a++) for (let b = 0; b < 3; b++) {
    const dxx = counts[cell++] * sumRecip;
    const dyy = mu[6 * a + 2 * b + k] * sumRecip;
    if (dxx !== 0.0) measure += dyy !== 0.0 ? dxx * Math.log(dxx / dyy) : dxx * Math.log(dxx);
    tau += dyy;
  }
  measure = (measure + Math.log(tau)) * (sum * 2);
  const chisq = clearLowBits(measure);
  return { chisq, df: 4 >> dfAdj, recorded: true, measure: measure < alpha1sq[dfAdj] ? alpha1sq[dfAdj] : measure };
}
