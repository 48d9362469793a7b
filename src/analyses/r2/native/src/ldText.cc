// PLINK's `.ld` table in bulk (ldText.h). Codes → planes a byte (4 fields) at a time through a table; a pair's tallies
// by 64-bit popcounts of plane ANDs (the pairs of a table come one by one, not as panels: no transposed columns);
// PLINK's number text by ldNumberText.h (built with -ffp-contract=off).
#include "ldText.h"

#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "ldNumberText.h"
#include "r2Tallies.h"
#include "r2WindowBand.h"

namespace snptally::r2 {
namespace {

/** Per byte of codes (4 fields): the nibble of low code bits and the nibble of high code bits. */
struct NibbleTable {
  uint8_t low[256], high[256];
  NibbleTable() {
    for (int b = 0; b < 256; b++) {
      low[b] = high[b] = 0;
      for (int f = 0; f < 4; f++) {
        low[b] |= static_cast<uint8_t>(((b >> (2 * f)) & 1) << f);
        high[b] |= static_cast<uint8_t>(((b >> (2 * f + 1)) & 1) << f);
      }
    }
  }
};
const NibbleTable kNibbles;


inline const uint64_t* planesOf(const LdPlanes& planes, uint32_t snp) {
  return planes.words + (static_cast<int64_t>(snp) - planes.snpFirst) * kNumLdPlanes * planes.words64;
}

}  // namespace

void ldPlanesOfCodes(const CodeSpan& span, uint64_t* out) {
  const int64_t words64 = ldWords64(span.numField);
  for (int64_t s = 0; s < span.numSnps; s++) {
    const uint8_t* row = span.codes + s * span.rowBytes;
    uint64_t* planes = out + s * kNumLdPlanes * words64;
    for (int64_t w = 0; w < words64; w++) {
      // Fields [64w, 64w + 64): 16 bytes of codes (fewer in the last word; missing bytes are padding).
      uint64_t low = 0, high = 0;
      const int64_t firstByte = 16 * w;
      const int64_t numBytes = std::min<int64_t>(16, span.rowBytes - firstByte);
      for (int64_t k = 0; k < numBytes; k++) {
        const uint8_t byte = row[firstByte + k];
        low |= static_cast<uint64_t>(kNibbles.low[byte]) << (4 * k);
        high |= static_cast<uint64_t>(kNibbles.high[byte]) << (4 * k);
      }
      const int64_t fieldsHere = std::min<int64_t>(64, span.numField - 64 * w);
      const uint64_t real = fieldsHere == 64 ? ~uint64_t{0} : (uint64_t{1} << fieldsHere) - 1;
      // Codes 00 → 0 copies, 01 → 1, 11 → 2, 10 → missing (SPEC §1).
      const uint64_t present = ~(high & ~low) & real;
      planes[kHom * words64 + w] = low & high & real;
      planes[kNonzero * words64 + w] = low & real;
      planes[kHet * words64 + w] = low & ~high & real;
      planes[kPresent * words64 + w] = present;
    }
  }
}

namespace {


/** Lane k = the sum of vk's lanes: three rounds of pairwise shuffles and adds (21 operations, not 8 full reductions). */
__attribute__((target("avx512f"))) inline __m512i sumsOf8(__m512i v0, __m512i v1, __m512i v2, __m512i v3, __m512i v4, __m512i v5, __m512i v6, __m512i v7) {
  // Per 128-bit lane: (v0, v1) half-sums, …
  const __m512i a = _mm512_add_epi64(_mm512_unpacklo_epi64(v0, v1), _mm512_unpackhi_epi64(v0, v1));
  const __m512i b = _mm512_add_epi64(_mm512_unpacklo_epi64(v2, v3), _mm512_unpackhi_epi64(v2, v3));
  const __m512i c = _mm512_add_epi64(_mm512_unpacklo_epi64(v4, v5), _mm512_unpackhi_epi64(v4, v5));
  const __m512i d = _mm512_add_epi64(_mm512_unpacklo_epi64(v6, v7), _mm512_unpackhi_epi64(v6, v7));
  // 128-bit lanes: a's lanes 0+1, 2+3, then b's.
  const __m512i ab = _mm512_add_epi64(_mm512_shuffle_i64x2(a, b, _MM_SHUFFLE(2, 0, 2, 0)), _mm512_shuffle_i64x2(a, b, _MM_SHUFFLE(3, 1, 3, 1)));
  const __m512i cd = _mm512_add_epi64(_mm512_shuffle_i64x2(c, d, _MM_SHUFFLE(2, 0, 2, 0)), _mm512_shuffle_i64x2(c, d, _MM_SHUFFLE(3, 1, 3, 1)));
  // 128-bit lanes: (v0, v1), (v2, v3), (v4, v5), (v6, v7) totals.
  return _mm512_add_epi64(_mm512_shuffle_i64x2(ab, cd, _MM_SHUFFLE(2, 0, 2, 0)), _mm512_shuffle_i64x2(ab, cd, _MM_SHUFFLE(3, 1, 3, 1)));
}

/** One pair's r² with AVX-512: 8 words of each plane a step (the last step masked), one accumulator per tally. */
__attribute__((target("avx512f,avx512dq,avx512vpopcntdq"))) inline double r2OfPairAvx512(const uint64_t* a, const uint64_t* b, int64_t n64) {
  TallyLanes t = TallyLanes::zero();
  for (int64_t w = 0; w < n64; w += 8) {
    const __mmask8 mask = n64 - w >= 8 ? 0xff : static_cast<__mmask8>((1u << (n64 - w)) - 1);
    const __m512i aH = _mm512_maskz_loadu_epi64(mask, a + kHom * n64 + w), aL = _mm512_maskz_loadu_epi64(mask, a + kNonzero * n64 + w);
    const __m512i aE = _mm512_maskz_loadu_epi64(mask, a + kHet * n64 + w), aM = _mm512_maskz_loadu_epi64(mask, a + kPresent * n64 + w);
    const __m512i bH = _mm512_maskz_loadu_epi64(mask, b + kHom * n64 + w), bL = _mm512_maskz_loadu_epi64(mask, b + kNonzero * n64 + w);
    const __m512i bE = _mm512_maskz_loadu_epi64(mask, b + kHet * n64 + w), bM = _mm512_maskz_loadu_epi64(mask, b + kPresent * n64 + w);
    t.add(aH, aL, aE, aM, bH, bL, bE, bM);
  }
  alignas(64) uint64_t sums[8];
  _mm512_store_si512(sums, sumsOf8(t.ll, t.hh, t.ee, t.hm, t.lm, t.mh, t.ml, t.mm));
  return r2OfTallies(sums[0], sums[1], sums[2], sums[3], sums[4], sums[5], sums[6], sums[7]);
}


/** Whether pairs p … p + 7 are one SNP against 8 consecutive ones (a window's rows are mostly such runs). */
inline bool isRunOf8(const uint32_t* pairs, int64_t p) {
  const uint32_t a = pairs[2 * p], b = pairs[2 * p + 1];
  for (int k = 1; k < 8; k++) {
    if (pairs[2 * (p + k)] != a || pairs[2 * (p + k) + 1] != b + static_cast<uint32_t>(k)) return false;
  }
  return true;
}

/**
 * ldR2OfPairs with AVX-512: runs of 8 against the span's planes transposed word-major (when the span is small next to
 * the pairs: a window's batch is, a batch of scattered inter-chr records may not be), other pairs one by one.
 */
__attribute__((target("avx512f,avx512dq,avx512vpopcntdq"))) void ldR2OfPairsAvx512(
    const LdPlanes& planes, const uint32_t* pairs, int64_t numPairs, double* values) {
  const int64_t n64 = planes.words64;
  const int64_t stride = planes.numSnps + 8;
  thread_local std::vector<uint64_t> transposed;
  const bool runs = planes.numSnps * kNumLdPlanes * n64 <= numPairs * 8;
  if (runs) {
    // Columns s of plane word pw at transposed[pw·stride + s]; 8 zero columns after the last (whole loads stay inside).
    transposed.assign(static_cast<size_t>(kNumLdPlanes * n64 * stride), 0);
    for (int64_t s = 0; s < planes.numSnps; s++) {
      const uint64_t* snp = planes.words + s * kNumLdPlanes * n64;
      for (int64_t pw = 0; pw < kNumLdPlanes * n64; pw++) transposed[static_cast<size_t>(pw * stride + s)] = snp[pw];
    }
  }
  for (int64_t p = 0; p < numPairs;) {
    if (runs && p + 8 <= numPairs && isRunOf8(pairs, p)) {
      r2Of8ColumnsAvx512(planesOf(planes, pairs[2 * p]), n64, transposed.data() + (pairs[2 * p + 1] - planes.snpFirst), stride, values + p);
      p += 8;
    } else {
      values[p] = r2OfPairAvx512(planesOf(planes, pairs[2 * p]), planesOf(planes, pairs[2 * p + 1]), n64);
      p++;
    }
  }
}

}  // namespace

void ldR2OfPairs(const LdPlanes& planes, const uint32_t* pairs, int64_t numPairs, double* values, bool allowAvx512) {
  if (allowAvx512 && avx512Usable()) {
    ldR2OfPairsAvx512(planes, pairs, numPairs, values);
    return;
  }
  const int64_t n64 = planes.words64;
  for (int64_t p = 0; p < numPairs; p++) {
    const uint64_t* a = planesOf(planes, pairs[2 * p]);
    const uint64_t* b = planesOf(planes, pairs[2 * p + 1]);
    // r2WindowBand.cc's tallies: LL, HH, EE, HM, LM, MH, ML, MM.
    uint64_t ll = 0, hh = 0, ee = 0, hm = 0, lm = 0, mh = 0, ml = 0, mm = 0;
    for (int64_t w = 0; w < n64; w++) {
      const uint64_t aH = a[kHom * n64 + w], aL = a[kNonzero * n64 + w], aE = a[kHet * n64 + w], aM = a[kPresent * n64 + w];
      const uint64_t bH = b[kHom * n64 + w], bL = b[kNonzero * n64 + w], bE = b[kHet * n64 + w], bM = b[kPresent * n64 + w];
      ll += __builtin_popcountll(aL & bL);
      hh += __builtin_popcountll(aH & bH);
      ee += __builtin_popcountll(aE & bE);
      hm += __builtin_popcountll(aH & bM);
      lm += __builtin_popcountll(aL & bM);
      mh += __builtin_popcountll(aM & bH);
      ml += __builtin_popcountll(aM & bL);
      mm += __builtin_popcountll(aM & bM);
    }
    // dosageR2's n, Sx, Sy, Sxx, Syy, Sxy of the table.
    values[p] = r2OfTallies(ll, hh, ee, hm, lm, mh, ml, mm);
  }
}

void ldTablesOfPairs(const LdPlanes& planes, const uint32_t* pairs, int64_t numPairs, uint32_t* counts) {
  const int64_t n64 = planes.words64;
  for (int64_t p = 0; p < numPairs; p++) {
    const uint64_t* a = planesOf(planes, pairs[2 * p]);
    const uint64_t* b = planesOf(planes, pairs[2 * p + 1]);
    uint64_t c[9] = {};
    for (int64_t w = 0; w < n64; w++) {
      // Copies 0, 1, 2: PRESENT ∧ ¬NONZERO, HET, HOM.
      const uint64_t aCopies[3] = {a[kPresent * n64 + w] & ~a[kNonzero * n64 + w], a[kHet * n64 + w], a[kHom * n64 + w]};
      const uint64_t bCopies[3] = {b[kPresent * n64 + w] & ~b[kNonzero * n64 + w], b[kHet * n64 + w], b[kHom * n64 + w]};
      for (int x = 0; x < 3; x++) {
        for (int y = 0; y < 3; y++) c[3 * x + y] += __builtin_popcountll(aCopies[x] & bCopies[y]);
      }
    }
    for (int k = 0; k < 9; k++) counts[9 * p + k] = static_cast<uint32_t>(c[k]);
  }
}

int64_t ldMaxLineBytes(const LdLineParts& parts, int64_t numSnps) {
  int64_t longestLocus = 0;
  for (int64_t s = 0; s < numSnps; s++) longestLocus = std::max<int64_t>(longestLocus, parts.lociOffsets[s + 1] - parts.lociOffsets[s]);
  return 2 * longestLocus + 2 * (std::max(kColumnWidth, kMaxNumberBytes) + 1) + 1;
}

int64_t ldTableLines(const LdLineParts& parts, const uint32_t* pairs, const double* values, const double* extras, int64_t numPairs,
                     double minR2, uint8_t* out, int64_t* numLines) {
  uint8_t* p = out;
  int64_t lines = 0;
  for (int64_t k = 0; k < numPairs; k++) {
    const double value = values[k];
    // PLINK's test: NaN never passes.
    if (!(value >= minR2)) continue;
    for (int side = 0; side < 2; side++) {
      // 32 bytes a store: the loci and the output have kLdTextSlack bytes of room past their ends.
      const uint32_t snp = pairs[2 * k + side];
      const uint8_t* locus = parts.lociBytes + parts.lociOffsets[snp];
      const uint32_t length = parts.lociOffsets[snp + 1] - parts.lociOffsets[snp];
      for (uint32_t at = 0; at < length; at += 32) std::memcpy(p + at, locus + at, 32);
      p += length;
    }
    p = writeNumberColumn(value, parts.powersOfTen, p);
    if (extras != nullptr) p = writeNumberColumn(extras[k], parts.powersOfTen, p);
    *p++ = '\n';
    lines++;
  }
  *numLines = lines;
  return p - out;
}

}  // namespace snptally::r2
