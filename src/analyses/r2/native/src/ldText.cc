// PLINK's `.ld` table in bulk (ldText.h). Codes → planes a byte (4 fields) at a time through a table; a pair's tallies
// by 64-bit popcounts of plane ANDs (the pairs of a table come one by one, not as panels: no transposed columns);
// PLINK's number text by plinkNumberText.ts's arithmetic, operation for operation (built with -ffp-contract=off).
#include "ldText.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace snptally::r2 {
namespace {

enum Plane { kHom = 0, kNonzero = 1, kHet = 2, kPresent = 3 };

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

/** r2Values.ts r2FromSums: the same double operations in the same order; 0/0 is the positive NaN literal. */
inline double r2FromSums(double n, double sx, double sy, double sxx, double syy, double sxy) {
  const double cov = n * sxy - sx * sy;
  const double vx = n * sxx - sx * sx;
  const double vy = n * syy - sy * sy;
  const double variances = vx * vy;
  return variances == 0 ? std::numeric_limits<double>::quiet_NaN() : (cov * cov) / variances;
}

inline const uint64_t* planesOf(const LdPlanes& planes, uint32_t snp) {
  return planes.words + (static_cast<int64_t>(snp) - planes.snpFirst) * kNumLdPlanes * planes.words64;
}

/** Half-way zone of the 6th digit's rounding (plinkNumberText.ts HALF_WAY_SLACK). */
constexpr double kHalfWaySlack = 5e-9;

/** plinkNumberText.ts scaledBy: x · 10^(5 − e) by the same operations on the same powers. */
inline double scaledBy(double x, int e, const LdLineParts& parts) {
  const int shift = 5 - e;
  if (shift < 0) return x / parts.powersOfTen[-shift];
  return shift > 300 ? x * 1e300 * parts.powersOfTen[shift - 300] : x * parts.powersOfTen[shift];
}

inline uint8_t* copyText(uint8_t* out, const char* text) {
  const size_t length = std::strlen(text);
  std::memcpy(out, text, length);
  return out + length;
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

void ldR2OfPairs(const LdPlanes& planes, const uint32_t* pairs, int64_t numPairs, double* values) {
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
    // Integer sums first (exact), then r2FromSums: dosageR2's n, Sx, Sy, Sxx, Syy, Sxy of the table.
    values[p] = r2FromSums(static_cast<double>(mm), static_cast<double>(hm + lm), static_cast<double>(mh + ml),
                           static_cast<double>(3 * hm + lm), static_cast<double>(3 * mh + ml),
                           static_cast<double>(static_cast<int64_t>(2 * (ll + hh)) - static_cast<int64_t>(ee)));
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

int64_t writePlinkNumber(double x, const LdLineParts& parts, uint8_t* out) {
  uint8_t* p = out;
  if (std::isnan(x)) return copyText(p, "nan") - out;
  double v = x;
  if (v < 0) {
    *p++ = '-';
    v = -v;
  }
  if (v == 0) {
    *p++ = '0';
    return p - out;
  }
  if (std::isinf(v)) return copyText(p, "inf") - out;
  // plinkNumberText.ts sixDigits: log10 may be off by one next to powers of ten, corrected once.
  int e = static_cast<int>(std::floor(std::log10(v)));
  double scaled = scaledBy(v, e, parts);
  if (scaled >= 1e6) scaled = scaledBy(v, ++e, parts);
  else if (scaled < 1e5) scaled = scaledBy(v, --e, parts);
  double qDouble = std::floor(scaled);
  const double frac = scaled - qDouble;
  int64_t q = static_cast<int64_t>(qDouble);
  if (frac >= ((q & 1) == 0 ? 0.5 + kHalfWaySlack : 0.5 - kHalfWaySlack)) q++;
  if (q >= 1000000) {
    q = 100000;
    e++;
  }
  uint8_t digits[6];
  for (int k = 5; k >= 0; k--) {
    digits[k] = static_cast<uint8_t>(q % 10);
    q /= 10;
  }
  int numDigits = 6;
  while (numDigits > 1 && digits[numDigits - 1] == 0) numDigits--;
  if (e < -4 || e >= 6) {
    *p++ = static_cast<uint8_t>('0' + digits[0]);
    if (numDigits > 1) {
      *p++ = '.';
      for (int k = 1; k < numDigits; k++) *p++ = static_cast<uint8_t>('0' + digits[k]);
    }
    *p++ = 'e';
    *p++ = e < 0 ? '-' : '+';
    const int magnitude = e < 0 ? -e : e;
    if (magnitude >= 100) *p++ = static_cast<uint8_t>('0' + magnitude / 100);
    *p++ = static_cast<uint8_t>('0' + (magnitude % 100) / 10);
    *p++ = static_cast<uint8_t>('0' + magnitude % 10);
    return p - out;
  }
  if (e < 0) {
    *p++ = '0';
    *p++ = '.';
    for (int k = 0; k < -e - 1; k++) *p++ = '0';
    for (int k = 0; k < numDigits; k++) *p++ = static_cast<uint8_t>('0' + digits[k]);
    return p - out;
  }
  for (int k = 0; k <= e; k++) *p++ = static_cast<uint8_t>('0' + digits[k]);
  if (numDigits > e + 1) {
    *p++ = '.';
    for (int k = e + 1; k < numDigits; k++) *p++ = static_cast<uint8_t>('0' + digits[k]);
  }
  return p - out;
}

namespace {

/** Longest number text: sign, 6 digits, '.', 'e', exponent sign and 3 digits (plinkNumberText.ts MAX_NUMBER_TEXT_BYTES). */
constexpr int64_t kMaxNumberBytes = 14;
/** A value column: right-aligned in 12 (wider when the text is), then a space. */
constexpr int64_t kColumnWidth = 12;

inline uint8_t* writeColumn(double x, const LdLineParts& parts, uint8_t* out) {
  uint8_t text[16];
  const int64_t length = writePlinkNumber(x, parts, text);
  for (int64_t k = length; k < kColumnWidth; k++) *out++ = ' ';
  std::memcpy(out, text, static_cast<size_t>(length));
  out += length;
  *out++ = ' ';
  return out;
}

}  // namespace

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
      const uint32_t snp = pairs[2 * k + side];
      const uint32_t begin = parts.lociOffsets[snp], length = parts.lociOffsets[snp + 1] - begin;
      std::memcpy(p, parts.lociBytes + begin, length);
      p += length;
    }
    p = writeColumn(value, parts, p);
    if (extras != nullptr) p = writeColumn(extras[k], parts, p);
    *p++ = '\n';
    lines++;
  }
  *numLines = lines;
  return p - out;
}

}  // namespace snptally::r2
