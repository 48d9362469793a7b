// The AMX-INT8 microkernel: a 32 × 32 tile of one term group from packed micro-panels (amxPacking.h), as 2 × 2
// accumulator tiles of 16 × 16 int32 sums. Per chunk of 64 fields, two A tiles and two B tiles are loaded and four
// TDPBUUD add their 4 × 16 × 16 × 64 byte products; a fused disjoint pair is simply its two products into the same
// accumulators (they share no bit, so the sum is the pair's count). Counts are exact in int32: a group's sum over a
// pair is below 2^31 (callers guarantee it fits in u32, and fields < 2^31 per term).
// Tile registers: tmm0–3 sums (row tile i, column tile j in tmm 2i + j), tmm4–5 A, tmm6–7 B, all 16 rows × 64 bytes
// (amxTileConfig). 2 × 2 is the largest blocking 8 tile registers allow, and it loads one tile per TDPBUUD.
#pragma once

#include <cstddef>
#include <cstdint>

#include "amxPacking.h"

#if defined(SNPTALLY_AMX_BUILT)
#define SNPTALLY_AMX __attribute__((target("amx-tile,amx-int8,avx512f,avx512bw")))

namespace snptally::native {

/** One product of a group in packed micro-panels: tile indices of chunk 0 of its planes, and its chunks here. */
struct AmxProduct {
  ptrdiff_t aZeroTile, bZeroTile;
  int chunkFirst, chunkEnd;
};

/** LDTILECFG's 64-byte operand: palette 1, every tile register 16 rows × 64 bytes, or the sums' and A's `rows` rows. */
struct alignas(64) AmxTileConfig {
  uint8_t palette = 1, startRow = 0;
  uint8_t reserved[14] = {};
  uint16_t bytesPerRow[16] = {64, 64, 64, 64, 64, 64, 64, 64};
  uint8_t rows[16] = {16, 16, 16, 16, 16, 16, 16, 16};

  AmxTileConfig() = default;
  /** Sums (tmm0–3) and A (tmm4–5) of `rows` rows, B (tmm6–7) of 16 (its K = 64 fields). */
  explicit AmxTileConfig(int sumRows) {
    for (int t = 0; t < 6; t++) rows[t] = static_cast<uint8_t>(sumRows);
  }
};

/** The configurations: index r < 16 for sums of r rows (a panel's last ragged rows), 16 the usual one. */
inline const AmxTileConfig& amxTileConfig(int sumRows) {
  static const AmxTileConfig configs[17] = {
      AmxTileConfig(16), AmxTileConfig(1),  AmxTileConfig(2),  AmxTileConfig(3),  AmxTileConfig(4),  AmxTileConfig(5),
      AmxTileConfig(6),  AmxTileConfig(7),  AmxTileConfig(8),  AmxTileConfig(9),  AmxTileConfig(10), AmxTileConfig(11),
      AmxTileConfig(12), AmxTileConfig(13), AmxTileConfig(14), AmxTileConfig(15), AmxTileConfig(16)};
  return configs[sumRows];
}

/** A 32 × 32 tile's sums: its four 16 × 16 int32 tiles (rows 0–15 × columns 0–15, 0–15 × 16–31, 16–31 × 0–15, 16–31 × 16–31). */
struct AmxSums {
  int32_t* tiles[4];
  size_t strideBytes;  // between rows of a tile
  bool addTo;          // add to the sums there (else replace them)
};

/**
 * The upper half of amxMicrokernel: sums rows 0..numRows − 1 (≤ 16; tiles 0 and 1) from the A micro-panel a0 alone,
 * for a panel's last rows. Fewer than 16 rows run under a tile configuration of that many, as TDPBUUD takes time in
 * proportion to its rows (KING's diagonal tasks of 68–110 rows: padded to 32, the kernel was slower than the 4×4 one).
 */
SNPTALLY_AMX inline void amxMicrokernelUpperHalf(const uint8_t* a0, const uint8_t* b0, const uint8_t* b1,
                                                 const AmxProduct* products, int numProducts, const AmxSums& sums, int numRows) {
  // LDTILECFG zeroes every tile: the sums are loaded or zeroed after it.
  if (numRows < kAmxTileRows) _tile_loadconfig(&amxTileConfig(numRows));
  if (sums.addTo) {
    _tile_loadd(0, sums.tiles[0], sums.strideBytes);
    _tile_loadd(1, sums.tiles[1], sums.strideBytes);
  } else {
    _tile_zero(0);
    _tile_zero(1);
  }
  for (int t = 0; t < numProducts; t++) {
    const AmxProduct& product = products[t];
    for (int c = product.chunkFirst; c < product.chunkEnd; c++) {
      const size_t aAt = static_cast<size_t>(product.aZeroTile + c) * kAmxTileBytes;
      const size_t bAt = static_cast<size_t>(product.bZeroTile + c) * kAmxTileBytes;
      _tile_loadd(4, a0 + aAt, 64);
      _tile_loadd(6, b0 + bAt, 64);
      _tile_dpbuud(0, 4, 6);
      _tile_loadd(7, b1 + bAt, 64);
      _tile_dpbuud(1, 4, 7);
    }
  }
  _tile_stored(0, sums.tiles[0], sums.strideBytes);
  _tile_stored(1, sums.tiles[1], sums.strideBytes);
  if (numRows < kAmxTileRows) _tile_loadconfig(&amxTileConfig(kAmxTileRows));
}

/**
 * sums (32 × 32) = (sums when addTo, else 0) + Σ over products Σ over their chunks of A rows × B columns, for the A
 * micro-panels a0 (rows 0–15), a1 (rows 16–31) and the B micro-panels b0 (columns 0–15), b1 (columns 16–31).
 */
SNPTALLY_AMX inline void amxMicrokernel(const uint8_t* a0, const uint8_t* a1, const uint8_t* b0, const uint8_t* b1,
                                        const AmxProduct* products, int numProducts, const AmxSums& sums) {
  if (sums.addTo) {
    _tile_loadd(0, sums.tiles[0], sums.strideBytes);
    _tile_loadd(1, sums.tiles[1], sums.strideBytes);
    _tile_loadd(2, sums.tiles[2], sums.strideBytes);
    _tile_loadd(3, sums.tiles[3], sums.strideBytes);
  } else {
    _tile_zero(0);
    _tile_zero(1);
    _tile_zero(2);
    _tile_zero(3);
  }
  for (int t = 0; t < numProducts; t++) {
    const AmxProduct& product = products[t];
    for (int c = product.chunkFirst; c < product.chunkEnd; c++) {
      const size_t aAt = static_cast<size_t>(product.aZeroTile + c) * kAmxTileBytes;
      const size_t bAt = static_cast<size_t>(product.bZeroTile + c) * kAmxTileBytes;
      _tile_loadd(4, a0 + aAt, 64);
      _tile_loadd(6, b0 + bAt, 64);
      _tile_dpbuud(0, 4, 6);
      _tile_loadd(7, b1 + bAt, 64);
      _tile_dpbuud(1, 4, 7);
      _tile_loadd(5, a1 + aAt, 64);
      _tile_dpbuud(2, 5, 6);
      _tile_dpbuud(3, 5, 7);
    }
  }
  _tile_stored(0, sums.tiles[0], sums.strideBytes);
  _tile_stored(1, sums.tiles[1], sums.strideBytes);
  _tile_stored(2, sums.tiles[2], sums.strideBytes);
  _tile_stored(3, sums.tiles[3], sums.strideBytes);
}

}  // namespace snptally::native
#endif
