// The blocked loops of the AMX-INT8 kernel: jc (NC columns) → pc (K blocks) → ir (32 rows) → jr (32 columns) → every
// term group of the 32 × 32 tile while its operands are in L2. Bits expand 8× into bytes, so packed operands are
// large: a K block holds at most kMaxTilesPerPanel tiles (1 KiB each) per 16 rows, B's block of NC columns fits in
// L2 beside A's 32 rows, and jc outside pc keeps the output block (panel rows × NC columns) in the caches while its K
// blocks add to it. Packing: amxPacking.cc; microkernel: amxMicrokernel.h; why AMX: 16 × 16 pairs × 64 fields per
// instruction (TDPBUUD on 0/1 bytes), about 5× the field pairs per cycle of AND + VPOPCNTQ.
#include <algorithm>
#include <cstdlib>
#include <memory>
#include <new>

#include "amxMicrokernel.h"
#include "amxPacking.h"
#include "popcountKernel.h"
#include "verticalPacking.h"

#if defined(__x86_64__)
namespace snptally::native {
namespace {

constexpr int kTile = kAmxTileRows;
constexpr int kMr = 2 * kTile, kNr = 2 * kTile;  // a 2 × 2 block of accumulator tiles
// Tiles per micro-panel (16 rows × one K block of every plane): A's two micro-panels take 2 × 128 KiB of L2 (KING's
// four planes: 32 chunks, 64 words each). Blocks grow in steps of kBlockStepChunks.
constexpr size_t kMaxTilesPerPanel = 128;
constexpr int kBlockStepChunks = 8;
// B's packed block (NC columns of one K block) stays in L2 (2 MiB here) beside A's micro-panels.
constexpr size_t kMaxPackedBBytes = 1280 * 1024;

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

thread_local AlignedBytes packedAScratch, packedBScratch;

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

/** Whether a K block's sums replace the output (the first block) or add to it. */
enum class OutputUpdate { kStore, kAdd };

/** out[i][c] = (or +=) staged[i][c] for i < numRows, c < numCols; output rows rowStride apart. */
SNPTALLY_AMX_PACK void writeTile(const int32_t* staged, uint32_t* out, size_t rowStride, int numRows, int numCols,
                                 OutputUpdate update) {
  const auto maskOf = [](int cols) {
    return cols >= 16 ? static_cast<__mmask16>(0xffff) : cols <= 0 ? static_cast<__mmask16>(0) : static_cast<__mmask16>((1u << cols) - 1);
  };
  const __mmask16 masks[2] = {maskOf(numCols), maskOf(numCols - 16)};
  for (int i = 0; i < numRows; i++) {
    uint32_t* outRow = out + static_cast<size_t>(i) * rowStride;
    for (int half = 0; half < 2; half++) {
      __m512i sums = _mm512_load_si512(staged + 32 * i + 16 * half);
      if (update == OutputUpdate::kAdd) sums = _mm512_add_epi32(sums, _mm512_maskz_loadu_epi32(masks[half], outRow + 16 * half));
      _mm512_mask_storeu_epi32(outRow + 16 * half, masks[half], sums);
    }
  }
}

}  // namespace

SNPTALLY_AMX void runGroupsAmx(const Operand& A, const Operand& B, const std::vector<Group>& groups, const Panel& p) {
  if (p.rowBegin >= p.rowEnd || p.colBegin >= p.bCount || groups.empty()) return;
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
  // NC: whole 32-column tiles of B whose every block fits kMaxPackedBBytes (at least one).
  const size_t pairBytesB = 2 * maxTilesB * kAmxTileBytes;
  const int nc = kNr * static_cast<int>(std::max<size_t>(1, kMaxPackedBBytes / pairBytesB));
  uint8_t* packedA = packedAScratch.bytes(2 * maxTilesA * kAmxTileBytes);
  uint8_t* packedB = packedBScratch.bytes(static_cast<size_t>(nc / kTile) * maxTilesB * kAmxTileBytes);
  alignas(64) int32_t staged[kMr * kNr];
  static const AmxTileConfig config;
  _tile_loadconfig(&config);
  for (int jc = p.colBegin; jc < p.bCount; jc += nc) {
    const int jcEnd = std::min(p.bCount, jc + nc);
    // strictUpper: rows from the block's last column on need nothing in it.
    const int rowLimit = p.strictUpper ? std::min(p.rowEnd, jcEnd - 1) : p.rowEnd;
    if (rowLimit <= p.rowBegin) continue;
    for (size_t blockIndex = 0; blockIndex < plans.size(); blockIndex++) {
      const BlockPlan& plan = plans[blockIndex];
      // The first K block stores instead of adding: a fresh output page read before it is written maps the shared zero
      // page, and replacing that mapping on the write flushes the TLB of every CPU running the process (verticalLoops.cc).
      const OutputUpdate update = blockIndex == 0 ? OutputUpdate::kStore : OutputUpdate::kAdd;
      const size_t panelBytesA = plan.a.tilesPerPanel * kAmxTileBytes, panelBytesB = plan.b.tilesPerPanel * kAmxTileBytes;
      // Column tiles in pairs: past jcEnd, a tile of zeros.
      const int colTiles = (jcEnd - jc + kNr - 1) / kNr * 2;
      for (int t = 0; t < colTiles; t++) {
        const int first = jc + t * kTile;
        packAmxColumns(B, std::min(first, jcEnd - 1), std::clamp(jcEnd - first, 0, kTile), plan.b, packedB + t * panelBytesB);
      }
      for (int ir = p.rowBegin; ir < rowLimit; ir += kMr) {
        const int mr = std::min(kMr, rowLimit - ir);
        packAmxRows(A, ir, std::min(kTile, mr), plan.a, packedA);
        packAmxRows(A, ir + kTile, std::max(0, mr - kTile), plan.a, packedA + panelBytesA);
        // strictUpper: column tiles wholly at or left of the tile's first row are not needed.
        const int jrFirst = p.strictUpper ? jc + (std::max(jc, ir + 1) - jc) / kNr * kNr : jc;
        for (int jr = jrFirst; jr < jcEnd; jr += kNr) {
          const uint8_t* b0 = packedB + static_cast<size_t>((jr - jc) / kTile) * panelBytesB;
          for (size_t g = 0; g < groups.size(); g++) {
            const std::vector<AmxProduct>& products = plan.products[g];
            amxMicrokernel(packedA, packedA + panelBytesA, b0, b0 + panelBytesB, products.data(), static_cast<int>(products.size()), staged);
            writeTile(staged, groups[g].out + static_cast<size_t>(ir) * p.bCount + jr, p.bCount, mr, std::min(kNr, jcEnd - jr), update);
          }
        }
      }
    }
  }
  // Back to the initial tile state, so that a context switch need not save the tiles.
  _tile_release();
}

}  // namespace snptally::native
#endif
