// The vertical microkernel: an MR × NR tile (NR = 16·NV) of one term group from packed micro-panels
// (verticalPacking.h), one output column per u32 lane.
//
// Identity: staged[i][j] = Σ_terms Σ_k popcount(a_i[k] & b_j[k]) over the term's words k of this block, every i < MR
// and j < NR (rows and columns past the operands' are sums of zeros, left for the caller to drop); a fused disjoint pair adds popcount((a_i & b_j) | (c_i & d_j)), which equals the sum
// of both products because they share no bit (plannedTerms).
// Why vertical: word k of NR columns lies in NV vectors, so broadcasting A's word k of row i and AND, VPOPCNTD, ADD
// make 16 (row, column) counts per three instructions, summed in their own lanes: no horizontal reduction at the
// tile's end (the 4×4 kernel's costs as much as its loop when a term spans a few vectors, as epistasis's classes do).
// Assumptions: B's micro-panel and the staging tile are 64-byte aligned, B's holds NR columns per word (zeros past the
// last column), A's MR rows per word; the term's words [k0, k1) lie in both panels' slots of its planes.
#pragma once

#include <cstddef>
#include <cstdint>

#include "popcountKernel.h"

#if defined(__x86_64__)
namespace snptally::native {

/** One term of a group in packed micro-panels: offsets of word 0 of its planes (word k at zero + k·width). */
struct PackedTerm {
  ptrdiff_t aZero, bZero;
  ptrdiff_t aZero2, bZero2;  // the fused partner's planes, when fused
  int k0, k1;                // its words in this K block
  bool fused;
};

/** Where a tile's sums go: a 64-byte aligned staging area of MR rows × NR columns, rows rowStride words apart. */
struct StagedTile {
  uint32_t* first;
  size_t rowStride;
};

template <int MR, int NV>
SNPTALLY_AVX512 inline void verticalMicrokernel(const uint32_t* aPanel, const uint32_t* bPanel, const PackedTerm* terms,
                                                int numTerms, const StagedTile& out) {
  constexpr int NR = 16 * NV;
  // x | (y & z) as one VPTERNLOGD of operands (x, y, z), whose truth tables are 0xF0, 0xCC, 0xAA: 0xF0 | (0xCC & 0xAA).
  constexpr int kTernOrOfAnd = 0xF8;
  __m512i acc[MR][NV];
#pragma GCC unroll 16
  for (int i = 0; i < MR; i++)
#pragma GCC unroll 4
    for (int v = 0; v < NV; v++) acc[i][v] = _mm512_setzero_si512();
  for (int t = 0; t < numTerms; t++) {
    const PackedTerm& term = terms[t];
    const uint32_t* a = aPanel + term.aZero + static_cast<ptrdiff_t>(term.k0) * MR;
    const uint32_t* b = bPanel + term.bZero + static_cast<ptrdiff_t>(term.k0) * NR;
    const int numWords = term.k1 - term.k0;
    if (!term.fused) {
      for (int k = 0; k < numWords; k++, a += MR, b += NR) {
        __m512i bv[NV];
#pragma GCC unroll 4
        for (int v = 0; v < NV; v++) bv[v] = _mm512_load_si512(b + 16 * v);
#pragma GCC unroll 16
        for (int i = 0; i < MR; i++) {
          const __m512i ai = _mm512_set1_epi32(static_cast<int>(a[i]));
#pragma GCC unroll 4
          for (int v = 0; v < NV; v++) acc[i][v] = _mm512_add_epi32(acc[i][v], _mm512_popcnt_epi32(_mm512_and_si512(ai, bv[v])));
        }
      }
      continue;
    }
    const ptrdiff_t aStep = term.aZero2 - term.aZero, bStep = term.bZero2 - term.bZero;
    for (int k = 0; k < numWords; k++, a += MR, b += NR) {
      __m512i bv[NV], dv[NV];
#pragma GCC unroll 4
      for (int v = 0; v < NV; v++) {
        bv[v] = _mm512_load_si512(b + 16 * v);
        dv[v] = _mm512_load_si512(b + bStep + 16 * v);
      }
#pragma GCC unroll 16
      for (int i = 0; i < MR; i++) {
        const __m512i ai = _mm512_set1_epi32(static_cast<int>(a[i]));
        const __m512i ci = _mm512_set1_epi32(static_cast<int>(a[aStep + i]));
#pragma GCC unroll 4
        for (int v = 0; v < NV; v++) {
          const __m512i either = _mm512_ternarylogic_epi32(_mm512_and_si512(ai, bv[v]), ci, dv[v], kTernOrOfAnd);
          acc[i][v] = _mm512_add_epi32(acc[i][v], _mm512_popcnt_epi32(either));
        }
      }
    }
  }
#pragma GCC unroll 16
  for (int i = 0; i < MR; i++) {
#pragma GCC unroll 4
    for (int v = 0; v < NV; v++) _mm512_store_si512(out.first + static_cast<size_t>(i) * out.rowStride + 16 * v, acc[i][v]);
  }
}

}  // namespace snptally::native
#endif
