// The horizontal AVX-512 popcount-GEMM kernel: 4×4 tiles read straight from the plane matrices in shared memory (no
// packing), one vector of 8 words per (row, column) pair summed across its lanes at the tile's end, blocked for the
// caches. Why: VPOPCNTQ counts 8 words per instruction where the wasm kernel's scalar popcnt counts one, so the 4×4
// microkernel below runs about 5× more field pairs per cycle (its AND/ADD, not the popcounts, are then the limit:
// 512-bit ops issue on two ports). Long planes suit it (dense CCC); for short ones the per-tile horizontal sums cost as
// much as the loop, and verticalLoops.cc does better (popcountAvx512.cc chooses).
// A two-term group whose products share no bit (opposite homozygotes, het-vs-hom: one-hot planes) runs as one fused
// product (microkernelDisjointPair4x4), checked on the operands per task (plannedTerms, shared with the vertical kernel).
#include <algorithm>

#include "popcountKernel.h"

#if defined(__x86_64__)
namespace snptally::native {
namespace {

constexpr int kMr = 4;  // rows of A per microkernel tile
constexpr int kNr = 4;  // rows of B per microkernel tile
// K block in u32 words: 4 A rows + a B block of kNcRows rows, each plane row kKcWords·4 bytes, stay in L2.
constexpr int kKcWords = 2048;
constexpr int kNcRows = 64;

// acc[i][j] += the 16 horizontal sums of s[i][j], in one tree (42 shuffles and adds, where 16 _mm512_reduce_add_epi64
// take ~110 ops — as much as the loop itself when a plane is a few hundred words): pairs of sums share a vector, then
// quads, then eight, which come out in acc's order (k = 4i + j).
SNPTALLY_AVX512 inline void addTileSums(const __m512i s[kMr][kNr], uint64_t acc[kMr][kNr]) {
  __m512i pairs[8], quads[4], eights[2];
  for (int m = 0; m < 8; m++) {
    const __m512i x = s[(2 * m) / kNr][(2 * m) % kNr], y = s[(2 * m + 1) / kNr][(2 * m + 1) % kNr];
    // 128-bit lane L: [x_2L + x_2L+1, y_2L + y_2L+1].
    pairs[m] = _mm512_add_epi64(_mm512_unpacklo_epi64(x, y), _mm512_unpackhi_epi64(x, y));
  }
  for (int n = 0; n < 4; n++) {
    // [x lanes 0-3, y lanes 0-3, x lanes 4-7, y lanes 4-7] of sums 4n, 4n+1, then of 4n+2, 4n+3.
    quads[n] = _mm512_add_epi64(_mm512_shuffle_i64x2(pairs[2 * n], pairs[2 * n + 1], 0x88),
                                _mm512_shuffle_i64x2(pairs[2 * n], pairs[2 * n + 1], 0xdd));
  }
  const __m512i evenHalves = _mm512_set_epi64(13, 12, 9, 8, 5, 4, 1, 0);
  const __m512i oddHalves = _mm512_set_epi64(15, 14, 11, 10, 7, 6, 3, 2);
  for (int p = 0; p < 2; p++) {
    eights[p] = _mm512_add_epi64(_mm512_permutex2var_epi64(quads[2 * p], evenHalves, quads[2 * p + 1]),
                                 _mm512_permutex2var_epi64(quads[2 * p], oddHalves, quads[2 * p + 1]));
  }
  uint64_t* flat = &acc[0][0];
  _mm512_storeu_si512(flat, _mm512_add_epi64(_mm512_loadu_si512(flat), eights[0]));
  _mm512_storeu_si512(flat + 8, _mm512_add_epi64(_mm512_loadu_si512(flat + 8), eights[1]));
}

// acc[i][j] += Σ_w popcount(a_i[w] & b_j[w]) for w in [k0, k1), with mr ≤ 4 and nr ≤ 4 real rows (missing
// rows repeat the last one; their sums are discarded by the caller).
SNPTALLY_AVX512 void microkernel4x4(const uint32_t* const a[kMr], const uint32_t* const b[kNr], int k0, int k1,
                                    uint64_t acc[kMr][kNr]) {
  __m512i s[kMr][kNr];
  for (int i = 0; i < kMr; i++)
    for (int j = 0; j < kNr; j++) s[i][j] = _mm512_setzero_si512();
  int k = k0;
  for (; k + 16 <= k1; k += 16) {
    __m512i av[kMr], bv[kNr];
    for (int i = 0; i < kMr; i++) av[i] = _mm512_loadu_si512(a[i] + k);
    for (int j = 0; j < kNr; j++) bv[j] = _mm512_loadu_si512(b[j] + k);
    for (int i = 0; i < kMr; i++)
      for (int j = 0; j < kNr; j++)
        s[i][j] = _mm512_add_epi64(s[i][j], _mm512_popcnt_epi64(_mm512_and_si512(av[i], bv[j])));
  }
  if (k < k1) {
    const __mmask16 mask = static_cast<__mmask16>((1u << (k1 - k)) - 1);
    __m512i av[kMr], bv[kNr];
    for (int i = 0; i < kMr; i++) av[i] = _mm512_maskz_loadu_epi32(mask, a[i] + k);
    for (int j = 0; j < kNr; j++) bv[j] = _mm512_maskz_loadu_epi32(mask, b[j] + k);
    for (int i = 0; i < kMr; i++)
      for (int j = 0; j < kNr; j++)
        s[i][j] = _mm512_add_epi64(s[i][j], _mm512_popcnt_epi64(_mm512_and_si512(av[i], bv[j])));
  }
  addTileSums(s, acc);
}

// x | (y & z) as one VPTERNLOGQ of operands (x, y, z), whose truth tables are 0xF0, 0xCC, 0xAA: 0xF0 | (0xCC & 0xAA).
constexpr int kTernOrOfAnd = 0xF8;

// The fused microkernel of a two-term group whose products never share a bit (plannedTerms below), its second planes
// `aPlaneStep` and `bPlaneStep` words after the first in each row:
// acc[i][j] += Σ_w popcount((a_i[w] & b_j[w]) | (c_i[w] & d_j[w])) = Σ_w popcount(a_i & b_j) + popcount(c_i & d_j),
// c_i = a_i + aPlaneStep, d_j = b_j + bPlaneStep. Why: one AND, one ternary logic op, one popcount and one add per
// vector pair where two products take six, and the loop is port-bound (512-bit ops issue on two ports, VPOPCNTQ on
// one). Plane steps instead of 8 more row pointers keep the pointers in registers; b and d load per column, so the 16
// sums, 8 A vectors and 2 B vectors stay in the 32 vector registers.
SNPTALLY_AVX512 void microkernelDisjointPair4x4(const uint32_t* const a[kMr], const uint32_t* const b[kNr],
                                                ptrdiff_t aPlaneStep, ptrdiff_t bPlaneStep, int k0, int k1,
                                                uint64_t acc[kMr][kNr]) {
  __m512i s[kMr][kNr];
  for (int i = 0; i < kMr; i++)
    for (int j = 0; j < kNr; j++) s[i][j] = _mm512_setzero_si512();
  const uint32_t *a0 = a[0], *a1 = a[1], *a2 = a[2], *a3 = a[3];
  const uint32_t *b0 = b[0], *b1 = b[1], *b2 = b[2], *b3 = b[3];
  for (int k = k0; k < k1; k += 16) {
    const __mmask16 mask = k + 16 <= k1 ? static_cast<__mmask16>(0xffff) : static_cast<__mmask16>((1u << (k1 - k)) - 1);
    const uint32_t* const rowsA[kMr] = {a0 + k, a1 + k, a2 + k, a3 + k};
    const uint32_t* const rowsB[kNr] = {b0 + k, b1 + k, b2 + k, b3 + k};
    __m512i av[kMr], cv[kMr];
    for (int i = 0; i < kMr; i++) {
      av[i] = _mm512_maskz_loadu_epi32(mask, rowsA[i]);
      cv[i] = _mm512_maskz_loadu_epi32(mask, rowsA[i] + aPlaneStep);
    }
    for (int j = 0; j < kNr; j++) {
      const __m512i bv = _mm512_maskz_loadu_epi32(mask, rowsB[j]);
      const __m512i dv = _mm512_maskz_loadu_epi32(mask, rowsB[j] + bPlaneStep);
      for (int i = 0; i < kMr; i++) {
        const __m512i either = _mm512_ternarylogic_epi64(_mm512_and_si512(av[i], bv), cv[i], dv, kTernOrOfAnd);
        s[i][j] = _mm512_add_epi64(s[i][j], _mm512_popcnt_epi64(either));
      }
    }
  }
  addTileSums(s, acc);
}

}  // namespace

// One term group over the panel: jc (B blocks of kNcRows) → pc (K blocks) → ir (A tiles) → jr (B tiles).
SNPTALLY_AVX512 void runGroupHorizontal(const Operand& A, const Operand& B, const std::vector<Term>& terms,
                                        const Panel& p, uint32_t* out) {
  const int wpp = A.wordsPerPlane;
  for (int jc = p.colBegin; jc < p.bCount; jc += kNcRows) {
    const int jcEnd = std::min(p.bCount, jc + kNcRows);
    // strictUpper: rows at or below this block's last column have nothing to compute in it.
    const int rowLimit = p.strictUpper ? std::min(p.rowEnd, jcEnd - 1) : p.rowEnd;
    for (int pc = 0; pc < wpp; pc += kKcWords) {
      const int pcEnd = std::min(wpp, pc + kKcWords);
      for (int ir = p.rowBegin; ir < rowLimit; ir += kMr) {
        const int mr = std::min(kMr, rowLimit - ir);
        // strictUpper: columns left of the tile's first row + 1 are not needed.
        const int jrBegin = p.strictUpper ? std::max(jc, ir + 1) : jc;
        for (int jr = jrBegin - (jrBegin - jc) % kNr; jr < jcEnd; jr += kNr) {
          const int nr = std::min(kNr, jcEnd - jr);
          uint64_t acc[kMr][kNr] = {};
          for (const Term& term : terms) {
            const int k0 = std::max(pc, term.wordFirst), k1 = std::min(pcEnd, term.wordEnd);
            if (k0 >= k1) continue;
            const uint32_t* a[kMr];
            const uint32_t* b[kNr];
            for (int i = 0; i < kMr; i++) a[i] = A.row(ir + std::min(i, mr - 1), term.aPlane);
            for (int j = 0; j < kNr; j++) b[j] = B.row(jr + std::min(j, nr - 1), term.bPlane);
            if (term.aPlane2 < 0) {
              microkernel4x4(a, b, k0, k1, acc);
              continue;
            }
            const ptrdiff_t aPlaneStep = static_cast<ptrdiff_t>(term.aPlane2 - term.aPlane) * A.wordsPerPlane;
            const ptrdiff_t bPlaneStep = static_cast<ptrdiff_t>(term.bPlane2 - term.bPlane) * B.wordsPerPlane;
            microkernelDisjointPair4x4(a, b, aPlaneStep, bPlaneStep, k0, k1, acc);
          }
          // The first K block stores instead of adding: a fresh output page read before it is written maps the
          // shared zero page, and replacing that mapping on the write flushes the TLB of every CPU running the
          // process (an IPI each), which cost 2 threads a third of their speed and 16 threads half of theirs.
          for (int i = 0; i < mr; i++) {
            uint32_t* outRow = out + static_cast<size_t>(ir + i) * p.bCount;
            if (pc == 0) {
              for (int j = 0; j < nr; j++) outRow[jr + j] = static_cast<uint32_t>(acc[i][j]);
            } else {
              for (int j = 0; j < nr; j++) outRow[jr + j] += static_cast<uint32_t>(acc[i][j]);
            }
          }
        }
      }
    }
  }
}

namespace {

// Whether planes p and r of rows [rowBegin, rowEnd) never both have a bit (one-hot genotype planes, such as HOM1 and
// HOM2): then, for any q and s, the products (p, q) and (r, s) share no bit.
SNPTALLY_AVX512 bool planesDisjoint(const Operand& M, int rowBegin, int rowEnd, int p, int r) {
  const int wpp = M.wordsPerPlane;
  for (int row = rowBegin; row < rowEnd; row++) {
    const uint32_t *x = M.row(row, p), *y = M.row(row, r);
    for (int k = 0; k < wpp; k += 16) {
      const __mmask16 mask = k + 16 <= wpp ? static_cast<__mmask16>(0xffff) : static_cast<__mmask16>((1u << (wpp - k)) - 1);
      if (_mm512_test_epi64_mask(_mm512_maskz_loadu_epi32(mask, x + k), _mm512_maskz_loadu_epi32(mask, y + k)) != 0) return false;
    }
  }
  return true;
}

}  // namespace

// The group's terms as the kernel runs them: a two-term group whose products share no bit on this panel (checked
// here, on the operands, so any analysis benefits and the sums stay exact) becomes one disjoint pair.
SNPTALLY_AVX512 std::vector<Term> plannedTerms(const Operand& A, const Operand& B, const Panel& panel, std::vector<Term> terms) {
  if (terms.size() != 2) return terms;
  const Term &first = terms[0], &second = terms[1];
  const bool disjoint = planesDisjoint(A, panel.rowBegin, panel.rowEnd, first.aPlane, second.aPlane) ||
                        planesDisjoint(B, panel.colBegin, panel.bCount, first.bPlane, second.bPlane);
  if (!disjoint) return terms;
  Term pair = first;
  pair.aPlane2 = second.aPlane;
  pair.bPlane2 = second.bPlane;
  pair.wordFirst = std::min(first.wordFirst, second.wordFirst);
  pair.wordEnd = std::max(first.wordEnd, second.wordEnd);
  return {pair};
}

}  // namespace snptally::native
#endif
