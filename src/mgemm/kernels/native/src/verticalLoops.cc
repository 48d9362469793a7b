// The blocked loops of the vertical kernel: pc (K blocks whose A micro-panel fits L1) → jc (NC columns, pack B's block
// into L2) → ir (MR rows, pack A's micro-panel into L1) → jr (NR columns) → every term group of the tile while its
// micro-panels are in L1 (a group's words are few: epistasis's class planes are 32 words each, 8 groups). ir outside
// jr, unlike BLIS: a row tile's sums over the whole column block are staged, then written out row by row in
// streaming stores (writeStagedRow). Packing: verticalPacking.cc; microkernel: verticalMicrokernel.h.
#include <algorithm>
#include <cstdlib>
#include <memory>
#include <new>

#include "popcountKernel.h"
#include "verticalMicrokernel.h"
#include "verticalPacking.h"

#if defined(__x86_64__)
namespace snptally::native {
namespace {

constexpr int kMr = 12;  // rows per tile: 12 × 2 accumulators, 2 (fused: 4) B vectors and 2 broadcasts in 32 zmm
constexpr int kNv = 2;
constexpr int kNr = 16 * kNv;  // columns per tile
// A's micro-panel (kMr rows × packed words), read again for every column tile, stays in L1 (48 KiB here): a K block
// packs at most this many words per row of A (and per column of B); smaller blocks when planes are long. B's
// micro-panels stream from L2. (Dense CCC at 8192 fields, 512 words a row: 192 or 768 measured the same.)
constexpr int kMaxWordsPerRow = 512;
constexpr int kBlockStepWords = 16;
// B's packed block (NC columns × packed words) stays in L2 while the ir loop sweeps every row tile against it.
constexpr size_t kMaxPackedBWords = 256 * 1024;
// A row tile's sums for the column block (groups × MR rows × NC columns) stay in L2 until written out (writeStagedRow).
constexpr size_t kMaxStagedWords = 64 * 1024;

/** A 64-byte aligned scratch array of this thread, grown as needed (kernel tasks run on a pool's threads). */
class AlignedScratch {
 public:
  uint32_t* words(size_t count) {
    if (count > capacity_) {
      const size_t bytes = (count * sizeof(uint32_t) + 63) / 64 * 64;
      void* memory = std::aligned_alloc(64, bytes);
      if (memory == nullptr) throw std::bad_alloc();
      data_.reset(static_cast<uint32_t*>(memory));
      capacity_ = bytes / sizeof(uint32_t);
    }
    return data_.get();
  }

 private:
  struct Free {
    void operator()(uint32_t* p) const { std::free(p); }
  };
  std::unique_ptr<uint32_t, Free> data_;
  size_t capacity_ = 0;
};

thread_local AlignedScratch packedAScratch, packedBScratch, stagedScratch;

/** Whether a K block's sums replace the output (the first block) or add to it. */
enum class OutputUpdate { kStore, kAdd };

// out[c] = (or +=) staged[c] for c < numCols. Why staged: a tile's row is 32 columns, and where an output row does not
// start on a cache line (bCount not a multiple of 16, or the array's own offset) each 64-byte store would straddle two
// lines; a whole row of a column block (hundreds of columns) is written here in aligned 64-byte streaming stores, which
// skip reading the lines first (kbench-epistasis2, 2048 × 2048: 14–17 ns per pair storing tiles in place, 13 from the
// stage with plain stores, 10.5 streamed; the whole epistasis run took the same time with either store).
SNPTALLY_AVX512 void writeStagedRow(const uint32_t* staged, uint32_t* out, int numCols, OutputUpdate update) {
  const auto maskOf = [](int cols) {
    return cols >= 16 ? static_cast<__mmask16>(0xffff) : static_cast<__mmask16>((1u << cols) - 1);
  };
  if (update == OutputUpdate::kAdd) {
    for (int c = 0; c < numCols; c += 16) {
      const __mmask16 mask = maskOf(numCols - c);
      const __m512i sums = _mm512_add_epi32(_mm512_maskz_loadu_epi32(mask, staged + c), _mm512_maskz_loadu_epi32(mask, out + c));
      _mm512_mask_storeu_epi32(out + c, mask, sums);
    }
    return;
  }
  // Columns before the first cache line boundary, then whole lines, then the rest.
  const int head = std::min(numCols, static_cast<int>(((64 - (reinterpret_cast<uintptr_t>(out) & 63)) & 63) / sizeof(uint32_t)));
  if (head > 0) _mm512_mask_storeu_epi32(out, maskOf(head), _mm512_maskz_loadu_epi32(maskOf(head), staged));
  int c = head;
  for (; c + 16 <= numCols; c += 16) _mm512_stream_si512(reinterpret_cast<__m512i*>(out + c), _mm512_loadu_si512(staged + c));
  if (c < numCols) _mm512_mask_storeu_epi32(out + c, maskOf(numCols - c), _mm512_maskz_loadu_epi32(maskOf(numCols - c), staged + c));
}

/** K blocks [first, end) over all words, each packing at most kMaxWordsPerRow words per row of A and of B; at least one. */
std::vector<std::pair<int, int>> kBlocks(const PlaneWordHulls& aHulls, const PlaneWordHulls& bHulls, int wordsPerPlane) {
  const auto fits = [&](int first, int end) {
    return std::max(packedWordsPerRow(aHulls, first, end), packedWordsPerRow(bHulls, first, end)) <= kMaxWordsPerRow;
  };
  std::vector<std::pair<int, int>> blocks;
  int first = 0;
  do {
    int end = std::min(wordsPerPlane, first + kBlockStepWords);
    while (end < wordsPerPlane && fits(first, std::min(wordsPerPlane, end + kBlockStepWords))) {
      end = std::min(wordsPerPlane, end + kBlockStepWords);
    }
    blocks.emplace_back(first, end);
    first = end;
  } while (first < wordsPerPlane);
  return blocks;
}

/** Each group's terms in this block's micro-panels (terms with no words in the block dropped). */
std::vector<std::vector<PackedTerm>> packedTerms(const std::vector<Group>& groups, const PackedLayout& aLayout,
                                                 const PackedLayout& bLayout, int blockFirst, int blockEnd) {
  std::vector<std::vector<PackedTerm>> packed(groups.size());
  for (size_t g = 0; g < groups.size(); g++) {
    for (const Term& term : groups[g].terms) {
      const int k0 = std::max(blockFirst, term.wordFirst), k1 = std::min(blockEnd, term.wordEnd);
      if (k0 >= k1) continue;
      const bool fused = term.aPlane2 >= 0;
      const auto aZero = [&aLayout](int plane) { return aLayout.zeroOfPlane[static_cast<size_t>(plane)]; };
      const auto bZero = [&bLayout](int plane) { return bLayout.zeroOfPlane[static_cast<size_t>(plane)]; };
      packed[g].push_back(PackedTerm{aZero(term.aPlane), bZero(term.bPlane), fused ? aZero(term.aPlane2) : 0,
                                     fused ? bZero(term.bPlane2) : 0, k0, k1, fused});
    }
  }
  return packed;
}

}  // namespace

SNPTALLY_AVX512 void runGroupsVertical(const Operand& A, const Operand& B, const std::vector<Group>& groups, const Panel& p) {
  if (p.rowBegin >= p.rowEnd || p.colBegin >= p.bCount || groups.empty()) return;
  const PlaneWordHulls aHulls = planeWordHulls(groups, A.numPlanes, TermSide::kA);
  const PlaneWordHulls bHulls = planeWordHulls(groups, B.numPlanes, TermSide::kB);
  const std::vector<std::pair<int, int>> blocks = kBlocks(aHulls, bHulls, A.wordsPerPlane);
  const size_t numGroups = groups.size();
  for (size_t blockIndex = 0; blockIndex < blocks.size(); blockIndex++) {
    const auto [blockFirst, blockEnd] = blocks[blockIndex];
    // The first K block stores instead of adding: a fresh output page read before it is written maps the shared zero
    // page, and replacing that mapping on the write flushes the TLB of every CPU running the process (an IPI each),
    // which cost 2 threads a third of their speed and 16 threads half of theirs.
    const OutputUpdate update = blockIndex == 0 ? OutputUpdate::kStore : OutputUpdate::kAdd;
    const PackedLayout aLayout = packedLayout(aHulls, blockFirst, blockEnd, kMr);
    const PackedLayout bLayout = packedLayout(bHulls, blockFirst, blockEnd, kNr);
    const std::vector<std::vector<PackedTerm>> terms = packedTerms(groups, aLayout, bLayout, blockFirst, blockEnd);
    const size_t ncByB = kMaxPackedBWords / std::max<size_t>(1, bLayout.panelWords);
    const size_t ncByStage = kMaxStagedWords / (numGroups * kMr * kNr);
    const int ncPanels = static_cast<int>(std::max<size_t>(1, std::min(ncByB, ncByStage)));
    const size_t stageStride = static_cast<size_t>(ncPanels) * kNr;
    uint32_t* packedA = packedAScratch.words(std::max<size_t>(1, aLayout.panelWords));
    uint32_t* packedB = packedBScratch.words(std::max<size_t>(1, static_cast<size_t>(ncPanels) * bLayout.panelWords));
    uint32_t* staged = stagedScratch.words(numGroups * kMr * stageStride);
    for (int jc = p.colBegin; jc < p.bCount; jc += ncPanels * kNr) {
      const int jcEnd = std::min(p.bCount, jc + ncPanels * kNr);
      // strictUpper: rows from the block's last column on need nothing in it.
      const int rowLimit = p.strictUpper ? std::min(p.rowEnd, jcEnd - 1) : p.rowEnd;
      if (rowLimit <= p.rowBegin) continue;
      for (int jr = jc; jr < jcEnd; jr += kNr) {
        packMicroPanel(B, jr, std::min(kNr, jcEnd - jr), bLayout, packedB + static_cast<size_t>((jr - jc) / kNr) * bLayout.panelWords);
      }
      for (int ir = p.rowBegin; ir < rowLimit; ir += kMr) {
        const int mr = std::min(kMr, rowLimit - ir);
        packMicroPanel(A, ir, mr, aLayout, packedA);
        // strictUpper: column tiles wholly at or left of the tile's first row are not needed.
        const int jrFirst = p.strictUpper ? jc + (std::max(jc, ir + 1) - jc) / kNr * kNr : jc;
        for (int jr = jrFirst; jr < jcEnd; jr += kNr) {
          const uint32_t* bPanel = packedB + static_cast<size_t>((jr - jc) / kNr) * bLayout.panelWords;
          for (size_t g = 0; g < numGroups; g++) {
            const StagedTile tile{staged + g * kMr * stageStride + (jr - jc), stageStride};
            verticalMicrokernel<kMr, kNv>(packedA, bPanel, terms[g].data(), static_cast<int>(terms[g].size()), tile);
          }
        }
        for (size_t g = 0; g < numGroups; g++) {
          for (int i = 0; i < mr; i++) {
            const uint32_t* stagedRow = staged + (g * kMr + i) * stageStride + (jrFirst - jc);
            writeStagedRow(stagedRow, groups[g].out + static_cast<size_t>(ir + i) * p.bCount + jrFirst, jcEnd - jrFirst, update);
          }
        }
      }
    }
  }
  // The streaming stores are weakly ordered: complete them before the task reports its outputs done.
  _mm_sfence();
}

}  // namespace snptally::native
#endif
