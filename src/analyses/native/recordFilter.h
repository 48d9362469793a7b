// Which values of a native finalize become records (analyses/tupleRecordSelection.ts, EntrySink's threshold and a
// top-N writer's bar), shared by the analyses' native finalizers. Header only.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <vector>

namespace snptally::native {

enum class BarKind { kNone, kAtLeast, kAtMost };

/** Which values become records: the sink's single threshold and a top-N writer's bar and count. */
struct RecordSelection {
  bool writesRecords;
  bool hasThreshold;       // single threshold: float32(value) > thresholdValue
  double thresholdValue;
  BarKind bar;             // the writer's bar when called (inclusive), or none
  double barValue;         // a float32 value
  int64_t topCount;        // the writer keeps this many (0: not a top-N writer)
  bool topLarger;          // its larger values are stronger
};

/** Records of one call: the threshold, the writer's bar, tightened by the strongest `topCount` values sent so far. */
class RecordFilter {
 public:
  explicit RecordFilter(const RecordSelection& s) : s_(s), bar_(s.bar), barValue_(s.barValue) {
    if (s.topCount > 0) heap_.reserve(static_cast<size_t>(std::min<int64_t>(s.topCount, 1 << 16)));
  }

  /** Whether a float32 value passes the threshold (NaN never does). */
  bool passesThreshold(float f) const { return !s_.hasThreshold || static_cast<double>(f) > s_.thresholdValue; }

  /** Whether the value becomes a record (EntrySink.addTupleValueRow's tests), noting it among the strongest sent. */
  bool keeps(float f) {
    if (!passesThreshold(f)) return false;
    if (!passesBar(f)) return false;
    if (s_.topCount > 0 && f == f) note(f);
    return true;
  }

  /** Whether a value passes the bar as it stands (inclusive; NaN never passes a bar). */
  bool passesBar(float f) const {
    if (bar_ == BarKind::kAtLeast) return f >= barValue_;
    if (bar_ == BarKind::kAtMost) return f <= barValue_;
    return true;
  }

  /**
   * A top-N writer's records (`stride` words each, the value's float32 bits last): the bar tightened as they came; a
   * record below the final bar is beaten by N records sent with it, so only those at or above it stay, in order.
   * Returns the words kept.
   */
  size_t keepPassingFinalBar(uint32_t* words, size_t numWords, size_t stride) const {
    if (s_.topCount == 0) return numWords;
    size_t kept = 0;
    for (size_t at = 0; at < numWords; at += stride) {
      float f;
      __builtin_memcpy(&f, &words[at + stride - 1], sizeof f);
      if (!passesBar(f)) continue;
      std::copy(words + at, words + at + stride, words + kept);
      kept += stride;
    }
    return kept;
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

}  // namespace snptally::native
