// A dense 2-way epistasis pair's table and score, and a scored row's checksum and records, shared by the panel scorer
// (densePairScores.cc: tallies from the GEMM) and the fused bands (denseBand.cc: tallies computed in the same call).
// Per pair the same integers and the same double operations, in the same order, as epistasisPairs.ts DensePairScorer
// and epistasisScores.ts, so each value is the JS path's bits (the build passes -ffp-contract=off: no fused
// multiply-add; x86-64 doubles are SSE2, no extended precision). Header only, internal to the addon.
#pragma once

#include <algorithm>
#include <cstdint>

#include "densePairScores.h"

namespace snptally::epistasis::scoring {

/** JS Math.min(15.5, Math.max(0, v)) (engineValueOf's clamp): NaN stays NaN, −0 becomes +0. */
inline double clampEngineValue(double v) {
  if (v != v) return v;
  const double atLeastZero = v > 0 ? v : 0.0;
  return atLeastZero < 15.5 ? atLeastZero : 15.5;
}

/** A pair's table, cells in canonical order: x[c] controls, y[c] cases (int64: indices of the score tables). */
struct PairTable {
  int64_t x[9];
  int64_t y[9];
};

/**
 * The table of pair (row r, column c) (epistasisPairs.ts DensePairScorer's integers): cells 3·g_row + g_col, or
 * 3·g_col + g_row when the row SNP is the later one (canonical order, `Transposed`: the cells 1 ↔ 3, 2 ↔ 6 and 5 ↔ 7
 * trade places). Returns false when a cell is negative (tallies inconsistent with the counts); as each class's cells
 * sum to its size, non-negative cells are within the score tables.
 */
template <bool Transposed>
inline bool tableOf(const DensePanel& panel, const int64_t (&rowCounts)[4], int64_t r, int64_t c, PairTable& table) {
  const uint32_t* const* t = panel.tallies;
  const int64_t at = r * panel.numCols + c;
  const int32_t* k = panel.colCounts + 4 * c;
  const int64_t a0 = rowCounts[0], a1 = rowCounts[1], b0 = rowCounts[2], b1 = rowCounts[3];
  const int64_t ka0 = k[0], ka1 = k[1], kb0 = k[2], kb1 = k[3];
  const int64_t n00 = t[0][at], n01 = t[1][at], n10 = t[2][at], n11 = t[3][at];
  const int64_t m00 = t[4][at], m01 = t[5][at], m10 = t[6][at], m11 = t[7][at];
  int64_t* x = table.x;
  int64_t* y = table.y;
  x[0] = n00, x[4] = n11, y[0] = m00, y[4] = m11;
  x[Transposed ? 3 : 1] = n01, x[Transposed ? 1 : 3] = n10, y[Transposed ? 3 : 1] = m01, y[Transposed ? 1 : 3] = m10;
  x[Transposed ? 6 : 2] = a0 - n00 - n01, x[Transposed ? 2 : 6] = ka0 - n00 - n10;
  x[Transposed ? 7 : 5] = a1 - n10 - n11, x[Transposed ? 5 : 7] = ka1 - n01 - n11;
  y[Transposed ? 6 : 2] = b0 - m00 - m01, y[Transposed ? 2 : 6] = kb0 - m00 - m10;
  y[Transposed ? 7 : 5] = b1 - m10 - m11, y[Transposed ? 5 : 7] = kb1 - m01 - m11;
  x[8] = panel.controls - a0 - a1 - ka0 - ka1 + x[0] + x[1] + x[3] + x[4];
  y[8] = panel.cases - b0 - b1 - kb0 - kb1 + y[0] + y[1] + y[3] + y[4];
  return (x[2] | x[5] | x[6] | x[7] | x[8] | y[2] | y[5] | y[6] | y[7] | y[8]) >= 0;
}

/**
 * epistasisScores.ts mutualInformation over `numCell` cells, in its order of operations. Its class sums Σ controls and
 * Σ cases are the class sizes `numControls`, `numCases` for every table of the panel (and its marginals).
 */
template <int NumCell>
inline double mutualInformation(const double* t, double ln2, const int64_t* controls, const int64_t* cases, int64_t numControls, int64_t numCases) {
  double joint = 0, marginal = 0;
  for (int c = 0; c < NumCell; c++) {
    joint += t[controls[c]] + t[cases[c]];
    marginal += t[controls[c] + cases[c]];
  }
  const int64_t total = numControls + numCases;
  if (total == 0) return 0;
  return (joint - marginal - t[numControls] - t[numCases] + t[total]) / (static_cast<double>(total) * ln2);
}

/**
 * MI of one SNP's marginal table: its class genotype counts (g0, g1 of controls, then of cases; g2 the rest of the
 * class). Without missing calls every pair's table sums to these over the other SNP's genotypes (x0 + x1 + x2 = n00
 * + n01 + (a0 − n00 − n01) = a0, …): interactionInformation's MI(A) and MI(B) of a pair are its SNPs' own, the same
 * integers and so the same doubles — computed once per SNP instead of once per pair.
 */
inline double snpMutualInformation(const double* t, double ln2, const int32_t* counts, int64_t numControls, int64_t numCases) {
  const int64_t controls[3] = {counts[0], counts[1], numControls - counts[0] - counts[1]};
  const int64_t cases[3] = {counts[2], counts[3], numCases - counts[2] - counts[3]};
  return mutualInformation<3>(t, ln2, controls, cases, numControls, numCases);
}

/** Whether every vector's class genotype counts lie within their classes (the marginals read the tables at them). */
inline bool countsWithinClasses(const int32_t* counts, int64_t numVectors, int64_t controls, int64_t cases) {
  for (int64_t v = 0; v < numVectors; v++) {
    const int32_t* k = counts + 4 * v;
    if ((k[0] | k[1] | k[2] | k[3]) < 0 || k[0] + int64_t{k[1]} > controls || k[2] + int64_t{k[3]} > cases) return false;
  }
  return true;
}

/** What a row's scores read besides the panel: for IG, MI(row SNP) and MI(column SNP) per column (else unused). */
struct RowMarginals {
  double rowMI;
  const double* colMI;
};

/**
 * The engine values (engineValueOf) of pairs (row r, columns [c0, cEnd)) into values[c], MI or IG (K2: scoreRowK2);
 * false when a pair's tallies are inconsistent with the counts. A row's values first, its checksum and records after:
 * two tight loops.
 */
template <Score S, bool Transposed>
bool scoreRow(const DensePanel& panel, const ScoreTables& tables, const RowMarginals& marginals, int64_t r, int64_t c0, int64_t cEnd, double* values) {
  const int64_t rowCounts[4] = {panel.rowCounts[4 * r], panel.rowCounts[4 * r + 1], panel.rowCounts[4 * r + 2], panel.rowCounts[4 * r + 3]};
  PairTable table;
  for (int64_t c = c0; c < cEnd; c++) {
    if (!tableOf<Transposed>(panel, rowCounts, r, c, table)) return false;
    if (S == Score::kMI) {
      values[c] = clampEngineValue(mutualInformation<9>(tables.nLogN, tables.ln2, table.x, table.y, panel.controls, panel.cases));
    } else {
      // interactionInformation, 2-way: MI(AB) − MI(A) − MI(B), A the earlier SNP (the slower index of the cells).
      const double full = mutualInformation<9>(tables.nLogN, tables.ln2, table.x, table.y, panel.controls, panel.cases);
      const double first = Transposed ? marginals.colMI[c] : marginals.rowMI, second = Transposed ? marginals.rowMI : marginals.colMI[c];
      values[c] = clampEngineValue(full - first - second + 4);
    }
  }
  return true;
}

/**
 * scoreRow for K2 (epistasisScores.ts k2Score: per cell lf[a + b + 1] − lf[a] − lf[b], summed cell by cell), the cells
 * of tableOf kept in registers and each term computed before the sum: the same integers and double operations in the
 * same order (a PairTable in memory and a loop over its terms spill more). `GroupStride` > 0: the panel's groups lie
 * that many tallies apart from tallies[0] (a band's chunk), read from one base register instead of eight pointers kept
 * on the stack; the row's constant parts of the cells are taken out of the loop (exact integers, any order).
 */
template <bool Transposed, int64_t GroupStride = 0>
bool scoreRowK2(const DensePanel& panel, const ScoreTables& tables, const RowMarginals&, int64_t r, int64_t c0, int64_t cEnd, double* values) {
  const int64_t a0 = panel.rowCounts[4 * r], a1 = panel.rowCounts[4 * r + 1], b0 = panel.rowCounts[4 * r + 2], b1 = panel.rowCounts[4 * r + 3];
  const int64_t rowX8 = panel.controls - a0 - a1, rowY8 = panel.cases - b0 - b1;
  const double* lf = tables.logFactorial;
  const double k2Scale = tables.k2Scale;
  const uint32_t* const* t = panel.tallies;
  const uint32_t* t0 = panel.tallies[0];
  const auto tally = [t, t0](int g, int64_t at) -> int64_t { return GroupStride > 0 ? t0[g * GroupStride + at] : t[g][at]; };
  const int64_t base = r * panel.numCols;
  for (int64_t c = c0; c < cEnd; c++) {
    const int64_t at = base + c;
    const int32_t* k = panel.colCounts + 4 * c;
    const int64_t n00 = tally(0, at), n01 = tally(1, at), n10 = tally(2, at), n11 = tally(3, at);
    const int64_t m00 = tally(4, at), m01 = tally(5, at), m10 = tally(6, at), m11 = tally(7, at);
    // Cells by tableOf's rule: 3·g_row + g_col, the off-diagonal pairs traded when Transposed.
    const int64_t xr0 = a0 - n00 - n01, xc0 = k[0] - n00 - n10, xr1 = a1 - n10 - n11, xc1 = k[1] - n01 - n11;
    const int64_t yr0 = b0 - m00 - m01, yc0 = k[2] - m00 - m10, yr1 = b1 - m10 - m11, yc1 = k[3] - m01 - m11;
    const int64_t x8 = rowX8 - k[0] - k[1] + n00 + n01 + n10 + n11;
    const int64_t y8 = rowY8 - k[2] - k[3] + m00 + m01 + m10 + m11;
    if ((xr0 | xc0 | xr1 | xc1 | x8 | yr0 | yc0 | yr1 | yc1 | y8) < 0) return false;
    const auto term = [lf](int64_t x, int64_t y) { return lf[x + y + 1] - lf[x] - lf[y]; };
    const double s0 = term(n00, m00), s4 = term(n11, m11), s8 = term(x8, y8);
    const double s1 = Transposed ? term(n10, m10) : term(n01, m01), s3 = Transposed ? term(n01, m01) : term(n10, m10);
    const double s2 = Transposed ? term(xc0, yc0) : term(xr0, yr0), s6 = Transposed ? term(xr0, yr0) : term(xc0, yc0);
    const double s5 = Transposed ? term(xc1, yc1) : term(xr1, yr1), s7 = Transposed ? term(xr1, yr1) : term(xc1, yc1);
    const double sum = s0 + s1 + s2 + s3 + s4 + s5 + s6 + s7 + s8;
    values[c] = clampEngineValue(15 - sum * k2Scale);
  }
  return true;
}

using RowScorer = bool (*)(const DensePanel&, const ScoreTables&, const RowMarginals&, int64_t, int64_t, int64_t, double*);

/** scoreRow for `score`, with the cells transposed or not. */
inline RowScorer rowScorerOf(Score score, bool transposed) {
  if (score == Score::kK2) return transposed ? scoreRowK2<true> : scoreRowK2<false>;
  if (score == Score::kMI) return transposed ? scoreRow<Score::kMI, true> : scoreRow<Score::kMI, false>;
  return transposed ? scoreRow<Score::kIG, true> : scoreRow<Score::kIG, false>;
}

/**
 * Pairs (i, jFirst + t), t < count, with engine values `values[t]` into `out` as EntrySink.addTupleValueRow adds them:
 * every pair an entry, zeros counted, NaN adds nothing, rv·floor(v·2^56) exact; the weights of tupleValuePairWeights
 * (uid max·nv + min: left of i a run of step 1, right of it one of step nv); records through `filter`. Returns an empty
 * string, or what was wrong.
 */
inline const char* addScoredRow(int64_t i, int64_t jFirst, int64_t count, const double* values, int64_t numVector,
                                const RecordSelection& selection, RecordFilter& filter, PanelOutcome& out) {
  const int64_t nv = numVector;
  const int64_t numLeft = std::max<int64_t>(0, std::min(count, i - jFirst));
  WeightRun left(static_cast<uint64_t>(i * nv + jFirst), 1);
  WeightRun right(static_cast<uint64_t>((jFirst + numLeft) * nv + i), static_cast<uint64_t>(nv));
  unsigned __int128 sum = 0;
  uint64_t zeros = 0;
  for (int64_t t = 0; t < count; t++) {
    if (t % ExactSum::kProductsPerFlush == ExactSum::kProductsPerFlush - 1) {
      out.checksum.add(sum);
      sum = 0;
    }
    const double value = values[t];
    WeightRun& run = t < numLeft ? left : right;
    const uint64_t rv = run.weight();
    run.next();
    if (value == 0) {
      zeros++;
    } else if (value == value) {
      if (!(value >= 0 && value < 16)) return "a value outside the checksum's range [0, 16)";
      // v·2^56 < 2^60 is exact; truncation is floor for non-negative values.
      sum += static_cast<unsigned __int128>(rv) * checksumIntegerOf(value);
    }
  }
  out.checksum.add(sum);
  out.zeros += zeros;
  out.entries += static_cast<uint64_t>(count);
  out.numPairs += static_cast<uint64_t>(count);
  if (!selection.writesRecords) return "";
  for (int64_t t = 0; t < count; t++) {
    const float f = static_cast<float>(values[t]);
    if (!filter.keeps(f)) continue;
    uint32_t bits;
    __builtin_memcpy(&bits, &f, sizeof bits);
    out.recordWords.push_back(static_cast<uint32_t>(i));
    out.recordWords.push_back(static_cast<uint32_t>(jFirst + t));
    out.recordWords.push_back(bits);
  }
  return "";
}

/** A top-N writer's records: only those at or above the bar tightened as they came (recordFilter.h). */
inline void keepRecordsPassingFinalBar(const RecordFilter& filter, PanelOutcome& out) {
  std::vector<uint32_t>& words = out.recordWords;
  const size_t kept = filter.keepPassingFinalBar(words.data(), words.size(), 3);
  words.resize(kept);
  out.numRecords = kept / 3;
}

}  // namespace snptally::epistasis::scoring
