// Packing for the AMX-INT8 kernel (amxPacking.h says the layout). Expanding a chunk of 64 fields to 64 bytes is one
// masked byte move (the chunk's bits are its mask); a B tile's VNNI order comes from VPSHUFBITQMB, which picks any 8
// bits of a qword per mask byte, so 16 columns' chunks (two gathers) give the tile's 16 rows without a byte transpose.
#include "amxPacking.h"

#include <algorithm>
#include <cstring>
#include <set>

namespace snptally::native {
namespace {

/** Chunks [⌊first/2⌋, ⌈end/2⌉) of a word hull ∩ [blockFirst, blockEnd) (first ≥ end: none). */
std::pair<int, int> hullChunks(const std::pair<int, int>& hull, int blockFirst, int blockEnd) {
  if (hull.first >= hull.second) return {0, 0};
  return {std::max(hull.first / 2, blockFirst), std::min((hull.second + 1) / 2, blockEnd)};
}

}  // namespace

AmxPackedLayout amxPackedLayout(const PlaneWordHulls& hulls, int blockFirst, int blockEnd) {
  AmxPackedLayout layout{{}, std::vector<ptrdiff_t>(hulls.size(), 0), 0};
  for (size_t plane = 0; plane < hulls.size(); plane++) {
    const auto [first, end] = hullChunks(hulls[plane], blockFirst, blockEnd);
    if (first >= end) continue;
    layout.slots.push_back(AmxSlot{static_cast<int>(plane), first, end, layout.tilesPerPanel});
    layout.zeroTile[plane] = static_cast<ptrdiff_t>(layout.tilesPerPanel) - first;
    layout.tilesPerPanel += static_cast<size_t>(end - first);
  }
  return layout;
}

namespace {

/** The planes a group reads on one side. */
std::set<int> planesOf(const Group& group, TermSide side) {
  std::set<int> planes;
  for (const Term& term : group.terms) {
    if (term.wordFirst >= term.wordEnd) continue;
    planes.insert(side == TermSide::kA ? term.aPlane : term.bPlane);
    if (term.aPlane2 >= 0) planes.insert(side == TermSide::kA ? term.aPlane2 : term.bPlane2);
  }
  return planes;
}

}  // namespace

std::vector<std::vector<Group>> amxPasses(const std::vector<Group>& groups) {
  constexpr size_t kPlanesPerPass = 2;
  struct Pass {
    std::set<int> aPlanes, bPlanes;
    std::vector<Group> groups;
  };
  std::vector<Pass> passes;
  for (const Group& group : groups) {
    const std::set<int> aPlanes = planesOf(group, TermSide::kA), bPlanes = planesOf(group, TermSide::kB);
    const auto fits = [&](const Pass& pass) {
      std::set<int> a = pass.aPlanes, b = pass.bPlanes;
      a.insert(aPlanes.begin(), aPlanes.end());
      b.insert(bPlanes.begin(), bPlanes.end());
      return a.size() <= kPlanesPerPass && b.size() <= kPlanesPerPass;
    };
    const auto pass = std::find_if(passes.begin(), passes.end(), fits);
    if (pass == passes.end()) {
      passes.push_back(Pass{aPlanes, bPlanes, {group}});
    } else {
      pass->aPlanes.insert(aPlanes.begin(), aPlanes.end());
      pass->bPlanes.insert(bPlanes.begin(), bPlanes.end());
      pass->groups.push_back(group);
    }
  }
  std::vector<std::vector<Group>> grouped;
  for (Pass& pass : passes) grouped.push_back(std::move(pass.groups));
  return grouped;
}

size_t amxTilesPerPanel(const PlaneWordHulls& hulls, int blockFirst, int blockEnd) {
  size_t tiles = 0;
  for (const auto& hull : hulls) {
    const auto [first, end] = hullChunks(hull, blockFirst, blockEnd);
    tiles += static_cast<size_t>(std::max(0, end - first));
  }
  return tiles;
}

#if defined(__x86_64__)
namespace {

/** Word pair 2c, 2c + 1 of a plane row as one 64-bit chunk (rows are 4-byte aligned only). */
inline uint64_t chunkAt(const uint32_t* planeRow, int chunk) {
  uint64_t bits;
  std::memcpy(&bits, planeRow + 2 * static_cast<ptrdiff_t>(chunk), sizeof bits);
  return bits;
}

}  // namespace

SNPTALLY_AMX_PACK void packAmxRows(const Operand& matrix, int firstRow, int numRows, const AmxPackedLayout& layout,
                                   uint8_t* panel) {
  const __m512i ones = _mm512_set1_epi8(1);
  for (const AmxSlot& slot : layout.slots) {
    const uint32_t* planeRows[kAmxTileRows];
    for (int i = 0; i < kAmxTileRows; i++) planeRows[i] = i < numRows ? matrix.row(firstRow + i, slot.plane) : nullptr;
    // Tile by tile, so that each is written whole (16 consecutive cache lines).
    uint8_t* tile = panel + slot.firstTile * kAmxTileBytes;
    for (int c = slot.chunkFirst; c < slot.chunkEnd; c++, tile += kAmxTileBytes) {
      for (int i = 0; i < kAmxTileRows; i++) {
        const __mmask64 bits = planeRows[i] != nullptr ? chunkAt(planeRows[i], c) : 0;
        _mm512_store_si512(tile + 64 * i, _mm512_maskz_mov_epi8(bits, ones));
      }
    }
  }
}

SNPTALLY_AMX_PACK void packAmxColumns(const Operand& matrix, int firstCol, int numCols, const AmxPackedLayout& layout,
                                      uint8_t* panel) {
  const __m512i ones = _mm512_set1_epi8(1);
  // Tile row r (r < 8) takes bits 4r..4r+3 of each column's low word (rows 8..15: of its high word): in qword m of
  // the source, columns 2m and 2m + 1 at bits 0 and 32, so byte 4n + q selects bit 32·(n mod 2) + 4r + q.
  __m512i selectors[8];
  for (int r = 0; r < 8; r++) {
    alignas(64) uint8_t bytes[64];
    for (int b = 0; b < 64; b++) bytes[b] = static_cast<uint8_t>(32 * ((b / 4) % 2) + 4 * r + b % 4);
    selectors[r] = _mm512_load_si512(bytes);
  }
  const ptrdiff_t colStrideBytes = static_cast<ptrdiff_t>(matrix.numPlanes) * matrix.wordsPerPlane * sizeof(uint32_t);
  const auto at = [colStrideBytes](int column) { return static_cast<long long>(column * colStrideBytes); };
  const __m512i lowOffsets = _mm512_set_epi64(at(7), at(6), at(5), at(4), at(3), at(2), at(1), at(0));
  const __m512i highOffsets = _mm512_add_epi64(lowOffsets, _mm512_set1_epi64(8 * colStrideBytes));
  const __mmask8 lowColumns = static_cast<__mmask8>(numCols >= 8 ? 0xff : (1u << numCols) - 1);
  const __mmask8 highColumns = static_cast<__mmask8>(numCols >= 16 ? 0xff : numCols <= 8 ? 0 : (1u << (numCols - 8)) - 1);
  // Dword n of the two gathers' 32 dwords: the low words of columns 0..15 are dwords 2n, their high words 2n + 1.
  const __m512i lowWordIndex = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
  const __m512i highWordIndex = _mm512_add_epi32(lowWordIndex, _mm512_set1_epi32(1));
  for (const AmxSlot& slot : layout.slots) {
    uint8_t* tile = panel + slot.firstTile * kAmxTileBytes;
    const uint32_t* firstColumn = matrix.row(firstCol, slot.plane);
    for (int c = slot.chunkFirst; c < slot.chunkEnd; c++, tile += kAmxTileBytes) {
      const void* chunkOfFirst = firstColumn + 2 * static_cast<ptrdiff_t>(c);
      const __m512i columns0to7 = _mm512_mask_i64gather_epi64(_mm512_setzero_si512(), lowColumns, lowOffsets, chunkOfFirst, 1);
      const __m512i columns8to15 = _mm512_mask_i64gather_epi64(_mm512_setzero_si512(), highColumns, highOffsets, chunkOfFirst, 1);
      const __m512i lowWords = _mm512_permutex2var_epi32(columns0to7, lowWordIndex, columns8to15);
      const __m512i highWords = _mm512_permutex2var_epi32(columns0to7, highWordIndex, columns8to15);
      for (int r = 0; r < 8; r++) {
        _mm512_store_si512(tile + 64 * r, _mm512_maskz_mov_epi8(_mm512_bitshuffle_epi64_mask(lowWords, selectors[r]), ones));
        _mm512_store_si512(tile + 64 * (r + 8), _mm512_maskz_mov_epi8(_mm512_bitshuffle_epi64_mask(highWords, selectors[r]), ones));
      }
    }
  }
}
#endif

}  // namespace snptally::native
