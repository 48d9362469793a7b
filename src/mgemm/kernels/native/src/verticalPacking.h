// Packing for the vertical kernel (verticalLoops.cc): which words of which planes a micro-panel holds, and copying
// rows of an operand into one. A micro-panel of `width` rows (MR rows of A, NR columns of B) stores, per plane it
// holds, each word of those rows side by side: word k of row i at slotZero(plane) + k·width + i. So the microkernel
// reads one row's word with one broadcast (A) and `width` rows' word with width/16 vector loads (B).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "popcountKernel.h"

namespace snptally::native {

/** Per plane, the hull [first, end) of the words any term reads of it (first == end: a plane no term reads). */
using PlaneWordHulls = std::vector<std::pair<int, int>>;

/** Which operand of a term: the A plane (row side) or the B plane (column side). */
enum class TermSide { kA, kB };

/** The hulls of the `side` planes of every term of every group, fused partners too. */
PlaneWordHulls planeWordHulls(const std::vector<Group>& groups, int numPlanes, TermSide side);

/** One plane in a micro-panel: its words [wordFirst, wordEnd), word k of row i at offset + (k − wordFirst)·width + i. */
struct PackedSlot {
  int plane, wordFirst, wordEnd;
  ptrdiff_t offset;
};

/** The planes of one K block (words [blockFirst, blockEnd)) in a micro-panel of `width` rows. */
struct PackedLayout {
  int width;
  std::vector<PackedSlot> slots;
  // Per plane with a slot: where its word 0 would be (word k at zeroOfPlane + k·width); may be negative.
  std::vector<ptrdiff_t> zeroOfPlane;
  size_t panelWords;                   // u32 words of one micro-panel (a multiple of width)
};

/** The layout of hulls ∩ [blockFirst, blockEnd) for micro-panels of `width` rows. */
PackedLayout packedLayout(const PlaneWordHulls& hulls, int blockFirst, int blockEnd, int width);

/** Σ over planes of |hull ∩ [blockFirst, blockEnd)|: the words one row of a micro-panel holds. */
int packedWordsPerRow(const PlaneWordHulls& hulls, int blockFirst, int blockEnd);

/**
 * Copies rows [firstRow, firstRow + numRows) of `matrix` (numRows ≤ layout.width) into `panel`, a micro-panel of
 * `layout` (layout.panelWords words); rows past numRows are zero, so ragged tiles sum zeros.
 */
void packMicroPanel(const Operand& matrix, int firstRow, int numRows, const PackedLayout& layout, uint32_t* panel);

}  // namespace snptally::native
