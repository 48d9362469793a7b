// Dense 2-way epistasis bands (denseBand.h): a panel's columns transposed once, then strips of kTileRows rows, each
// swept in chunks of kChunkCols columns whose tallies (tiles of kTileRows × 8 pairs) are scored at once.
#include "denseBand.h"

#include <immintrin.h>

#include <algorithm>
#include <vector>

#include "pairScoring.h"

namespace snptally::epistasis {
namespace {

/** Rows of a tile: its 4 tallies per row and class stay in zmm registers (24 accumulators, 2 column loads). */
constexpr int kTileRows = 6;
/** Columns of a tile: one per 64-bit lane. */
constexpr int kLanes = 8;
/** Columns a strip tallies before scoring them: 8 groups × 6 rows × 64 u32 = 12 KiB, in L1 with the tiles' inputs. */
constexpr int64_t kChunkCols = 64;
constexpr int64_t kChunkTallies = kTileRows * kChunkCols;

/**
 * A panel's columns' genotype planes, transposed so that a tile's column words lie together: for column group q (8
 * columns, the last padded with zeros), class words w (the controls' class words, then the cases'), genotype x, lane
 * k: words[q·groupStride + (2w + x)·8 + k]; and each column's class genotype counts (4 a column, genotypeCountsOf's).
 */
struct ColumnPlanes {
  std::vector<uint64_t> words;
  int64_t groupStride = 0;
  std::vector<int32_t> counts;
};

/** The band's class word counts: nw[cls] = classWords[cls] end − first. */
struct ClassSpans {
  int64_t nw[2];
};

ClassSpans classSpansOf(const DenseBand& band) {
  return {{band.classWords[0][1] - band.classWords[0][0], band.classWords[1][1] - band.classWords[1][0]}};
}

void transposeColumns(const DenseBand& band, const ClassSpans& spans, int64_t colFirst, int64_t colsReal, ColumnPlanes& out) {
  const int64_t numGroups = (colsReal + kLanes - 1) / kLanes;
  out.groupStride = 2 * kLanes * (spans.nw[0] + spans.nw[1]);
  out.words.resize(static_cast<size_t>(numGroups * out.groupStride));
  out.counts.resize(static_cast<size_t>(4 * colsReal));
  // Padding lanes of the last group: zero tallies, never scored.
  std::fill(out.words.begin() + (numGroups - 1) * out.groupStride, out.words.end(), uint64_t{0});
  for (int64_t c = 0; c < colsReal; c++) {
    const uint64_t* vector = band.cols.words + (colFirst + c) * band.numPlanes * band.words64;
    uint64_t* to = out.words.data() + (c / kLanes) * out.groupStride + c % kLanes;
    for (int cls = 0; cls < 2; cls++) {
      const uint64_t* g0 = vector + band.genotypePlane[cls][0] * band.words64;
      const uint64_t* g1 = vector + band.genotypePlane[cls][1] * band.words64;
      int64_t n0 = 0, n1 = 0;
      for (int64_t w = band.classWords[cls][0]; w < band.classWords[cls][1]; w++, to += 2 * kLanes) {
        to[0] = g0[w];
        to[kLanes] = g1[w];
        n0 += __builtin_popcountll(g0[w]);
        n1 += __builtin_popcountll(g1[w]);
      }
      out.counts[4 * c + 2 * cls] = static_cast<int32_t>(n0);
      out.counts[4 * c + 2 * cls + 1] = static_cast<int32_t>(n1);
    }
  }
}

/** A vector's class genotype counts (g0, g1 of controls, then of cases) from its planes, into counts[0 … 4). */
void countGenotypes(const DenseBand& band, const uint64_t* vector, int32_t* counts) {
  for (int cls = 0; cls < 2; cls++) {
    for (int x = 0; x < 2; x++) {
      const uint64_t* plane = vector + band.genotypePlane[cls][x] * band.words64;
      int64_t n = 0;
      for (int64_t w = band.classWords[cls][0]; w < band.classWords[cls][1]; w++) n += __builtin_popcountll(plane[w]);
      counts[2 * cls + x] = static_cast<int32_t>(n);
    }
  }
}

/** A tile's rows: per row and class, its g0 and g1 planes from the class's first word (rowPlanes[r][2·cls + x]). */
using TileRows = const uint64_t* [kTileRows][4];

/**
 * The 8 tallies of a tile's pairs (rows × one column group), group 4·cls + 2x + y of row r and lane k at
 * tallies[(4·cls + 2x + y)·kChunkTallies + r·kChunkCols + k]: per class and word the rows' words broadcast against
 * the group's 8 columns, AND, VPOPCNTQ, added lane by lane.
 */
__attribute__((target("avx512f,avx512vpopcntdq"))) void tileTalliesAvx512(
    const TileRows& rowPlanes, const uint64_t* group, const ClassSpans& spans, uint32_t* tallies) {
  const uint64_t* col = group;
  for (int cls = 0; cls < 2; cls++) {
    __m512i acc[kTileRows][4];
#pragma GCC unroll 8
    for (int r = 0; r < kTileRows; r++) acc[r][0] = acc[r][1] = acc[r][2] = acc[r][3] = _mm512_setzero_si512();
    const uint64_t* g0[kTileRows];
    const uint64_t* g1[kTileRows];
#pragma GCC unroll 8
    for (int r = 0; r < kTileRows; r++) g0[r] = rowPlanes[r][2 * cls], g1[r] = rowPlanes[r][2 * cls + 1];
    for (int64_t w = 0; w < spans.nw[cls]; w++, col += 2 * kLanes) {
      const __m512i c0 = _mm512_loadu_si512(col), c1 = _mm512_loadu_si512(col + kLanes);
#pragma GCC unroll 8
      for (int r = 0; r < kTileRows; r++) {
        const __m512i b0 = _mm512_set1_epi64(static_cast<long long>(g0[r][w]));
        const __m512i b1 = _mm512_set1_epi64(static_cast<long long>(g1[r][w]));
        acc[r][0] = _mm512_add_epi64(acc[r][0], _mm512_popcnt_epi64(_mm512_and_si512(b0, c0)));
        acc[r][1] = _mm512_add_epi64(acc[r][1], _mm512_popcnt_epi64(_mm512_and_si512(b0, c1)));
        acc[r][2] = _mm512_add_epi64(acc[r][2], _mm512_popcnt_epi64(_mm512_and_si512(b1, c0)));
        acc[r][3] = _mm512_add_epi64(acc[r][3], _mm512_popcnt_epi64(_mm512_and_si512(b1, c1)));
      }
    }
#pragma GCC unroll 8
    for (int r = 0; r < kTileRows; r++) {
#pragma GCC unroll 4
      for (int t = 0; t < 4; t++) {
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(tallies + (4 * cls + t) * kChunkTallies + r * kChunkCols), _mm512_cvtepi64_epi32(acc[r][t]));
      }
    }
  }
}

/** tileTalliesAvx512's tallies by 64-bit popcounts (CPUs without AVX-512 VPOPCNTDQ). */
void tileTalliesScalar(const TileRows& rowPlanes, const uint64_t* group, const ClassSpans& spans, uint32_t* tallies) {
  for (int r = 0; r < kTileRows; r++) {
    for (int k = 0; k < kLanes; k++) {
      const uint64_t* col = group + k;
      for (int cls = 0; cls < 2; cls++) {
        const uint64_t* g0 = rowPlanes[r][2 * cls];
        const uint64_t* g1 = rowPlanes[r][2 * cls + 1];
        uint64_t n[4] = {};
        for (int64_t w = 0; w < spans.nw[cls]; w++, col += 2 * kLanes) {
          n[0] += __builtin_popcountll(g0[w] & col[0]);
          n[1] += __builtin_popcountll(g0[w] & col[kLanes]);
          n[2] += __builtin_popcountll(g1[w] & col[0]);
          n[3] += __builtin_popcountll(g1[w] & col[kLanes]);
        }
        for (int t = 0; t < 4; t++) tallies[(4 * cls + t) * kChunkTallies + r * kChunkCols + k] = static_cast<uint32_t>(n[t]);
      }
    }
  }
}

using TileTallies = void (*)(const TileRows&, const uint64_t*, const ClassSpans&, uint32_t*);

/** What a band's panels share on this thread: scratch kept from call to call (warm, no page faults). */
struct BandScratch {
  ColumnPlanes columns;
  std::vector<double> values;      // a strip's rows' engine values, colsReal each
  std::vector<double> colMI;       // IG: MI of each column SNP
  std::vector<uint64_t> zeroPlane;  // a strip's missing rows
  alignas(64) uint32_t tallies[8 * kChunkTallies];
};

/** Scores panel `p` of the band into `out`. */
const char* scorePanel(const DenseBand& band, const BandPanel& p, const ScoreTables& tables, Score score, const RecordSelection& selection,
                       TileTallies tileTallies, BandScratch& scratch, RecordFilter& filter, PanelOutcome& out) {
  const int64_t rowsReal = std::min(p.numRows, band.rows.numVectorReal - p.rowFirst);
  const int64_t colsReal = std::min(p.numCols, band.cols.numVectorReal - p.colFirst);
  if (rowsReal <= 0 || colsReal <= 0) return "";
  const ClassSpans spans = classSpansOf(band);
  transposeColumns(band, spans, p.colFirst, colsReal, scratch.columns);
  const int32_t* colCounts = scratch.columns.counts.data();
  // Counts within their classes (g0 and g1 disjoint, no bit past the class): the marginals (IG) read the tables at them.
  if (!scoring::countsWithinClasses(colCounts, colsReal, band.controls, band.cases)) return "genotype counts exceed the class sizes";
  if (score == Score::kIG) {
    scratch.colMI.resize(static_cast<size_t>(colsReal));
    for (int64_t c = 0; c < colsReal; c++) scratch.colMI[c] = scoring::snpMutualInformation(tables.nLogN, tables.ln2, colCounts + 4 * c, band.controls, band.cases);
  }
  scratch.values.resize(static_cast<size_t>(kTileRows * colsReal));
  const int64_t colVectorFirst = band.cols.vectorFirst + p.colFirst;
  // The chunk's tallies as scoreRow reads a panel's: group g at tallies[g], row r at r·kChunkCols, its column c.
  DensePanel chunk{};
  for (int g = 0; g < 8; g++) chunk.tallies[g] = scratch.tallies + g * kChunkTallies;
  chunk.numCols = kChunkCols;
  chunk.controls = band.controls;
  chunk.cases = band.cases;
  for (int64_t s0 = 0; s0 < rowsReal; s0 += kTileRows) {
    const int64_t numStripRows = std::min<int64_t>(kTileRows, rowsReal - s0);
    int64_t c0[kTileRows];
    int32_t rowCounts[4 * kTileRows];
    TileRows rowPlanes;
    int64_t stripC0 = colsReal;
    for (int r = 0; r < kTileRows; r++) {
      if (r >= numStripRows) {
        for (int t = 0; t < 4; t++) rowPlanes[r][t] = scratch.zeroPlane.data();
        continue;
      }
      const int64_t i = band.rows.vectorFirst + p.rowFirst + s0 + r;
      // scoreDensePanel's columns: a strictUpper panel's from the row's successor on.
      c0[r] = p.strictUpper ? std::min(colsReal, std::max<int64_t>(0, i + 1 - colVectorFirst)) : 0;
      stripC0 = std::min(stripC0, c0[r]);
      const uint64_t* vector = band.rows.words + (p.rowFirst + s0 + r) * band.numPlanes * band.words64;
      countGenotypes(band, vector, rowCounts + 4 * r);
      for (int cls = 0; cls < 2; cls++) {
        for (int x = 0; x < 2; x++) rowPlanes[r][2 * cls + x] = vector + band.genotypePlane[cls][x] * band.words64 + band.classWords[cls][0];
      }
    }
    if (stripC0 >= colsReal) continue;
    if (!scoring::countsWithinClasses(rowCounts, numStripRows, band.controls, band.cases)) return "genotype counts exceed the class sizes";
    double rowMI[kTileRows] = {};
    for (int r = 0; r < numStripRows && score == Score::kIG; r++) {
      rowMI[r] = scoring::snpMutualInformation(tables.nLogN, tables.ln2, rowCounts + 4 * r, band.controls, band.cases);
    }
    chunk.rowCounts = rowCounts;
    for (int64_t chunk0 = stripC0 / kChunkCols * kChunkCols; chunk0 < colsReal; chunk0 += kChunkCols) {
      const int64_t chunkEnd = std::min(chunk0 + kChunkCols, colsReal);
      for (int64_t q0 = std::max(chunk0, stripC0 / kLanes * kLanes); q0 < chunkEnd; q0 += kLanes) {
        tileTallies(rowPlanes, scratch.columns.words.data() + (q0 / kLanes) * scratch.columns.groupStride, spans, scratch.tallies + (q0 - chunk0));
      }
      chunk.colCounts = colCounts + 4 * chunk0;
      for (int r = 0; r < numStripRows; r++) {
        const int64_t begin = std::max(chunk0, c0[r]);
        if (begin >= chunkEnd) continue;
        const int64_t i = band.rows.vectorFirst + p.rowFirst + s0 + r;
        // Blocks are disjoint ranges of SNPs (or one block, strictUpper): the row SNP is later for all columns or none.
        const bool transposed = i > colVectorFirst + c0[r];
        const scoring::RowMarginals marginals{rowMI[r], scratch.colMI.data() + chunk0};
        double* values = scratch.values.data() + r * colsReal + chunk0;
        // K2 reads the chunk's groups at their fixed distance (scoreRowK2's GroupStride).
        const scoring::RowScorer scoreRow = score != Score::kK2 ? scoring::rowScorerOf(score, transposed)
            : transposed ? scoring::scoreRowK2<true, kChunkTallies> : scoring::scoreRowK2<false, kChunkTallies>;
        if (!scoreRow(chunk, tables, marginals, r, begin - chunk0, chunkEnd - chunk0, values)) {
          return "a pair's tallies exceed its SNPs' genotype counts";
        }
      }
    }
    for (int r = 0; r < numStripRows; r++) {
      if (c0[r] >= colsReal) continue;
      const int64_t i = band.rows.vectorFirst + p.rowFirst + s0 + r;
      const double* values = scratch.values.data() + r * colsReal + c0[r];
      const char* failure = scoring::addScoredRow(i, colVectorFirst + c0[r], colsReal - c0[r], values, band.numVector, selection, filter, out);
      if (failure[0] != '\0') return failure;
    }
  }
  return "";
}

}  // namespace

bool avx512TalliesUsable() {
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vpopcntdq");
}

const char* scoreDenseBand(const DenseBand& band, const ScoreTables& tables, Score score, const RecordSelection& selection,
                           bool allowAvx512, PanelOutcome& out) {
  const TileTallies tileTallies = allowAvx512 && avx512TalliesUsable() ? tileTalliesAvx512 : tileTalliesScalar;
  thread_local BandScratch scratch;
  if (scratch.zeroPlane.size() < static_cast<size_t>(band.words64)) scratch.zeroPlane.assign(static_cast<size_t>(band.words64), 0);
  RecordFilter filter(selection);
  for (int64_t p = 0; p < band.numPanels; p++) {
    const char* failure = scorePanel(band, band.panels[p], tables, score, selection, tileTallies, scratch, filter, out);
    if (failure[0] != '\0') return failure;
  }
  scoring::keepRecordsPassingFinalBar(filter, out);
  return "";
}

}  // namespace snptally::epistasis
