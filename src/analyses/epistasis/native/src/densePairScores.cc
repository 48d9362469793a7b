// Scores a dense 2-way epistasis panel (densePairScores.h): per pair the same integers and the same double operations,
// in the same order, as epistasisPairs.ts DensePairScorer and epistasisScores.ts, so each value is the JS path's bits
// (the build passes -ffp-contract=off: no fused multiply-add; x86-64 doubles are SSE2, no extended precision).
#include "densePairScores.h"

#include <algorithm>
#include <functional>

namespace snptally::epistasis {
namespace {

/** core/randomize.ts: RANDOMIZE_MAX and CoMet's randomizer; core/checksum.ts's weight offsets. */
constexpr uint64_t kRandomizeMax = 714025;
constexpr uint64_t kWeightOffsetLow = 956158765;
constexpr uint64_t kWeightOffsetHigh = 842467637;

uint64_t randomize(uint64_t i) { return (4096 * (i % kRandomizeMax) + 150889) % kRandomizeMax; }
uint64_t randomizeStep(uint64_t delta) { return (4096 * (delta % kRandomizeMax)) % kRandomizeMax; }

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
  const uint64_t step_;
};

/** JS Math.min(15.5, Math.max(0, v)) (engineValueOf's clamp): NaN stays NaN, −0 becomes +0. */
double clampEngineValue(double v) {
  if (v != v) return v;
  const double atLeastZero = v > 0 ? v : 0.0;
  return atLeastZero < 15.5 ? atLeastZero : 15.5;
}

/** epistasisScores.ts mutualInformation over `numCell` cells, in its order of operations. */
double mutualInformation(const double* t, double ln2, const int64_t* controls, const int64_t* cases, int numCell) {
  double joint = 0, marginal = 0;
  int64_t numControls = 0, numCases = 0;
  for (int c = 0; c < numCell; c++) {
    joint += t[controls[c]] + t[cases[c]];
    marginal += t[controls[c] + cases[c]];
    numControls += controls[c];
    numCases += cases[c];
  }
  const int64_t total = numControls + numCases;
  if (total == 0) return 0;
  return (joint - marginal - t[numControls] - t[numCases] + t[total]) / (static_cast<double>(total) * ln2);
}

/**
 * interactionInformation, 2-way: MI(AB) − MI(A) − MI(B), A the slower index of the canonical cells (marginal sums of
 * integers: exact in any order, as the JS path's doubles are).
 */
double interactionInformation(const double* t, double ln2, const int64_t* x, const int64_t* y) {
  const double full = mutualInformation(t, ln2, x, y, 9);
  int64_t ax[3], ay[3], bx[3], by[3];
  for (int g = 0; g < 3; g++) {
    ax[g] = x[3 * g] + x[3 * g + 1] + x[3 * g + 2];
    ay[g] = y[3 * g] + y[3 * g + 1] + y[3 * g + 2];
    bx[g] = x[g] + x[g + 3] + x[g + 6];
    by[g] = y[g] + y[g + 3] + y[g + 6];
  }
  return full - mutualInformation(t, ln2, ax, ay, 3) - mutualInformation(t, ln2, bx, by, 3);
}

/** K2's engine value: k2Score's sum cell by cell (lf[a + b + 1] − lf[a] − lf[b]), then 15 − K2·scale clamped. */
double k2Value(const double* lf, double k2Scale, const int64_t* x, const int64_t* y) {
  double sum = lf[x[0] + y[0] + 1] - lf[x[0]] - lf[y[0]];
  for (int c = 1; c < 9; c++) sum += lf[x[c] + y[c] + 1] - lf[x[c]] - lf[y[c]];
  return clampEngineValue(15 - sum * k2Scale);
}

/** Records of one call: the threshold, the writer's bar, tightened by the strongest `topCount` values sent so far. */
class RecordFilter {
 public:
  explicit RecordFilter(const RecordSelection& s) : s_(s), bar_(s.bar), barValue_(s.barValue) {
    if (s.topCount > 0) heap_.reserve(static_cast<size_t>(std::min<int64_t>(s.topCount, 1 << 16)));
  }

  /** Whether the value becomes a record (EntrySink.addTupleValueRow's tests), noting it among the strongest sent. */
  bool keeps(float f) {
    if (s_.hasThreshold && !(static_cast<double>(f) > s_.thresholdValue)) return false;
    if (bar_ == BarKind::kAtLeast && !(f >= barValue_)) return false;
    if (bar_ == BarKind::kAtMost && !(f <= barValue_)) return false;
    if (s_.topCount > 0 && f == f) note(f);
    return true;
  }

 private:
  /**
   * Keeps the topCount strongest values sent (a heap whose front is the weakest): once full, a value weaker than its
   * front can never enter the top N — the writer will hold topCount values at least as strong —, a tie still may.
   */
  void note(float f) {
    const size_t count = static_cast<size_t>(s_.topCount);
    if (s_.topLarger) {
      if (heap_.size() < count) {
        heap_.push_back(f);
        std::push_heap(heap_.begin(), heap_.end(), std::greater<float>());
      } else if (f > heap_.front()) {
        std::pop_heap(heap_.begin(), heap_.end(), std::greater<float>());
        heap_.back() = f;
        std::push_heap(heap_.begin(), heap_.end(), std::greater<float>());
      }
    } else if (heap_.size() < count) {
      heap_.push_back(f);
      std::push_heap(heap_.begin(), heap_.end(), std::less<float>());
    } else if (f < heap_.front()) {
      std::pop_heap(heap_.begin(), heap_.end(), std::less<float>());
      heap_.back() = f;
      std::push_heap(heap_.begin(), heap_.end(), std::less<float>());
    }
    if (heap_.size() < count) return;
    const double weakest = heap_.front();
    if (s_.topLarger) barValue_ = bar_ == BarKind::kNone ? weakest : std::max(barValue_, weakest);
    else barValue_ = bar_ == BarKind::kNone ? weakest : std::min(barValue_, weakest);
    bar_ = s_.topLarger ? BarKind::kAtLeast : BarKind::kAtMost;
  }

  const RecordSelection& s_;
  BarKind bar_;
  double barValue_;
  std::vector<float> heap_;
};

}  // namespace

const char* scoreDensePanel(const DensePanel& panel, const ScoreTables& tables, Score score, const RecordSelection& selection,
                            PanelOutcome& out) {
  const uint32_t* const* t = panel.tallies;
  const double* lf = tables.logFactorial;
  const double* nlogn = tables.nLogN;
  const int64_t controls = panel.controls, cases = panel.cases, nv = panel.numVector;
  RecordFilter filter(selection);
  int64_t x[9], y[9];
  for (int64_t r = 0; r < panel.rowsReal; r++) {
    const int64_t i = panel.rowVectorFirst + r;
    const int64_t c0 = panel.strictUpper ? std::max<int64_t>(0, i + 1 - panel.colVectorFirst) : 0;
    if (c0 >= panel.colsReal) continue;
    const int64_t a0 = panel.rowCounts[4 * r], a1 = panel.rowCounts[4 * r + 1];
    const int64_t b0 = panel.rowCounts[4 * r + 2], b1 = panel.rowCounts[4 * r + 3];
    // Blocks are disjoint ranges of SNPs (or one block, strictUpper): the row SNP is later for all columns or none.
    const bool transposed = i > panel.colVectorFirst + c0;
    // tupleValuePairWeights: uid max·nv + min — left of i a run of step 1, right of it one of step nv.
    const int64_t jFirst = panel.colVectorFirst + c0;
    const int64_t numLeft = std::max<int64_t>(0, std::min(panel.colsReal - c0, i - jFirst));
    WeightRun left(static_cast<uint64_t>(i * nv + jFirst), 1);
    WeightRun right(static_cast<uint64_t>((jFirst + numLeft) * nv + i), static_cast<uint64_t>(nv));
    int64_t negative = 0;
    for (int64_t c = c0, at = r * panel.numCols + c0; c < panel.colsReal; c++, at++) {
      const int32_t* k = panel.colCounts + 4 * c;
      const int64_t ka0 = k[0], ka1 = k[1], kb0 = k[2], kb1 = k[3];
      const int64_t n00 = t[0][at], n01 = t[1][at], n10 = t[2][at], n11 = t[3][at];
      const int64_t m00 = t[4][at], m01 = t[5][at], m10 = t[6][at], m11 = t[7][at];
      // Cells 3·g_row + g_col, or 3·g_col + g_row when the row SNP is the later one (canonical order): transposing
      // swaps the cells 1 ↔ 3, 2 ↔ 6 and 5 ↔ 7.
      x[0] = n00, x[4] = n11, y[0] = m00, y[4] = m11;
      x[1] = transposed ? n10 : n01, x[3] = transposed ? n01 : n10, y[1] = transposed ? m10 : m01, y[3] = transposed ? m01 : m10;
      const int64_t xRow0 = a0 - n00 - n01, xRow1 = a1 - n10 - n11, xCol0 = ka0 - n00 - n10, xCol1 = ka1 - n01 - n11;
      const int64_t yRow0 = b0 - m00 - m01, yRow1 = b1 - m10 - m11, yCol0 = kb0 - m00 - m10, yCol1 = kb1 - m01 - m11;
      x[2] = transposed ? xCol0 : xRow0, x[6] = transposed ? xRow0 : xCol0, x[5] = transposed ? xCol1 : xRow1, x[7] = transposed ? xRow1 : xCol1;
      y[2] = transposed ? yCol0 : yRow0, y[6] = transposed ? yRow0 : yCol0, y[5] = transposed ? yCol1 : yRow1, y[7] = transposed ? yRow1 : yCol1;
      x[8] = controls - a0 - a1 - ka0 - ka1 + x[0] + x[1] + x[3] + x[4];
      y[8] = cases - b0 - b1 - kb0 - kb1 + y[0] + y[1] + y[3] + y[4];
      // Each class's cells sum to its size: non-negative cells are within the score tables.
      int64_t signs = 0;
      for (int cell = 0; cell < 9; cell++) signs |= x[cell] | y[cell];
      negative |= signs;
      if (signs < 0) break;
      double value;
      if (score == Score::kK2) value = k2Value(lf, tables.k2Scale, x, y);
      else if (score == Score::kMI) value = clampEngineValue(mutualInformation(nlogn, tables.ln2, x, y, 9));
      else value = clampEngineValue(interactionInformation(nlogn, tables.ln2, x, y) + 4);
      if (panel.values != nullptr) panel.values[at] = value;
      // ChecksumAccumulator.addEntries: every pair an entry, zeros counted, NaN adds nothing, rv·floor(v·2^56) exact.
      const bool isLeft = c - c0 < numLeft;
      const uint64_t rv = isLeft ? left.weight() : right.weight();
      if (isLeft) left.next();
      else right.next();
      out.entries++;
      if (value == 0) {
        out.zeros++;
      } else if (value == value) {
        if (!(value >= 0 && value < 16)) return "a value outside the checksum's range [0, 16)";
        // v·2^56 < 2^60 is exact; truncation is floor for non-negative values.
        const uint64_t iv = static_cast<uint64_t>(static_cast<int64_t>(value * 72057594037927936.0));
        out.checksumSum += static_cast<unsigned __int128>(rv) * iv;
      }
      if (!selection.writesRecords) continue;
      const float f = static_cast<float>(value);
      if (!filter.keeps(f)) continue;
      uint32_t bits;
      __builtin_memcpy(&bits, &f, sizeof bits);
      out.recordWords.push_back(static_cast<uint32_t>(i));
      out.recordWords.push_back(static_cast<uint32_t>(panel.colVectorFirst + c));
      out.recordWords.push_back(bits);
      out.numRecords++;
    }
    if (negative < 0) return "a pair's tallies exceed its SNPs' genotype counts";
    out.numPairs += static_cast<uint64_t>(panel.colsReal - c0);
  }
  return "";
}

}  // namespace snptally::epistasis
