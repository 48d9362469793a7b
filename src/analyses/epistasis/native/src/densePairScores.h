// Native scoring of a dense 2-way epistasis panel (epistasisPairs.ts DensePairScorer's job, with the sink's checksum
// and record selection): each pair's 3 × 3 × 2 table by inclusion–exclusion from the GEMM tallies, its K2, MI or IG
// and engine value by the same double operations in the same order as epistasisScores.ts (built with
// -ffp-contract=off, no libm call per pair), the exact checksum sum of EntrySink.addTupleValueRow, and the records that
// pass the threshold and the top-N bar. Pure C++: the N-API binding (epistasisBinding.cc) only reads and checks arguments.
#pragma once

#include <cstdint>
#include <vector>

#include "checksumParts.h"
#include "recordFilter.h"

namespace snptally::epistasis {

enum class Score { kK2, kMI, kIG };

/** The score tables of epistasisScores.ts ScoreTables and the constants of its formulas, from JS. */
struct ScoreTables {
  const double* logFactorial;  // ln n! summed in order, n < numLogFactorial
  const double* nLogN;         // n·ln n, n < numNLogN
  double k2Scale;              // k2ScaleOf(tables)
  double ln2;                  // epistasisScores.ts LN2
};

/**
 * A panel of pairs (rows × columns of the pair block): tallies[g][r·numCols + c] is group g of pairTermGroups(dense),
 * n_xy = #(g_row = x, g_col = y) of class g / 4 (controls 0–3, cases 4–7, group 4·cls + 2x + y). rowCounts[4r + k]
 * and colCounts[4c + k] are the vectors' class genotype counts (g0, g1 of controls, then of cases).
 */
struct DensePanel {
  const uint32_t* tallies[8];
  int64_t numCols;   // row stride of the tallies
  int64_t rowsReal;  // rows and columns that are real vectors
  int64_t colsReal;
  bool strictUpper;  // rows and columns are one block: only pairs with a later column SNP
  int64_t rowVectorFirst;  // global index of row 0 and column 0
  int64_t colVectorFirst;
  const int32_t* rowCounts;
  const int32_t* colCounts;
  int64_t controls;  // class sizes
  int64_t cases;
  int64_t numVector;  // the run's, for the checksum's uids
  double* values;     // when not null, each pair's engine value at r·numCols + c too
};

using native::BarKind;
using native::checksumIntegerOf;
using native::ExactSum;
using native::RecordFilter;
using native::RecordSelection;
using native::WeightRun;

/** The checksum part of the panel (ChecksumAccumulator.merge's limbs) and its records as the file lays them out. */
struct PanelOutcome : native::ChecksumPart {
  std::vector<uint32_t> recordWords;  // i, j, float32 bits of the value
  uint64_t numRecords = 0;
};

/**
 * Scores every unique pair of `panel` row by row (columns in order), adds it to `out`'s checksum and selects its
 * records. Returns an empty string, or what was wrong (a tally inconsistent with the counts, a value out of the
 * checksum's range) — which would be a bug of the caller's, as every table of consistent tallies is in range.
 */
const char* scoreDensePanel(const DensePanel& panel, const ScoreTables& tables, Score score, const RecordSelection& selection,
                            PanelOutcome& out);

}  // namespace snptally::epistasis
