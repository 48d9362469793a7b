// PLINK's number text (io/plinkNumberText.ts writePlinkNumber: 6 significant digits, %g-like, PLINK's half-way
// rounding) as a right-aligned column of the `.ld` table, the same bytes by the same double operations on the same
// powers of ten (the caller passes the JS formatter's table). Header only: inlined into the line loop (ldText.cc).
//
// The digits: e is the decimal exponent, scaled = x·10^(5 − e) ∈ [1e5, 1e6), q = scaled rounded half to even with
// the slack. The JS guesses e by floor(log10 x) and corrects once; any guess within one of the true exponent gives the
// same q and e (the correction lands on it, or on the neighbour whose rounding carries to 100000 with the same
// exponent), so here the guess comes from the binary exponent and one comparison. Text is written with fixed-size
// stores: the output needs kNumberSlack bytes past its end.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>


namespace snptally::r2 {

/** Longest number text: sign, 6 digits, '.', 'e', exponent sign and 3 digits (plinkNumberText.ts MAX_NUMBER_TEXT_BYTES). */
constexpr int64_t kMaxNumberBytes = 14;
/** A value column: right-aligned in 12 (wider when the text is), then a space. */
constexpr int64_t kColumnWidth = 12;
/** Bytes past a column's end that its fixed-size stores may touch. */
constexpr int64_t kNumberSlack = 32;

namespace number_text {

/** Half-way zone of the 6th digit's rounding (plinkNumberText.ts HALF_WAY_SLACK). */
constexpr double kHalfWaySlack = 5e-9;

/** "00" … "99". */
struct DigitPairs {
  char text[200];
  constexpr DigitPairs() : text() {
    for (int k = 0; k < 100; k++) {
      text[2 * k] = static_cast<char>('0' + k / 10);
      text[2 * k + 1] = static_cast<char>('0' + k % 10);
    }
  }
};
constexpr DigitPairs kDigitPairs;

/** plinkNumberText.ts scaledBy: x · 10^(5 − e) by the same operations on the same powers. */
inline double scaledBy(double x, int e, const double* powersOfTen) {
  const int shift = 5 - e;
  if (shift < 0) return x / powersOfTen[-shift];
  return shift > 300 ? x * 1e300 * powersOfTen[shift - 300] : x * powersOfTen[shift];
}

/** x > 0, finite: q ∈ [100000, 999999] and e with x ≈ q · 10^(e − 5) (plinkNumberText.ts sixDigits). */
inline void sixDigits(double x, const double* powersOfTen, int64_t& qOut, int& eOut) {
  uint64_t bits;
  std::memcpy(&bits, &x, 8);
  int binaryExponent = static_cast<int>((bits >> 52) & 0x7ff) - 1022;
  if ((bits >> 52 & 0x7ff) == 0) std::frexp(x, &binaryExponent);  // subnormal
  // x ∈ [2^(b−1), 2^b): (b − 1)·log10 2 rounded down (78913 / 2^18 ≈ log10 2: within one for every double's b) is
  // the exponent or one off; one product moves it up where it is below.
  int e = ((binaryExponent - 1) * 78913) >> 18;
  e += scaledBy(x, e + 1, powersOfTen) >= 1e5;  // an add, not a branch: the guess is low about half the time
  double scaled = scaledBy(x, e, powersOfTen);
  if (scaled >= 1e6) scaled = scaledBy(x, ++e, powersOfTen);
  else if (scaled < 1e5) scaled = scaledBy(x, --e, powersOfTen);
  // scaled > 0: truncation is Math.floor (no SSE4.1 round needed).
  int64_t q = static_cast<int64_t>(scaled);
  const double frac = scaled - static_cast<double>(q);
  // Half to even, with the slack: an even q rounds up from 0.5 + slack, an odd one from 0.5 − slack.
  q += frac >= ((q & 1) == 0 ? 0.5 + kHalfWaySlack : 0.5 - kHalfWaySlack);
  if (q >= 1000000) {
    q = 100000;
    e++;
  }
  qOut = q;
  eOut = e;
}

inline void store8(uint8_t* at, uint64_t bytes) { std::memcpy(at, &bytes, 8); }

/** The six digits of q as ASCII in the low 6 bytes (first digit lowest), zeros above: built in a register. */
inline uint64_t digitWord(int64_t q) {
  uint16_t pairs[3];
  std::memcpy(&pairs[0], kDigitPairs.text + 2 * (q / 10000), 2);
  std::memcpy(&pairs[1], kDigitPairs.text + 2 * (q / 100 % 100), 2);
  std::memcpy(&pairs[2], kDigitPairs.text + 2 * (q % 100), 2);
  return uint64_t{pairs[0]} | uint64_t{pairs[1]} << 16 | uint64_t{pairs[2]} << 32;
}

/**
 * x's text right-aligned in a column of kColumnWidth (wider when longer) at `out`, then a space; returns the end. The
 * length is known before any byte is written, so every store goes straight to the output (a text built on the stack
 * and copied was a store-forwarding stall per value).
 */
inline uint8_t* writeColumn(double x, const double* powersOfTen, uint8_t* out) {
  std::memcpy(out, "                ", 16);
  if (std::isnan(x) || std::isinf(x)) {
    const bool negative = x < 0;
    const int64_t length = std::isnan(x) ? 3 : 3 + negative;
    uint8_t* at = out + kColumnWidth - length;
    std::memcpy(at, std::isnan(x) ? "nan" : negative ? "-inf" : "inf", 4);
    at[length] = ' ';
    return at + length + 1;
  }
  if (x == 0) {
    out[kColumnWidth - 1] = '0';
    out[kColumnWidth] = ' ';
    return out + kColumnWidth + 1;
  }
  const int64_t sign = x < 0;
  const double v = sign != 0 ? -x : x;
  int64_t q;
  int e;
  sixDigits(v, powersOfTen, q, e);
  const uint64_t digits = digitWord(q);
  // Significant digits: up to the last digit byte that is not '0' (the first never is: q ≥ 100000).
  const int64_t numDigits = (71 - __builtin_clzll(digits ^ 0x303030303030ull)) / 8;
  const bool exponential = e < -4 || e >= 6;
  const int magnitude = e < 0 ? -e : e;
  int64_t length;
  if (exponential) length = 1 + (numDigits > 1 ? numDigits : 0) + 2 + (magnitude >= 100 ? 3 : 2);
  else if (e < 0) length = 1 - e + numDigits;
  else length = numDigits > e + 1 ? numDigits + 1 : e + 1;
  length += sign;
  uint8_t* at = out + (length < kColumnWidth ? kColumnWidth - length : 0);
  uint8_t* const end = at + length;
  *at = '-';
  at += sign;
  if (exponential) {
    *at++ = static_cast<uint8_t>(digits);
    if (numDigits > 1) {
      *at = '.';
      store8(at + 1, digits >> 8);
      at += numDigits;
    }
    *at++ = 'e';
    *at++ = e < 0 ? '-' : '+';
    if (magnitude >= 100) *at++ = static_cast<uint8_t>('0' + magnitude / 100);
    std::memcpy(at, kDigitPairs.text + 2 * (magnitude % 100), 2);
  } else if (e < 0) {
    // 0.000ddd: "0." and −e − 1 zeros, then the digits (overlapping stores; the length says what counts).
    store8(at, 0x3030303030302e30ull);
    store8(at + 1 - e, digits);
  } else {
    // e + 1 digits, then the point and the rest when there is a rest.
    store8(at, digits);
    if (numDigits > e + 1) {
      at[e + 1] = '.';
      store8(at + e + 2, digits >> (8 * (e + 1)));
    }
  }
  *end = ' ';
  return end + 1;
}

}  // namespace number_text

/** x's column of the table (number_text::writeColumn). */
inline uint8_t* writeNumberColumn(double x, const double* powersOfTen, uint8_t* out) { return number_text::writeColumn(x, powersOfTen, out); }

}  // namespace snptally::r2
