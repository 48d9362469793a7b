// Native r² of a windowed band (r2WindowBand.h): the tallies and r² of r2Tallies.h, a row against its window's columns
// 8 at a time (AVX-512) or one by one (64-bit popcounts).
#include "r2WindowBand.h"

#include <immintrin.h>

#include "r2Tallies.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <vector>

namespace snptally::r2 {
namespace {

/** The 8 tallies of a pair (the header's order: LL, HH, EE, HM, LM, MH, ML, MM). */
constexpr int kNumTallies = 8;


/** r² of a pair from its 8 tallies in the header's order. */
inline double r2OfTallies(const uint64_t* t) {
  return snptally::r2::r2OfTallies(t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7]);
}

/** A row's planes and where the window's columns come from: the columns' planes transposed, word-major. */
struct ColumnsTransposed {
  const uint64_t* words;  // words[(plane·words64 + w)·stride + c − first]
  int64_t first;          // local column of index 0
  int64_t stride;         // columns per word row (padded by 8: whole 8-column loads stay inside)
};

/** r² of row `li` against local columns [c0, c0 + count), count ≤ 8, into values[0 … count), 64-bit popcounts. */
void r2OfColumnsScalar(const Band& band, const uint64_t* row, int64_t c0, int64_t count, double* values) {
  const int64_t words64 = band.words64;
  for (int64_t k = 0; k < count; k++) {
    const uint64_t* col = band.cols.words + (c0 + k) * kNumPlanes * words64;
    uint64_t t[kNumTallies] = {};
    for (int64_t w = 0; w < words64; w++) {
      const uint64_t iH = row[kHom * words64 + w], iL = row[kNonzero * words64 + w], iE = row[kHet * words64 + w], iM = row[kPresent * words64 + w];
      const uint64_t jH = col[kHom * words64 + w], jL = col[kNonzero * words64 + w], jE = col[kHet * words64 + w], jM = col[kPresent * words64 + w];
      t[0] += __builtin_popcountll(iL & jL);
      t[1] += __builtin_popcountll(iH & jH);
      t[2] += __builtin_popcountll(iE & jE);
      t[3] += __builtin_popcountll(iH & jM);
      t[4] += __builtin_popcountll(iL & jM);
      t[5] += __builtin_popcountll(iM & jH);
      t[6] += __builtin_popcountll(iM & jL);
      t[7] += __builtin_popcountll(iM & jM);
    }
    values[k] = r2OfTallies(t);
  }
}

/** r² of row `row` against local columns [c0, c0 + 8) (r2Tallies.h). */
__attribute__((target("avx512f,avx512dq,avx512vpopcntdq"))) void r2Of8ColumnsAvx512(
    const uint64_t* row, int64_t words64, const ColumnsTransposed& cols, int64_t c0, double* values) {
  snptally::r2::r2Of8ColumnsAvx512(row, words64, cols.words + (c0 - cols.first), cols.stride, values);
}

/** Local columns [colBegin, colEnd) of a panel, transposed word-major into `scratch` (8 zero columns after). */
ColumnsTransposed transposeColumns(const Band& band, int64_t colBegin, int64_t colEnd, std::vector<uint64_t>& scratch) {
  const int64_t words64 = band.words64;
  const int64_t stride = colEnd - colBegin + 8;
  const size_t size = static_cast<size_t>(kNumPlanes * words64 * stride);
  if (scratch.size() < size) scratch.resize(size);
  uint64_t* out = scratch.data();
  for (int64_t c = colBegin; c < colEnd; c++) {
    const uint64_t* col = band.cols.words + c * kNumPlanes * words64;
    for (int64_t pw = 0; pw < kNumPlanes * words64; pw++) out[pw * stride + (c - colBegin)] = col[pw];
  }
  for (int64_t pw = 0; pw < kNumPlanes * words64; pw++) std::fill(out + pw * stride + (colEnd - colBegin), out + (pw + 1) * stride, uint64_t{0});
  return {out, colBegin, stride};
}

/** core/pairWindow.ts windowColumnRanges: row v's window columns among [begin, end) (global), v left out; ≤ 3 ranges. */
int windowColumnRanges(const Window& window, int64_t numVector, int64_t v, int64_t begin, int64_t end, int64_t* out) {
  int count = 0;
  const auto push = [&](int64_t a, int64_t b) {
    const int64_t lo = std::max(a, begin), hi = std::min(b, end);
    if (lo < hi) {
      out[2 * count] = lo;
      out[2 * count + 1] = hi;
      count++;
    }
  };
  if (window.interChr) push(0, window.chrBegin[v]);
  push(window.bandBegin[v], v);
  push(v + 1, window.bandEnd[v]);
  if (window.interChr) push(window.chrEnd[v], numVector);
  return count;
}

/**
 * The pairs (i, j) of one window range of row i, j ascending, a chunk of values at a time: EntrySink.addWholePairEntryRow's
 * threshold, checksum (pairRowEntryWeights with entry bits (1, 1): left of i uid (i·nv + j)·4 + 3, step 4; right of it
 * (j·nv + i)·4 + 3, step 4·nv; a range never holds i) and records.
 */
class RangeSink {
 public:
  RangeSink(int64_t i, int64_t jFirst, int64_t numVector, native::RecordFilter& filter, const native::RecordSelection& selection, BandOutcome& out)
      : i_(i), filter_(filter), selection_(selection), out_(out),
        run_(static_cast<uint64_t>(jFirst < i ? (i * numVector + jFirst) * 4 + 3 : (jFirst * numVector + i) * 4 + 3),
             static_cast<uint64_t>(jFirst < i ? 4 : 4 * numVector)) {}

  /** Adds pairs (i, j) for j in [jFirst, jFirst + count) with r² `values`; an empty string or what was wrong. */
  const char* add(int64_t jFirst, int64_t count, const double* values) {
    for (int64_t c = 0; c < count; c++) {
      if (++sinceFlush_ == native::ExactSum::kProductsPerFlush) {
        out_.checksum.add(sum_);
        sum_ = 0;
        sinceFlush_ = 0;
      }
      const double value = values[c];
      const uint64_t rv = run_.weight();
      run_.next();
      const float f = static_cast<float>(value);
      if (!filter_.passesThreshold(f)) continue;
      out_.entries++;
      if (value == 0) {
        out_.zeros++;
      } else if (value == value) {
        if (!(value >= 0 && value < 16)) return "an r² outside the checksum's range [0, 16)";
        sum_ += static_cast<unsigned __int128>(rv) * native::checksumIntegerOf(value);
      }
      if (!selection_.writesRecords || !filter_.keeps(f)) continue;
      if (out_.numRecords == out_.recordCapacity) return "more records than the buffer holds";
      uint32_t* record = out_.recordWords + 3 * out_.numRecords++;
      record[0] = static_cast<uint32_t>(2 * i_ + 1);
      record[1] = static_cast<uint32_t>(2 * (jFirst + c) + 1);
      std::memcpy(&record[2], &f, sizeof f);
    }
    out_.numPairs += static_cast<uint64_t>(count);
    return "";
  }

  ~RangeSink() { out_.checksum.add(sum_); }

 private:
  const int64_t i_;
  native::RecordFilter& filter_;
  const native::RecordSelection& selection_;
  BandOutcome& out_;
  native::WeightRun run_;
  unsigned __int128 sum_ = 0;
  int64_t sinceFlush_ = 0;
};

}  // namespace

bool avx512Usable() {
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vpopcntdq");
}

const char* r2WindowBand(const Band& band, const native::RecordSelection& selection, bool allowAvx512, BandOutcome& out) {
  const bool avx512 = allowAvx512 && avx512Usable();
  thread_local std::vector<uint64_t> scratch;
  native::RecordFilter filter(selection);
  const int64_t words64 = band.words64;
  alignas(64) double values[8];
  int64_t ranges[6];
  for (int64_t p = 0; p < band.numPanels; p++) {
    const Panel& panel = band.panels[p];
    const int64_t rowsReal = std::min(panel.numRows, band.rows.numVectorReal - panel.rowFirst);
    const int64_t panelColEnd = std::min(panel.colFirst + panel.numCols, band.cols.numVectorReal);
    if (rowsReal <= 0 || panel.colFirst >= panelColEnd) continue;
    // The panel's columns transposed once for its rows (a panel: ~100 rows against their window's ~300 columns).
    const ColumnsTransposed transposed = avx512 ? transposeColumns(band, panel.colFirst, panelColEnd, scratch) : ColumnsTransposed{nullptr, 0, 0};
    for (int64_t r = 0; r < rowsReal; r++) {
      const int64_t li = panel.rowFirst + r;
      const int64_t i = band.rows.vectorFirst + li;
      // finalizeR2Pairs's columns: a strictUpper panel's from the row's successor on.
      const int64_t localBegin = panel.strictUpper ? std::max(panel.colFirst, li + 1) : panel.colFirst;
      if (localBegin >= panelColEnd) continue;
      const uint64_t* row = band.rows.words + li * kNumPlanes * words64;
      const int numRanges = windowColumnRanges(band.window, band.numVector, i, band.cols.vectorFirst + localBegin,
                                               band.cols.vectorFirst + panelColEnd, ranges);
      for (int k = 0; k < numRanges; k++) {
        RangeSink sink(i, ranges[2 * k], band.numVector, filter, selection, out);
        for (int64_t j0 = ranges[2 * k]; j0 < ranges[2 * k + 1]; j0 += 8) {
          const int64_t count = std::min<int64_t>(8, ranges[2 * k + 1] - j0);
          const int64_t c0 = j0 - band.cols.vectorFirst;
          if (avx512) r2Of8ColumnsAvx512(row, words64, transposed, c0, values);
          else r2OfColumnsScalar(band, row, c0, count, values);
          const char* failure = sink.add(j0, count, values);
          if (failure[0] != '\0') return failure;
        }
      }
    }
  }
  // A top-N writer's records: only those at or above the bar tightened as they came (recordFilter.h).
  out.numRecords = filter.keepPassingFinalBar(out.recordWords, 3 * out.numRecords, 3) / 3;
  return "";
}

}  // namespace snptally::r2
