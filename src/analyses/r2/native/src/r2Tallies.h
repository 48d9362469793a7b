// r²'s planes, tallies and value, shared by the window bands (r2WindowBand.cc) and PLINK's `.ld` text (ldText.cc). The
// per-pair tallies of r2Values.ts termGroupsR2(sparse), whose formulas hold in dense mode too:
//   LL = |NONZERO_i ∧ NONZERO_j|, HH = |HOM_i ∧ HOM_j|, EE = |HET_i ∧ HET_j|, HM = |HOM_i ∧ PRESENT_j|,
//   LM = |NONZERO_i ∧ PRESENT_j|, MH, ML likewise with i and j swapped, MM = |PRESENT_i ∧ PRESENT_j|,
// then Sxy = 2(LL + HH) − EE, Sx = HM + LM, Sxx = 3 HM + LM, Sy, Syy likewise, n = MM, and r2FromSums's doubles
// (built with -ffp-contract=off: the JS path's values bit for bit).
#ifndef SNPTALLY_R2_TALLIES_H
#define SNPTALLY_R2_TALLIES_H

#include <immintrin.h>

#include <cstdint>
#include <limits>

namespace snptally::r2 {

enum Plane { kHom = 0, kNonzero = 1, kHet = 2, kPresent = 3 };

/** r2Values.ts r2FromSums: the same double operations in the same order; 0/0 is the positive NaN literal. */
inline double r2FromSums(double n, double sx, double sy, double sxx, double syy, double sxy) {
  const double cov = n * sxy - sx * sy;
  const double vx = n * sxx - sx * sx;
  const double vy = n * syy - sy * sy;
  const double variances = vx * vy;
  return variances == 0 ? std::numeric_limits<double>::quiet_NaN() : (cov * cov) / variances;
}

/** r² from the 8 tallies (LL, HH, EE, HM, LM, MH, ML, MM): integer sums first (exact), then r2FromSums. */
inline double r2OfTallies(uint64_t ll, uint64_t hh, uint64_t ee, uint64_t hm, uint64_t lm, uint64_t mh, uint64_t ml, uint64_t mm) {
  return r2FromSums(static_cast<double>(mm), static_cast<double>(hm + lm), static_cast<double>(mh + ml),
                    static_cast<double>(3 * hm + lm), static_cast<double>(3 * mh + ml),
                    static_cast<double>(static_cast<int64_t>(2 * (ll + hh)) - static_cast<int64_t>(ee)));
}

/** The 8 tallies (LL, HH, EE, HM, LM, MH, ML, MM), 8 lanes each: per lane, the popcounts of a row's and a column's words. */
struct TallyLanes {
  __m512i ll, hh, ee, hm, lm, mh, ml, mm;

  __attribute__((target("avx512f"))) static TallyLanes zero() {
    const __m512i z = _mm512_setzero_si512();
    return {z, z, z, z, z, z, z, z};
  }

  /** Adds the popcounts of the row's planes (iH, iL, iE, iM) against the column's (jH, jL, jE, jM), lane by lane. */
  __attribute__((target("avx512f,avx512vpopcntdq"))) void add(
      __m512i iH, __m512i iL, __m512i iE, __m512i iM, __m512i jH, __m512i jL, __m512i jE, __m512i jM) {
    ll = _mm512_add_epi64(ll, _mm512_popcnt_epi64(_mm512_and_si512(iL, jL)));
    hh = _mm512_add_epi64(hh, _mm512_popcnt_epi64(_mm512_and_si512(iH, jH)));
    ee = _mm512_add_epi64(ee, _mm512_popcnt_epi64(_mm512_and_si512(iE, jE)));
    hm = _mm512_add_epi64(hm, _mm512_popcnt_epi64(_mm512_and_si512(iH, jM)));
    lm = _mm512_add_epi64(lm, _mm512_popcnt_epi64(_mm512_and_si512(iL, jM)));
    mh = _mm512_add_epi64(mh, _mm512_popcnt_epi64(_mm512_and_si512(iM, jH)));
    ml = _mm512_add_epi64(ml, _mm512_popcnt_epi64(_mm512_and_si512(iM, jL)));
    mm = _mm512_add_epi64(mm, _mm512_popcnt_epi64(_mm512_and_si512(iM, jM)));
  }
};

/**
 * r² of one row's planes (`row`: 4 planes of n64 words) against 8 columns whose planes are transposed word-major
 * (`columns[(plane·n64 + w)·stride + k]` for column k), into values[0 … 8): the tallies by AVX-512 popcounts, then
 * r2FromSums's doubles lane by lane.
 */
__attribute__((target("avx512f,avx512dq,avx512vpopcntdq"))) inline void r2Of8ColumnsAvx512(
    const uint64_t* row, int64_t n64, const uint64_t* columns, int64_t stride, double* values) {
  TallyLanes t = TallyLanes::zero();
  const int64_t planeStride = n64 * stride;
  for (int64_t w = 0; w < n64; w++) {
    const uint64_t* at = columns + w * stride;
    const __m512i jH = _mm512_loadu_si512(at + kHom * planeStride), jL = _mm512_loadu_si512(at + kNonzero * planeStride);
    const __m512i jE = _mm512_loadu_si512(at + kHet * planeStride), jM = _mm512_loadu_si512(at + kPresent * planeStride);
    const __m512i iH = _mm512_set1_epi64(static_cast<long long>(row[kHom * n64 + w]));
    const __m512i iL = _mm512_set1_epi64(static_cast<long long>(row[kNonzero * n64 + w]));
    const __m512i iE = _mm512_set1_epi64(static_cast<long long>(row[kHet * n64 + w]));
    const __m512i iM = _mm512_set1_epi64(static_cast<long long>(row[kPresent * n64 + w]));
    t.add(iH, iL, iE, iM, jH, jL, jE, jM);
  }
  // Integers first (exact), then the doubles of r2FromSums.
  const auto [ll, hh, ee, hm, lm, mh, ml, mm] = t;
  const __m512i three = _mm512_set1_epi64(3);
  const __m512d sxy = _mm512_cvtepi64_pd(_mm512_sub_epi64(_mm512_slli_epi64(_mm512_add_epi64(ll, hh), 1), ee));
  const __m512d sx = _mm512_cvtepi64_pd(_mm512_add_epi64(hm, lm));
  const __m512d sxx = _mm512_cvtepi64_pd(_mm512_add_epi64(_mm512_mullo_epi64(hm, three), lm));
  const __m512d sy = _mm512_cvtepi64_pd(_mm512_add_epi64(mh, ml));
  const __m512d syy = _mm512_cvtepi64_pd(_mm512_add_epi64(_mm512_mullo_epi64(mh, three), ml));
  const __m512d n = _mm512_cvtepi64_pd(mm);
  const __m512d cov = _mm512_sub_pd(_mm512_mul_pd(n, sxy), _mm512_mul_pd(sx, sy));
  const __m512d vx = _mm512_sub_pd(_mm512_mul_pd(n, sxx), _mm512_mul_pd(sx, sx));
  const __m512d vy = _mm512_sub_pd(_mm512_mul_pd(n, syy), _mm512_mul_pd(sy, sy));
  const __m512d variances = _mm512_mul_pd(vx, vy);
  const __m512d r2 = _mm512_div_pd(_mm512_mul_pd(cov, cov), variances);
  const __mmask8 undefined = _mm512_cmp_pd_mask(variances, _mm512_setzero_pd(), _CMP_EQ_OQ);
  _mm512_storeu_pd(values, _mm512_mask_blend_pd(undefined, r2, _mm512_set1_pd(std::numeric_limits<double>::quiet_NaN())));
}

}  // namespace snptally::r2

#endif
