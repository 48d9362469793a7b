// Packing for the AMX-INT8 kernel (amxLoops.cc): bit planes expanded to one byte (0 or 1) per field, in the tiles
// TDPBUUD reads. A "chunk" is 64 fields: words 2c and 2c + 1 of a plane, bit j of the pair being field j of the chunk.
// An A tile holds one chunk of 16 rows: byte j of tile row i is field j of row i (16 rows × 64 bytes). A B tile holds
// one chunk of 16 columns in the VNNI layout TDPBUUD needs: byte 4n + q of tile row r is field 4r + q of column n.
// TDPBUUD(C, A, B) then adds Σ_j A[i][j]·B[j/4][4n + j%4] = popcount(a_i AND b_n) over the chunk to C[i][n].
// A micro-panel (16 rows or columns) of one K block holds, per plane it needs, that plane's chunks of the block, each a
// 1 KiB tile: chunk c of plane p at tile slotTile(p) + (c − slotFirst(p)).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "popcountKernel.h"
#include "verticalPacking.h"

namespace snptally::native {

constexpr int kAmxTileRows = 16;  // rows of A (columns of B) per tile
constexpr size_t kAmxTileBytes = 1024;

/** One plane in a micro-panel: its chunks [chunkFirst, chunkEnd), chunk c at tile firstTile + (c − chunkFirst). */
struct AmxSlot {
  int plane, chunkFirst, chunkEnd;
  size_t firstTile;
};

/** The planes of one K block (chunks [blockFirst, blockEnd)) in a micro-panel. */
struct AmxPackedLayout {
  std::vector<AmxSlot> slots;
  // Per plane with a slot: the tile index its chunk 0 would have (chunk c at zeroTile + c); may be negative.
  std::vector<ptrdiff_t> zeroTile;
  size_t tilesPerPanel;
};

/** The chunks [⌊first/2⌋, ⌈end/2⌉) of word hulls, per plane, ∩ [blockFirst, blockEnd), as a micro-panel layout. */
AmxPackedLayout amxPackedLayout(const PlaneWordHulls& hulls, int blockFirst, int blockEnd);

/**
 * The groups in passes whose products read at most kPlanesPerPass planes of each side (a group that reads more is a
 * pass of its own), first come first merged. Why: a K block of a pass holds amxLoops.cc's kMaxTilesPerPanel tiles per micro-panel
 * over all its planes, so fewer planes give longer blocks (fewer sums staged) and a wider B block (A packed fewer
 * times). KING's four groups over four planes run as hethet, het·called, called·het (HET, called) and ibs0 (HOM1,
 * HOM2): 512 × 50,000 SNPs, one thread, 236–248 → 218–225 ns per pair. Packing is per pass, so a plane two passes read is
 * packed twice.
 */
std::vector<std::vector<Group>> amxPasses(const std::vector<Group>& groups);

/** Σ over planes of the chunks of hull ∩ [blockFirst, blockEnd): the tiles of one micro-panel. */
size_t amxTilesPerPanel(const PlaneWordHulls& hulls, int blockFirst, int blockEnd);

#if defined(__x86_64__)
// Packing needs AVX512BW (byte masks) and BITALG (VPSHUFBITQMB); AMX CPUs have both, and amxSupport.cc checks.
#define SNPTALLY_AMX_PACK __attribute__((target("avx512f,avx512bw,avx512bitalg")))

/** Rows [firstRow, firstRow + numRows) of `matrix` (numRows ≤ 16) into A tiles of `layout`; missing rows zero. */
SNPTALLY_AMX_PACK void packAmxRows(const Operand& matrix, int firstRow, int numRows, const AmxPackedLayout& layout,
                                   uint8_t* panel);

/** Rows [firstCol, firstCol + numCols) of `matrix` (numCols ≤ 16) into B tiles of `layout`; missing columns zero. */
SNPTALLY_AMX_PACK void packAmxColumns(const Operand& matrix, int firstCol, int numCols, const AmxPackedLayout& layout,
                                      uint8_t* panel);
#endif

}  // namespace snptally::native
