// The native finalize of a block of pairs whose four entries are exact counts (analyses/pairCountRows.ts, KING's and
// the genotype distances' rows without records): each pair's counts from its tallies, its value (the analysis's double
// operations, in its order) and the exact checksum of the counts (core/pairRowChecksum.ts: weights stepped along each
// row's two runs of uids), returned as ChecksumAccumulator.merge's limbs.
#pragma once

#include <cstdint>

#include "checksumParts.h"

namespace snptally::paircounts {

/** Which analysis's counts and value (nativePairCounts.ts names them). */
enum class PairCountKind : int { kKing = 0, kAlleleDistance = 1, kSquaredDistance = 2 };

/**
 * Rows × columns of a panel's tallies (`tallyStride` per row; KING's four groups hethet, ibs0, het·present, present·het;
 * the distances' two, ibs1 and ibs0). Row r is vector rowVector + r, column c vector colVector + c; with strictUpper
 * (a diagonal tile) row r starts at column max(0, r + 1 + rowFirst − colFirst).
 */
struct PairCountBlock {
  const uint32_t* tallies[4];
  int64_t tallyStride;
  int64_t numRows;
  int64_t numCols;
  int64_t rowVector;
  int64_t colVector;
  int64_t rowFirst;
  int64_t colFirst;
  bool strictUpper;
  int64_t numVector;
};

using PairCountOutcome = native::ChecksumPart;

/**
 * Finalizes `block`: values[r · numCols + c] for every pair, the checksum into `out`. Returns an empty string, or why
 * the block is left to the JS path (a count outside [0, 2^26), which that path reports).
 */
const char* pairCountRows(PairCountKind kind, const PairCountBlock& block, double* values, PairCountOutcome& out);

}  // namespace snptally::paircounts
