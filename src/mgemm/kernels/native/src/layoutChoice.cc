// Which native kernel computes a task: a cost model of both, in ns per panel, fitted to one thread of the 2-core
// machine (a Xeon with AVX-512 VPOPCNTDQ), runTask with options.layout forced on 4–2048 vectors × 64–32768 fields.
//
// Horizontal (4×4 tiles): per pair, 0.036 per word of a term (16 words per vector, AND/VPOPCNTQ/ADD), plus 1.0 per
// term (its microkernel call: zeroed sums, masked tail) and 1.0 per group (the tile's horizontal sums), over the panel
// padded to multiples of 4. Vertical (12×32 tiles): 0.028 per word, 0.05 per group (staging and write-out), over the
// panel padded to 12 rows × 32 columns: nothing per term, but a small panel pays for its padding (4 × 4 vectors at
// 8192 fields: 900 ns per pair against 200). A fused disjoint pair costs 4/3 per word (one more op per vector).
// Measured: epistasis's 8 one-term groups of 32 words, 2048 × 2048: vertical 9.9 ns per pair, horizontal 31;
// dense CCC's 4-term group at 8192 fields: 28 against 40; at 40 × 40 vectors, 56 against 37.
#include <algorithm>

#include "popcountKernel.h"

namespace snptally::native {
namespace {

constexpr int kHorizontalTile = 4;
// A fused disjoint pair over more words than this runs faster horizontally, whatever the model says: KING's four
// groups (one a fused pair) at 50,000 SNPs, 2048 × 2048: 231 ns per pair horizontal, 248 vertical (a whole KING run at
// 4,000 samples, 1 thread: the GEMM 1.95 s against 2.2 s); at 32,768 SNPs (1024 words) vertical still wins, 147 to 166.
constexpr int kLongFusedPairWords = 1024;
constexpr int kVerticalRows = 12, kVerticalCols = 32;  // verticalLoops.cc's kMr, kNr

double paddedPairs(int rows, int cols, int tileRows, int tileCols) {
  const auto padded = [](int n, int tile) { return static_cast<double>((n + tile - 1) / tile * tile); };
  return padded(rows, tileRows) * padded(cols, tileCols);
}

}  // namespace

KernelLayout chooseLayout(const std::vector<Group>& groups, const Panel& panel, const LayoutCandidates& candidates) {
  double words = 0;  // per pair, over every term of every group
  size_t numTerms = 0;
  for (const Group& group : groups) {
    for (const Term& term : group.terms) {
      if (term.aPlane2 >= 0 && term.wordEnd - term.wordFirst > kLongFusedPairWords) return KernelLayout::kHorizontal;
      const double fusedFactor = term.aPlane2 >= 0 ? 4.0 / 3.0 : 1.0;
      words += fusedFactor * std::max(0, term.wordEnd - term.wordFirst);
      numTerms++;
    }
  }
  const int rows = panel.rowEnd - panel.rowBegin, cols = panel.bCount - panel.colBegin;
  if (rows <= 0 || cols <= 0) return KernelLayout::kHorizontal;
  const double numGroups = static_cast<double>(groups.size());
  const double horizontal = paddedPairs(rows, cols, kHorizontalTile, kHorizontalTile) *
                            (0.036 * words + 1.0 * static_cast<double>(numTerms) + 1.0 * numGroups);
  const double vertical = paddedPairs(rows, cols, kVerticalRows, kVerticalCols) * (0.028 * words + 0.05 * numGroups);
  return vertical < horizontal ? KernelLayout::kVertical : KernelLayout::kHorizontal;
}

}  // namespace snptally::native
