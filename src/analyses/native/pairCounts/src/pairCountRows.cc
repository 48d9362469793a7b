// The native finalize of pair-count rows (pairCountRows.h).
#include "pairCountRows.h"

#include <algorithm>

namespace snptally::paircounts {

namespace {

/** Counts below 2^26 are values count · 2^-22 in [0, 16): the checksum's integer of one is count · 2^34. */
constexpr uint64_t kCountLimit = uint64_t{1} << 26;
constexpr int kCountShift = 56 - 22;

/** A pair's four counts in entry order (a of i, b of j → 2a + b) and its value, from tallies at index t. */
struct PairCounts {
  int64_t counts[4];
  double value;
};

/** KING (king/kingCounts.ts kingPairCounts): hethet, hetHom, homHet, ibs0 and plink2's kinship. */
inline PairCounts kingCounts(const PairCountBlock& b, int64_t t) {
  const int64_t hethet = b.tallies[0][t];
  const int64_t ibs0 = b.tallies[1][t];
  const int64_t hetHom = int64_t{b.tallies[2][t]} - hethet;
  const int64_t homHet = int64_t{b.tallies[3][t]} - hethet;
  // The JS path's doubles, in its order: integers exact, then one division and one subtraction.
  const double numerator = 4.0 * static_cast<double>(ibs0) + static_cast<double>(hetHom) + static_cast<double>(homHet);
  const double denominator = 4.0 * static_cast<double>(hethet + std::min(hetHom, homHet));
  return PairCounts{{hethet, hetHom, homHet, ibs0}, 0.5 - numerator / denominator};
}

/** The distances (distance/ibsCounts.ts): ibs0, the allele-count distance twice, ibs1; the distance of `kind`. */
inline PairCounts distanceCounts(const PairCountBlock& b, int64_t t, bool squared) {
  const int64_t ibs1 = b.tallies[0][t];
  const int64_t ibs0 = b.tallies[1][t];
  const int64_t distance = ibs1 + 2 * ibs0;
  return PairCounts{{ibs0, distance, distance, ibs1}, static_cast<double>(squared ? ibs1 + 4 * ibs0 : distance)};
}

/** The checksum of runs of pairs: Σ weight · count per entry, flushed into the limbs before 128 bits could overflow. */
class CountChecksum {
 public:
  explicit CountChecksum(PairCountOutcome& out) : out_(out) {}
  ~CountChecksum() { flush(); }

  /**
   * A run of `count` pairs whose base uids are baseUid + t·uidStep, counts from `pairOf(t)`; `swapped`: sorted entries
   * 1 and 2 are the pair's entries 2 and 1 (j is the higher coordinate). False when a count is out of range.
   */
  template <typename PairOf>
  bool addRun(uint64_t baseUid, uint64_t uidStep, int64_t count, bool swapped, PairOf pairOf) {
    using native::kRandomizeMax;
    uint64_t low = native::randomize(baseUid + native::kWeightOffsetLow);
    uint64_t high = native::randomize(baseUid + native::kWeightOffsetHigh);
    const uint64_t step = native::randomizeStep(uidStep);
    const uint64_t entryStep = native::randomizeStep(1);
    for (int64_t t = 0; t < count; t++) {
      const int64_t* c = pairOf(t);
      const int64_t sorted[4] = {c[0], swapped ? c[2] : c[1], swapped ? c[1] : c[2], c[3]};
      uint64_t entryLow = low, entryHigh = high;
      for (int e = 0; e < 4; e++) {
        const int64_t q = sorted[e];
        if (q < 0 || static_cast<uint64_t>(q) >= kCountLimit) return false;
        out_.zeros += q == 0 ? 1 : 0;
        sum_ += static_cast<unsigned __int128>(entryLow + kRandomizeMax * entryHigh) * static_cast<uint64_t>(q);
        entryLow += entryStep;
        if (entryLow >= kRandomizeMax) entryLow -= kRandomizeMax;
        entryHigh += entryStep;
        if (entryHigh >= kRandomizeMax) entryHigh -= kRandomizeMax;
      }
      out_.entries += 4;
      // Each product < 2^66 (weight < 2^40, count < 2^26): 2^24 pairs' four sum below 2^92, < 2^126 once shifted.
      if (++sincePairs_ == kPairsPerFlush) flush();
      low += step;
      if (low >= kRandomizeMax) low -= kRandomizeMax;
      high += step;
      if (high >= kRandomizeMax) high -= kRandomizeMax;
    }
    return true;
  }

 private:
  static constexpr int64_t kPairsPerFlush = int64_t{1} << 24;

  void flush() {
    if (sum_ != 0) out_.checksum.add(sum_ << kCountShift);
    sum_ = 0;
    sincePairs_ = 0;
  }

  PairCountOutcome& out_;
  unsigned __int128 sum_ = 0;
  int64_t sincePairs_ = 0;
};

}  // namespace

const char* pairCountRows(PairCountKind kind, const PairCountBlock& b, double* values, PairCountOutcome& out) {
  CountChecksum checksum(out);
  PairCounts pair{};
  const uint64_t nv = static_cast<uint64_t>(b.numVector);
  for (int64_t r = 0; r < b.numRows; r++) {
    const int64_t i = b.rowVector + r;
    const int64_t c0 = b.strictUpper ? std::max<int64_t>(0, r + 1 + b.rowFirst - b.colFirst) : 0;
    if (c0 >= b.numCols) continue;
    const int64_t jFirst = b.colVector + c0;
    const int64_t numPairs = b.numCols - c0;
    const int64_t tFirst = r * b.tallyStride + c0;
    double* rowValues = values + r * b.numCols + c0;
    const auto pairOf = [&](int64_t c) -> const int64_t* {
      const int64_t t = tFirst + c;
      pair = kind == PairCountKind::kKing ? kingCounts(b, t) : distanceCounts(b, t, kind == PairCountKind::kSquaredDistance);
      rowValues[c] = pair.value;
      return pair.counts;
    };
    // Left of i the higher coordinate is i (uids (i·nv + j)·4, step 4); right of it j ((j·nv + i)·4, step 4·nv).
    const int64_t numLeft = std::clamp<int64_t>(i - jFirst, 0, numPairs);
    if (numLeft > 0 && !checksum.addRun((static_cast<uint64_t>(i) * nv + static_cast<uint64_t>(jFirst)) * 4, 4, numLeft, false, pairOf)) {
      return "a count outside [0, 2^26)";
    }
    if (numLeft < numPairs) {
      const int64_t j = jFirst + numLeft;
      const auto rightOf = [&](int64_t c) { return pairOf(numLeft + c); };
      if (!checksum.addRun((static_cast<uint64_t>(j) * nv + static_cast<uint64_t>(i)) * 4, 4 * nv, numPairs - numLeft, true, rightOf)) {
        return "a count outside [0, 2^26)";
      }
    }
    out.numPairs += numPairs;
  }
  return "";
}

}  // namespace snptally::paircounts
