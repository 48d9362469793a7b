// A band of dense 2-way epistasis panels computed and scored in one call (nativeDensePairs.ts): for a strip of a
// panel's rows, each tile's genotype tallies by popcounts on the blocks' planes — per class cls and genotypes x, y ∈
// {0, 1}, n_xy = |g_x(i) ∧ g_y(j)| over the class's words, pairTermGroups(dense)'s 8 groups — straight into the
// scoring of pairScoring.h while they are in L1, then the strip's rows' checksum parts and records; the SNPs' class
// genotype counts (genotypeCountsOf's) from the same planes. The same values, checksum and records as the GEMM's
// tallies scored by scoreDensePanel, panel by panel, bit for bit. Pure C++: the N-API binding (epistasisBinding.cc)
// only reads and checks arguments.
#pragma once

#include <cstdint>

#include "densePairScores.h"

namespace snptally::epistasis {

/** One of the band's two blocks (rows or columns): its planes. */
struct BandBlock {
  const uint64_t* words;  // vector-major planes: plane p of local vector v at (v·numPlanes + p)·words64
  int64_t numVectors;     // vectors the words hold (real and padding)
  int64_t vectorFirst;    // global index of local vector 0
  int64_t numVectorReal;  // real vectors, from local vector 0
};

/** A panel: local rows of the row block × local columns of the column block; strictUpper: only columns after the row. */
struct BandPanel {
  int64_t rowFirst, numRows, colFirst, numCols;
  bool strictUpper;
};

struct DenseBand {
  BandBlock rows, cols;
  int64_t numPlanes;
  int64_t words64;               // 64-bit words per plane
  int64_t genotypePlane[2][2];   // [class][genotype 0 or 1]: its plane
  int64_t classWords[2][2];      // [class]: the [first, end) 64-bit words where its planes may have bits
  int64_t controls, cases;       // class sizes
  int64_t numVector;             // the run's, for the checksum's uids
  const BandPanel* panels;
  int64_t numPanels;
};

/** Whether the AVX-512 tallies run on this CPU (AVX-512 F and VPOPCNTDQ). */
bool avx512TalliesUsable();

/**
 * Computes and scores every unique pair of the band's panels, in order, into `out` (checksum part, records in the file's
 * order, the top-N bar carried across panels); tallies by AVX-512 where `allowAvx512` and the CPU has it, else by 64-bit
 * popcounts. Returns an empty string, or what was wrong (planes with a class's g0 and g1 overlapping or past its size).
 */
const char* scoreDenseBand(const DenseBand& band, const ScoreTables& tables, Score score, const RecordSelection& selection,
                           bool allowAvx512, PanelOutcome& out);

}  // namespace snptally::epistasis
