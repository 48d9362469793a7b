// The blocked loops of the AMX-INT8 kernel, per pass of groups (amxPasses: at most two planes a side): jc (NC
// columns) → pc (K blocks) → 32 × 32 tiles → every group of the pass while the tile's operands are in L2. Bits expand
// 8× into bytes, so packed operands are large: a K block holds at most kMaxTilesPerPanel tiles (1 KiB each) per 16
// rows. Two orders inside a K block: the panel's rows resident (all its A micro-panels packed into L2, then per column
// pair: pack B's, sweep the rows), when they fit kMaxResidentABytes (KING's tasks of 128 rows); else B's NC columns
// resident (packed into L2, then per row pair: pack A's, sweep the columns), A packed again per column block. With
// several K blocks the sums are staged and written to the output once. Packing: amxPacking.cc; microkernel:
// amxMicrokernel.h; why AMX: 16 × 16 pairs × 64 fields per instruction (TDPBUUD on 0/1 bytes), about 5× the field
// pairs per cycle of AND + VPOPCNTQ, of which the expansion and packing leave 1.15–1.7× (docs/performance.md).
#include <algorithm>
#include <cstdlib>
#include <memory>
#include <new>

#include "amxMicrokernel.h"
#include "amxPacking.h"
#include "popcountKernel.h"
#include "verticalPacking.h"

#if defined(SNPTALLY_AMX_BUILT)
namespace snptally::native {
namespace {

constexpr int kTile = kAmxTileRows;
constexpr int kMr = 2 * kTile, kNr = 2 * kTile;  // a 2 × 2 block of accumulator tiles
// Tiles per micro-panel (16 rows × one K block of every plane of a pass): A's two micro-panels take 2 × 128 KiB of
// L2 (two planes: 64 chunks, 128 words each). Blocks grow in steps of kBlockStepChunks. Measured on KING's shape (512
// vectors × 50,000 SNPs, one thread): 32, 64, 128, 256 tiles with B blocks of 256 KiB–16 MiB, 128 and 1 MiB the
// fastest: smaller K blocks add staged sums and tile drains, smaller B blocks repack A more, larger ones spill to L3.
constexpr size_t kMaxTilesPerPanel = 128;
constexpr int kBlockStepChunks = 8;
// B's packed block (NC columns of one K block) stays in L2 (2 MiB here) beside A's micro-panels.
constexpr size_t kMaxPackedBBytes = 1024 * 1024;
// With several K blocks, sums stay in a staging area of 32 × 32 tiles (4 KiB each, contiguous, so tile loads and
// stores stream) until the last block, then go to the output once: panel rows × NC columns × groups, at most this.
// (KING, 512 × 50,000, one thread: sums loaded from and stored to the output rows themselves, 16 rows of 64 bytes
// 2 KiB apart, took a fifth of the microkernel's time.)
constexpr size_t kMaxStagedBytes = 4 * 1024 * 1024;
// All of a panel's rows of one K block stay in L2 up to this size (KING's tasks of 128 rows: 1 MiB).
constexpr size_t kMaxResidentABytes = 1024 * 1024;

/** A 64-byte aligned scratch array of this thread, grown as needed (kernel tasks run on a pool's threads). */
class AlignedBytes {
 public:
  uint8_t* bytes(size_t count) {
    if (count > capacity_) {
      const size_t rounded = (count + 63) / 64 * 64;
      void* memory = std::aligned_alloc(64, rounded);
      if (memory == nullptr) throw std::bad_alloc();
      data_.reset(static_cast<uint8_t*>(memory));
      capacity_ = rounded;
    }
    return data_.get();
  }

 private:
  struct Free {
    void operator()(uint8_t* p) const { std::free(p); }
  };
  std::unique_ptr<uint8_t, Free> data_;
  size_t capacity_ = 0;
};

thread_local AlignedBytes packedAScratch, packedBScratch, stagedScratch;

/** K blocks [first, end) in chunks over all chunks, each at most kMaxTilesPerPanel tiles per micro-panel; at least one. */
std::vector<std::pair<int, int>> amxKBlocks(const PlaneWordHulls& aHulls, const PlaneWordHulls& bHulls, int numChunks) {
  const auto fits = [&](int first, int end) {
    return std::max(amxTilesPerPanel(aHulls, first, end), amxTilesPerPanel(bHulls, first, end)) <= kMaxTilesPerPanel;
  };
  std::vector<std::pair<int, int>> blocks;
  int first = 0;
  do {
    int end = std::min(numChunks, first + kBlockStepChunks);
    while (end < numChunks && fits(first, std::min(numChunks, end + kBlockStepChunks))) {
      end = std::min(numChunks, end + kBlockStepChunks);
    }
    blocks.emplace_back(first, end);
    first = end;
  } while (first < numChunks);
  return blocks;
}

/** Each group's products in this block's micro-panels: a fused pair as its two products, empty ones dropped. */
std::vector<std::vector<AmxProduct>> blockProducts(const std::vector<Group>& groups, const AmxPackedLayout& aLayout,
                                                   const AmxPackedLayout& bLayout, int blockFirst, int blockEnd) {
  std::vector<std::vector<AmxProduct>> products(groups.size());
  for (size_t g = 0; g < groups.size(); g++) {
    for (const Term& term : groups[g].terms) {
      // The chunks holding the term's words; the words beside them in a chunk have zero products (contract.ts).
      const int c0 = std::max(blockFirst, term.wordFirst / 2), c1 = std::min(blockEnd, (term.wordEnd + 1) / 2);
      if (term.wordFirst >= term.wordEnd || c0 >= c1) continue;
      const auto add = [&](int aPlane, int bPlane) {
        products[g].push_back(AmxProduct{aLayout.zeroTile[static_cast<size_t>(aPlane)],
                                         bLayout.zeroTile[static_cast<size_t>(bPlane)], c0, c1});
      };
      add(term.aPlane, term.bPlane);
      if (term.aPlane2 >= 0) add(term.aPlane2, term.bPlane2);
    }
  }
  return products;
}

/** out[i][c] = sums[i][c] for i < numRows, c < numCols (output rows rowStride apart); sums as AmxSums lays them out. */
SNPTALLY_AMX_PACK void writeSums(const AmxSums& sums, uint32_t* out, size_t rowStride, int numRows, int numCols) {
  const auto maskOf = [](int cols) {
    return cols >= 16 ? static_cast<__mmask16>(0xffff) : cols <= 0 ? static_cast<__mmask16>(0) : static_cast<__mmask16>((1u << cols) - 1);
  };
  const __mmask16 masks[2] = {maskOf(numCols), maskOf(numCols - 16)};
  for (int i = 0; i < numRows; i++) {
    uint32_t* outRow = out + static_cast<size_t>(i) * rowStride;
    for (int half = 0; half < 2; half++) {
      const int32_t* tile = sums.tiles[2 * (i / kTile) + half];
      const __m512i row = _mm512_load_si512(reinterpret_cast<const uint8_t*>(tile) + (i % kTile) * sums.strideBytes);
      _mm512_mask_storeu_epi32(outRow + 16 * half, masks[half], row);
    }
  }
}

/** Asks for the 4 KiB of a 32 × 32 block of staged sums in L2 (past the stage's end: harmless, prefetches do not fault). */
inline void prefetchSums(const int32_t* first) {
  for (size_t line = 0; line < kMr * kNr * sizeof(int32_t); line += 64) {
    _mm_prefetch(reinterpret_cast<const char*>(first) + line, _MM_HINT_T1);
  }
}

/** The four tiles of a 32 × 32 block of sums at `first`: 4 KiB, each tile's rows 64 bytes apart. */
AmxSums stagedSums(int32_t* first, bool addTo) {
  constexpr size_t kInts = kAmxTileBytes / sizeof(int32_t);
  return AmxSums{{first, first + kInts, first + 2 * kInts, first + 3 * kInts}, 64, addTo};
}

// Every group of one pass over the panel (runGroupsAmx), with the tile configuration loaded.
SNPTALLY_AMX void runPass(const Operand& A, const Operand& B, const std::vector<Group>& groups, const Panel& p) {
  const PlaneWordHulls aHulls = planeWordHulls(groups, A.numPlanes, TermSide::kA);
  const PlaneWordHulls bHulls = planeWordHulls(groups, B.numPlanes, TermSide::kB);
  const std::vector<std::pair<int, int>> blocks = amxKBlocks(aHulls, bHulls, (A.wordsPerPlane + 1) / 2);
  struct BlockPlan {
    AmxPackedLayout a, b;
    std::vector<std::vector<AmxProduct>> products;
  };
  std::vector<BlockPlan> plans;
  size_t maxTilesA = 1, maxTilesB = 1;
  for (const auto& [first, end] : blocks) {
    BlockPlan plan{amxPackedLayout(aHulls, first, end), amxPackedLayout(bHulls, first, end), {}};
    plan.products = blockProducts(groups, plan.a, plan.b, first, end);
    maxTilesA = std::max(maxTilesA, plan.a.tilesPerPanel);
    maxTilesB = std::max(maxTilesB, plan.b.tilesPerPanel);
    plans.push_back(std::move(plan));
  }
  // Rows resident (when all the panel's rows of a K block fit kMaxResidentABytes): A packed once per K block and column
  // block, each B column pair once; else columns resident: B's NC columns packed into L2, A's rows again for each.
  const int rowPairs = (p.rowEnd - p.rowBegin + kMr - 1) / kMr, panelColPairs = (p.bCount - p.colBegin + kNr - 1) / kNr;
  const bool rowsResident = static_cast<size_t>(rowPairs) * 2 * maxTilesA * kAmxTileBytes <= kMaxResidentABytes;
  // NC: whole 32-column tiles whose sums fit the stage (and, columns resident, whose B block fits kMaxPackedBBytes).
  const bool staged = plans.size() > 1;
  const size_t stagedPerColPair = static_cast<size_t>(rowPairs) * groups.size() * kMr * kNr * sizeof(int32_t);
  const size_t colPairsByB = rowsResident ? SIZE_MAX : kMaxPackedBBytes / (2 * maxTilesB * kAmxTileBytes);
  const size_t colPairs = std::min(colPairsByB, staged ? kMaxStagedBytes / stagedPerColPair : SIZE_MAX);
  const int nc = kNr * static_cast<int>(std::clamp<size_t>(colPairs, 1, static_cast<size_t>(panelColPairs)));
  const int ncPairs = nc / kNr;
  uint8_t* packedA = packedAScratch.bytes((rowsResident ? rowPairs : 1) * 2 * maxTilesA * kAmxTileBytes);
  uint8_t* packedB = packedBScratch.bytes((rowsResident ? 1 : ncPairs) * 2 * maxTilesB * kAmxTileBytes);
  int32_t* stage = staged ? reinterpret_cast<int32_t*>(stagedScratch.bytes(stagedPerColPair * ncPairs)) : nullptr;
  alignas(64) int32_t edge[kMr * kNr];
  for (int jc = p.colBegin; jc < p.bCount; jc += nc) {
    const int jcEnd = std::min(p.bCount, jc + nc);
    // strictUpper: rows from the block's last column on need nothing in it.
    const int rowLimit = p.strictUpper ? std::min(p.rowEnd, jcEnd - 1) : p.rowEnd;
    if (rowLimit <= p.rowBegin) continue;
    // strictUpper: column tiles wholly at or left of a row tile's first row are not needed.
    const auto firstColumnTile = [&](int ir) { return p.strictUpper ? jc + (std::max(jc, ir + 1) - jc) / kNr * kNr : jc; };
    // Staged sums in the order the loops visit them (so that the next one is the next 4 KiB).
    const auto stagedAt = [&](int ir, int jr, size_t g) {
      const size_t rowPair = static_cast<size_t>((ir - p.rowBegin) / kMr), colPair = static_cast<size_t>((jr - jc) / kNr);
      const size_t tile = (rowsResident ? colPair * rowPairs + rowPair : rowPair * ncPairs + colPair) * groups.size() + g;
      return stage + tile * kMr * kNr;
    };
    for (size_t blockIndex = 0; blockIndex < plans.size(); blockIndex++) {
      const BlockPlan& plan = plans[blockIndex];
      const size_t panelBytesA = plan.a.tilesPerPanel * kAmxTileBytes, panelBytesB = plan.b.tilesPerPanel * kAmxTileBytes;
      // Every group of the 32 × 32 tile at (ir, jr) from A's micro-panel pair a0 and B's b0.
      const auto computeTile = [&](const uint8_t* a0, const uint8_t* b0, int ir, int jr) {
        const int mr = std::min(kMr, rowLimit - ir), ncHere = std::min(kNr, jcEnd - jr);
        for (size_t g = 0; g < groups.size(); g++) {
          const std::vector<AmxProduct>& products = plan.products[g];
          const auto run = [&](const AmxSums& sums) {
            const int numProducts = static_cast<int>(products.size());
            if (mr <= kTile) {
              amxMicrokernelUpperHalf(a0, b0, b0 + panelBytesB, products.data(), numProducts, sums, mr);
            } else {
              amxMicrokernel(a0, a0 + panelBytesA, b0, b0 + panelBytesB, products.data(), numProducts, sums);
            }
          };
          uint32_t* out = groups[g].out + static_cast<size_t>(ir) * p.bCount + jr;
          if (staged) {
            int32_t* sums = stagedAt(ir, jr, g);
            // The next tile's sums (the next 4 KiB page: hardware prefetchers stop at page ends) into L2 meanwhile.
            if (blockIndex > 0) prefetchSums(sums + kMr * kNr);
            run(stagedSums(sums, blockIndex > 0));
          } else if (mr == kMr && ncHere == kNr) {  // one K block, a whole tile: straight to the output
            int32_t* first = reinterpret_cast<int32_t*>(out);
            const size_t lower = 16 * static_cast<size_t>(p.bCount);
            run(AmxSums{{first, first + 16, first + lower, first + lower + 16}, p.bCount * sizeof(int32_t), false});
          } else {
            const AmxSums sums{{edge, edge + 16, edge + 16 * kNr, edge + 16 * kNr + 16}, kNr * sizeof(int32_t), false};
            run(sums);
            writeSums(sums, out, p.bCount, mr, ncHere);
          }
        }
      };
      // A micro-panel pair (rows first..first + 31 below end) or B's (columns first..first + 31 below jcEnd); zeros past them.
      const auto packRows = [&](int first, int end, uint8_t* panel) {
        packAmxRows(A, first, std::clamp(end - first, 0, kTile), plan.a, panel);
        packAmxRows(A, first + kTile, std::clamp(end - first - kTile, 0, kTile), plan.a, panel + panelBytesA);
      };
      const auto packColumns = [&](int first, uint8_t* panel) {
        for (int half = 0; half < 2; half++) {
          const int tileFirst = first + half * kTile;
          packAmxColumns(B, std::min(tileFirst, jcEnd - 1), std::clamp(jcEnd - tileFirst, 0, kTile), plan.b, panel + half * panelBytesB);
        }
      };
      if (rowsResident) {
        for (int ir = p.rowBegin; ir < rowLimit; ir += kMr) packRows(ir, rowLimit, packedA + static_cast<size_t>((ir - p.rowBegin) / kMr) * 2 * panelBytesA);
        for (int jr = jc; jr < jcEnd; jr += kNr) {
          packColumns(jr, packedB);
          for (int ir = p.rowBegin; ir < rowLimit && firstColumnTile(ir) <= jr; ir += kMr) {
            computeTile(packedA + static_cast<size_t>((ir - p.rowBegin) / kMr) * 2 * panelBytesA, packedB, ir, jr);
          }
        }
        continue;
      }
      for (int jr = jc; jr < jcEnd; jr += kNr) packColumns(jr, packedB + static_cast<size_t>((jr - jc) / kNr) * 2 * panelBytesB);
      for (int ir = p.rowBegin; ir < rowLimit; ir += kMr) {
        packRows(ir, rowLimit, packedA);
        for (int jr = firstColumnTile(ir); jr < jcEnd; jr += kNr) computeTile(packedA, packedB + static_cast<size_t>((jr - jc) / kNr) * 2 * panelBytesB, ir, jr);
      }
    }
    // The output is written once, after the last K block (so a fresh output page is never read before it is written:
    // replacing its shared zero page mapping would flush the TLB of every CPU running the process, verticalLoops.cc).
    if (!staged) continue;
    for (int ir = p.rowBegin; ir < rowLimit; ir += kMr) {
      for (int jr = firstColumnTile(ir); jr < jcEnd; jr += kNr) {
        for (size_t g = 0; g < groups.size(); g++) {
          writeSums(stagedSums(stagedAt(ir, jr, g), false), groups[g].out + static_cast<size_t>(ir) * p.bCount + jr, p.bCount,
                    std::min(kMr, rowLimit - ir), std::min(kNr, jcEnd - jr));
        }
      }
    }
  }
}

}  // namespace

SNPTALLY_AMX void runGroupsAmx(const Operand& A, const Operand& B, const std::vector<Group>& groups, const Panel& p) {
  if (p.rowBegin >= p.rowEnd || p.colBegin >= p.bCount || groups.empty()) return;
  _tile_loadconfig(&amxTileConfig(kAmxTileRows));
  for (const std::vector<Group>& pass : amxPasses(groups)) runPass(A, B, pass, p);
  // Back to the initial tile state, so that a context switch need not save the tiles.
  _tile_release();
}

}  // namespace snptally::native
#endif
