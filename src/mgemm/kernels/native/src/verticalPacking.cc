// Packing for the vertical kernel: plane hulls, micro-panel layouts, and the copy of rows into a micro-panel
// (verticalPacking.h says the layout). Packing costs one pass over a panel's words, against a microkernel that reads
// each packed word once per tile of the other operand.
#include "verticalPacking.h"

#include <algorithm>
#include <cstring>

namespace snptally::native {

PlaneWordHulls planeWordHulls(const std::vector<Group>& groups, int numPlanes, TermSide side) {
  PlaneWordHulls hulls(static_cast<size_t>(numPlanes), {0, 0});
  const auto widen = [&hulls](int plane, int first, int end) {
    if (plane < 0 || first >= end) return;
    auto& [hullFirst, hullEnd] = hulls[static_cast<size_t>(plane)];
    if (hullFirst == hullEnd) {
      hullFirst = first;
      hullEnd = end;
    } else {
      hullFirst = std::min(hullFirst, first);
      hullEnd = std::max(hullEnd, end);
    }
  };
  for (const Group& group : groups) {
    for (const Term& term : group.terms) {
      // A fused pair reads both its planes over the union of its terms' words (Term).
      const bool ofA = side == TermSide::kA;
      widen(ofA ? term.aPlane : term.bPlane, term.wordFirst, term.wordEnd);
      widen(ofA ? term.aPlane2 : term.bPlane2, term.wordFirst, term.wordEnd);
    }
  }
  return hulls;
}

int packedWordsPerRow(const PlaneWordHulls& hulls, int blockFirst, int blockEnd) {
  int words = 0;
  for (const auto& [first, end] : hulls) words += std::max(0, std::min(end, blockEnd) - std::max(first, blockFirst));
  return words;
}

PackedLayout packedLayout(const PlaneWordHulls& hulls, int blockFirst, int blockEnd, int width) {
  PackedLayout layout{width, {}, std::vector<ptrdiff_t>(hulls.size(), 0), 0};
  for (size_t plane = 0; plane < hulls.size(); plane++) {
    const int first = std::max(hulls[plane].first, blockFirst), end = std::min(hulls[plane].second, blockEnd);
    if (first >= end) continue;
    const ptrdiff_t offset = static_cast<ptrdiff_t>(layout.panelWords);
    layout.slots.push_back(PackedSlot{static_cast<int>(plane), first, end, offset});
    layout.zeroOfPlane[plane] = offset - static_cast<ptrdiff_t>(first) * width;
    layout.panelWords += static_cast<size_t>(end - first) * width;
  }
  return layout;
}

void packMicroPanel(const Operand& matrix, int firstRow, int numRows, const PackedLayout& layout, uint32_t* panel) {
  const int width = layout.width;
  for (const PackedSlot& slot : layout.slots) {
    uint32_t* slotWords = panel + slot.offset;
    const int numWords = slot.wordEnd - slot.wordFirst;
    if (numRows < width) std::memset(slotWords, 0, static_cast<size_t>(numWords) * width * sizeof(uint32_t));
    for (int i = 0; i < numRows; i++) {
      const uint32_t* source = matrix.row(firstRow + i, slot.plane) + slot.wordFirst;
      for (int k = 0; k < numWords; k++) slotWords[static_cast<size_t>(k) * width + i] = source[k];
    }
  }
}

}  // namespace snptally::native
