// The exact checksum of core/checksum.ts in native code, shared by the analyses' native finalizers (epistasis's pair
// scorer, r²'s window bands): weights stepped along a run of uids (entryWeightsAlongRun) and the sum Σ rv·iv kept
// exactly, returned as ChecksumAccumulator.merge's 20-bit limbs. Header only.
#pragma once

#include <cstdint>

namespace snptally::native {

/** core/randomize.ts: RANDOMIZE_MAX and CoMet's randomizer; core/checksum.ts's weight offsets. */
constexpr uint64_t kRandomizeMax = 714025;
constexpr uint64_t kWeightOffsetLow = 956158765;
constexpr uint64_t kWeightOffsetHigh = 842467637;

inline uint64_t randomize(uint64_t i) { return (4096 * (i % kRandomizeMax) + 150889) % kRandomizeMax; }
inline uint64_t randomizeStep(uint64_t delta) { return (4096 * (delta % kRandomizeMax)) % kRandomizeMax; }

/**
 * The checksum weights of a run of uids uid0 + t·uidStep (core/checksum.ts entryWeightsAlongRun): both randomizes of
 * a weight grow by one constant step modulo RANDOMIZE_MAX.
 */
class WeightRun {
 public:
  WeightRun(uint64_t uid, uint64_t uidStep)
      : low_(randomize(uid + kWeightOffsetLow)), high_(randomize(uid + kWeightOffsetHigh)), step_(randomizeStep(uidStep)) {}
  uint64_t weight() const { return low_ + kRandomizeMax * high_; }
  void next() {
    low_ += step_;
    if (low_ >= kRandomizeMax) low_ -= kRandomizeMax;
    high_ += step_;
    if (high_ >= kRandomizeMax) high_ -= kRandomizeMax;
  }

 private:
  uint64_t low_, high_;
  uint64_t step_;
};

/** ChecksumAccumulator's iv of a value in [0, 16): floor(v·2^56), exact (v·2^56 < 2^60; truncation is floor here). */
inline uint64_t checksumIntegerOf(double value) { return static_cast<uint64_t>(static_cast<int64_t>(value * 72057594037927936.0)); }

/**
 * An exact sum of products rv·iv (< 2^100 each) as core/checksum.ts's 20-bit limbs: products add up in 128 bits, at
 * most 2^24 of them (< 2^124) before they go to the limbs.
 */
class ExactSum {
 public:
  static constexpr int kLimbs = 8;  // core/checksum.ts CHECKSUM_LIMBS
  static constexpr int64_t kProductsPerFlush = int64_t{1} << 24;

  /** Adds a sum of at most kProductsPerFlush products. */
  void add(unsigned __int128 partial) {
    for (int t = 0; t < kLimbs; t++) limbs_[t] += static_cast<uint64_t>(partial >> (20 * t)) & 0xFFFFF;
  }
  /** The limbs with carries moved up: each below 2^20 but the top one. */
  void normalizedLimbs(double* out) const {
    uint64_t carry = 0;
    for (int t = 0; t < kLimbs; t++) {
      const uint64_t limb = limbs_[t] + carry;
      carry = t + 1 < kLimbs ? limb >> 20 : 0;
      out[t] = static_cast<double>(t + 1 < kLimbs ? limb & 0xFFFFF : limb);
    }
  }

 private:
  uint64_t limbs_[kLimbs] = {};
};

/** What every native finalize sums for its caller (napiArguments.h checksumResultOf): the checksum part and counts. */
struct ChecksumPart {
  ExactSum checksum;
  uint64_t entries = 0;
  uint64_t zeros = 0;
  uint64_t numPairs = 0;
};

}  // namespace snptally::native
