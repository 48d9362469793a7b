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
//
// AMX (32×32 tiles, where the process may use it), per pass of groups (amxPasses): 0.0305 per chunk (64 fields) of
// each product (four TDPBUUD of ~16 cycles per 1024 pairs, operands from L2), 0.007 per chunk of every plane packed
// (packing, and A packed again per column block when the panel's rows do not fit L2), 0.77 per group and K block (the
// tile's sums loaded, drained and stored), over the panel padded to 16 rows × 32 columns; and 1.0 per row or column and chunk of
// its planes (each packed at least once: 16 rows' chunk, 1 KiB, in ~30 ns). Fitted with tools/bench-native-layouts.ts
// (one thread, strict upper triangles in tasks of 128 rows; ns per pair, model in brackets): KING 2048 × 50,000 SNPs
// 205 (203; horizontal 229), dense CCC 2048 × 8192 fields 19.9 (20.7; vertical 33.7), 1024 × 50,000 121 (127;
// vertical 191), epistasis 2048 × 2000 samples 13.1 (11.4; vertical 12.0), 1024 × 8000 29.0 (vertical 33.7).
#include <algorithm>
#include <cmath>
#include <map>

#include "amxPacking.h"
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

constexpr int kAmxTile = 32;                 // amxLoops.cc's kMr, kNr (rows in 16s: a last row tile of 16 runs alone)
constexpr double kAmxTilesPerBlock = 128.0;  // amxLoops.cc's kMaxTilesPerPanel

/** The AMX kernel's cost model (ns per panel) of one pass (amxPasses), from the chunks its products and planes span. */
double amxPassCost(const std::vector<Group>& groups, int rows, int cols) {
  double productChunks = 0;
  std::map<int, std::pair<int, int>> aHulls, bHulls;  // per plane, the chunks any product reads
  const auto widen = [](std::map<int, std::pair<int, int>>& hulls, int plane, int first, int end) {
    const auto [at, inserted] = hulls.emplace(plane, std::make_pair(first, end));
    if (!inserted) at->second = {std::min(at->second.first, first), std::max(at->second.second, end)};
  };
  for (const Group& group : groups) {
    for (const Term& term : group.terms) {
      if (term.wordFirst >= term.wordEnd) continue;
      const int first = term.wordFirst / 2, end = (term.wordEnd + 1) / 2;
      productChunks += (term.aPlane2 >= 0 ? 2.0 : 1.0) * (end - first);
      for (const auto& [aPlane, bPlane] : {std::make_pair(term.aPlane, term.bPlane), std::make_pair(term.aPlane2, term.bPlane2)}) {
        if (aPlane < 0) continue;
        widen(aHulls, aPlane, first, end);
        widen(bHulls, bPlane, first, end);
      }
    }
  }
  const auto chunksOf = [](const std::map<int, std::pair<int, int>>& hulls) {
    double chunks = 0;
    for (const auto& [plane, hull] : hulls) chunks += hull.second - hull.first;
    return chunks;
  };
  const double packedChunks = chunksOf(aHulls) + chunksOf(bHulls);
  const double kBlocks = std::max(1.0, std::ceil(std::max(chunksOf(aHulls), chunksOf(bHulls)) / kAmxTilesPerBlock));
  return paddedPairs(rows, cols, kAmxTile / 2, kAmxTile) *
             (0.0305 * productChunks + 0.007 * packedChunks + 0.77 * static_cast<double>(groups.size()) * kBlocks) +
         1.0 * (rows * chunksOf(aHulls) + cols * chunksOf(bHulls));
}

double amxCost(const std::vector<Group>& groups, int rows, int cols) {
  double cost = 0;
  for (const std::vector<Group>& pass : amxPasses(groups)) cost += amxPassCost(pass, rows, cols);
  return cost;
}

}  // namespace

KernelLayout chooseLayout(const std::vector<Group>& groups, const Panel& panel, const LayoutCandidates& candidates) {
  double words = 0;  // per pair, over every term of every group
  size_t numTerms = 0;
  bool longFusedPair = false;
  for (const Group& group : groups) {
    for (const Term& term : group.terms) {
      longFusedPair = longFusedPair || (term.aPlane2 >= 0 && term.wordEnd - term.wordFirst > kLongFusedPairWords);
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
  const double vertical = longFusedPair ? horizontal * 2 : paddedPairs(rows, cols, kVerticalRows, kVerticalCols) * (0.028 * words + 0.05 * numGroups);
  const double amx = candidates.amx ? amxCost(groups, rows, cols) : horizontal * 2;
  if (amx < std::min(horizontal, vertical)) return KernelLayout::kAmx;
  return vertical < horizontal ? KernelLayout::kVertical : KernelLayout::kHorizontal;
}

}  // namespace snptally::native
