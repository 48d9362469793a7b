// One-term groups whose plane on one side is mostly ones (a presence plane: 1 % missing calls), computed as a sparse
// correction instead of a dense product:
//   Σ_w popcount(a_i[w] & b_j[w]) = popcount(a_i) − Σ_{f : b_j[f] = 0} a_i[f]   (B's plane mostly ones)
//                                 = popcount(b_j) − Σ_{f : a_i[f] = 0} b_j[f]   (A's plane mostly ones)
// over the term's words. Why: KING's het·present products cost as much as its het·het one, while the fields where
// present is 0 are ~1 % of them. The rows of the other ("dense") side are transposed to field-major 64-row words in
// blocks of 64, and each row of the mostly-ones side adds the words of its zero fields into 64 byte counters (two ops
// per zero field), so a 64-row block costs a few ops per zero field instead of a dense sweep per pair. Those forms are
// kept per thread across tasks where the caller names its operands (GemmTask.operandIds). The choice is made per task
// from the operands' own bits (like the disjoint pairs of horizontal4x4.cc), so any analysis benefits and the counts
// stay exact: the correction counts a subset of the dense row's bits.
#include <algorithm>

#include "popcountKernel.h"

#if defined(__x86_64__)
namespace snptally::native {
namespace {

constexpr int kLanes = 64;           // dense rows per block: one bit each of a u64, one byte counter each of a zmm
constexpr int kChunkFields = 512;    // fields per transposed chunk: 8 u64 of each of the 64 rows, one zmm per row
constexpr int kMaxByteAdds = 255;    // byte counters take this many adds before they are widened

// 8 independent 64×64 bit transposes, one per 64-bit lane: in: r[k] lane l bit c = row k's field 64l + c; out: r[k]
// lane l bit k' = row k' 's field 64l + k (Hacker's Delight's transpose by swaps of halves, quarters, …).
SNPTALLY_AVX512BW void transpose64x8(__m512i r[kLanes]) {
  uint64_t mask = 0x00000000ffffffffULL;
  for (int j = 32; j != 0; j >>= 1, mask ^= mask << j) {
    const __m512i m = _mm512_set1_epi64(static_cast<long long>(mask));
    for (int k = 0; k < kLanes; k = ((k | j) + 1) & ~j) {
      // t = ((r[k] >> j) ^ r[k|j]) & m  (truth table of (A ^ B) & C: 0x28)
      const __m512i t = _mm512_ternarylogic_epi64(_mm512_srli_epi64(r[k], j), r[k | j], m, 0x28);
      r[k] = _mm512_xor_si512(r[k], _mm512_slli_epi64(t, j));
      r[k | j] = _mm512_xor_si512(r[k | j], t);
    }
  }
}

// Dense rows [rowBegin, rowBegin + numRows ≤ 64) of `plane` as field-major words: bit r of out[T(f)] = row r's field
// f, for the chunks of 512 fields from fieldBase (a multiple of 512) up to wordEnd (u32 words); T(f) = chunk·512 +
// (f mod 64)·8 + (f mod 512)/64, the lane order transpose64x8 leaves them in.
SNPTALLY_AVX512BW void transposeRows(const Operand& M, int plane, int rowBegin, int numRows, int fieldBase, int wordEnd,
                                     uint64_t* out) {
  __m512i r[kLanes];
  for (int chunkWord = fieldBase / 32, c = 0; chunkWord < wordEnd; chunkWord += 16, c++) {
    const __mmask16 load = chunkWord + 16 <= wordEnd ? static_cast<__mmask16>(0xffff)
                                                     : static_cast<__mmask16>((1u << (wordEnd - chunkWord)) - 1);
    for (int k = 0; k < kLanes; k++) {
      r[k] = k < numRows ? _mm512_maskz_loadu_epi32(load, M.row(rowBegin + k, plane) + chunkWord) : _mm512_setzero_si512();
    }
    transpose64x8(r);
    for (int k = 0; k < kLanes; k++) _mm512_storeu_si512(out + static_cast<size_t>(c) * kChunkFields + 8 * k, r[k]);
  }
}

// Per row of a block of the mostly-ones side, its zero fields in [wordFirst, wordEnd) as indices T(f) into
// transposeRows' words (fields from fieldBase).
struct ZeroLists {
  std::vector<uint32_t> entries;
  std::vector<size_t> starts;  // row k's entries are [starts[k], starts[k + 1]); empty: not built yet
};

SNPTALLY_AVX512BW void zeroListsOf(const Operand& M, int plane, int rowBegin, int numRows, int wordFirst, int wordEnd,
                                   int fieldBase, ZeroLists& lists) {
  lists.entries.clear();
  lists.starts.assign(1, 0);
  for (int s = rowBegin; s < rowBegin + numRows; s++) {
    const uint32_t* words = M.row(s, plane);
    for (int w = wordFirst; w < wordEnd; w += 16) {
      const __mmask16 load = w + 16 <= wordEnd ? static_cast<__mmask16>(0xffff) : static_cast<__mmask16>((1u << (wordEnd - w)) - 1);
      // Words with a zero bit (whole words of ones are the common case and are skipped 16 at a time).
      __mmask16 withZeros = _mm512_mask_cmpneq_epu32_mask(load, _mm512_maskz_loadu_epi32(load, words + w), _mm512_set1_epi32(-1));
      while (withZeros != 0) {
        const int word = w + __builtin_ctz(withZeros);
        withZeros = static_cast<__mmask16>(withZeros & (withZeros - 1));
        for (uint32_t zeros = ~words[word]; zeros != 0; zeros &= zeros - 1) {
          const int f = 32 * word + __builtin_ctz(zeros) - fieldBase;
          lists.entries.push_back(static_cast<uint32_t>((f & ~(kChunkFields - 1)) | ((f & 63) << 3) | ((f >> 6) & 7)));
        }
      }
    }
    lists.starts.push_back(lists.entries.size());
  }
}

// The 64 byte counters' sum over `count` zero fields: Σ_k bits of transposed[list[k]], added to `sums` (u32 × 64).
// 0xff in the bytes of the lanes whose bit the field's word has.
SNPTALLY_AVX512BW inline __m512i bitsOf(const uint64_t* transposed, uint32_t entry) {
  return _mm512_movm_epi8(_cvtu64_mask64(transposed[entry]));
}

SNPTALLY_AVX512BW void addZeroFieldCounts(const uint64_t* transposed, const uint32_t* list, size_t count, __m512i sums[4]) {
  // bytes − (−1 where the field's word has the lane's bit): VPMOVM2B and VPSUBB, where a merge-masked add makes the
  // compiler copy its counter every time; four counters, so that they are not one dependency chain.
  for (size_t k = 0; k < count;) {
    __m512i counters[4] = {_mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512()};
    const size_t end = std::min(count, k + 4 * static_cast<size_t>(kMaxByteAdds));
    for (; k + 4 <= end; k += 4) {
      counters[0] = _mm512_sub_epi8(counters[0], bitsOf(transposed, list[k]));
      counters[1] = _mm512_sub_epi8(counters[1], bitsOf(transposed, list[k + 1]));
      counters[2] = _mm512_sub_epi8(counters[2], bitsOf(transposed, list[k + 2]));
      counters[3] = _mm512_sub_epi8(counters[3], bitsOf(transposed, list[k + 3]));
    }
    for (int c = 0; k < end; k++, c++) counters[c] = _mm512_sub_epi8(counters[c], bitsOf(transposed, list[k]));
    // Widened to u32 per lane: bytes 16q..16q+15 of every counter into sums[q].
    for (const __m512i& bytes : counters) {
      sums[0] = _mm512_add_epi32(sums[0], _mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32(bytes, 0)));
      sums[1] = _mm512_add_epi32(sums[1], _mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32(bytes, 1)));
      sums[2] = _mm512_add_epi32(sums[2], _mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32(bytes, 2)));
      sums[3] = _mm512_add_epi32(sums[3], _mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32(bytes, 3)));
    }
  }
}

// The fraction of zero bits of `plane` over words [wordFirst, wordEnd) of up to kSampleRows rows spread evenly over
// [rowBegin, rowEnd): enough to tell a presence plane (~1 % zeros) from a genotype plane (~2/3), at a cost that does
// not grow with the panel.
constexpr int kSampleRows = 32;

SNPTALLY_AVX512BW double zeroFraction(const Operand& M, int plane, int rowBegin, int rowEnd, int wordFirst, int wordEnd) {
  __m512i ones = _mm512_setzero_si512();
  const int numRows = rowEnd - rowBegin, numSampled = std::min(numRows, kSampleRows);
  for (int k = 0; k < numSampled; k++) {
    const int r = rowBegin + static_cast<int>(static_cast<int64_t>(k) * numRows / numSampled);
    const uint32_t* words = M.row(r, plane);
    for (int w = wordFirst; w < wordEnd; w += 16) {
      const __mmask16 load = w + 16 <= wordEnd ? static_cast<__mmask16>(0xffff) : static_cast<__mmask16>((1u << (wordEnd - w)) - 1);
      ones = _mm512_add_epi64(ones, _mm512_popcnt_epi64(_mm512_maskz_loadu_epi32(load, words + w)));
    }
  }
  return 1.0 - static_cast<double>(_mm512_reduce_add_epi64(ones)) / (32.0 * (wordEnd - wordFirst) * numSampled);
}


// [first, end) of the words within [wordFirst, wordEnd) where some row of the matrix has a bit of `plane` (outside,
// every correction is 0: the fields there are left out of the zero lists, such as the pad fields past the last SNP).
SNPTALLY_AVX512BW std::pair<int, int> wordBoundsOf(const Operand& whole, int plane, int wordFirst, int wordEnd) {
  int first = wordEnd, end = wordFirst;
  for (int row = 0; row < whole.numRows; row++) {
    const uint32_t* words = whole.row(row, plane);
    for (int w = wordFirst; w < first; w++) {
      if (words[w] != 0) { first = w; break; }
    }
    for (int w = wordEnd; w > std::max(end, first); w--) {
      if (words[w - 1] != 0) { end = w; break; }
    }
  }
  return {first, std::max(first, end)};
}

// What one side of a term has derived from its matrix (by 64-row blocks of the whole matrix, built when first needed):
// as the dense side its rows' popcounts and field-major words, as the mostly-ones side its rows' zero lists. Kept per
// thread across tasks where the caller names its operands (GemmTask.operandIds: one id, the same words), else per call.
struct SideForms {
  uint64_t matrixId = 0;  // 0: not kept
  const uint32_t* words;
  int plane, termFirst, termEnd;          // the key besides the id and the role
  bool onesRole;
  int wordFirst, wordEnd, fieldBase;      // the words where the dense plane has bits (dense side: its own; ones side: the other's)
  std::vector<std::vector<uint64_t>> transposed;  // dense side, per block
  std::vector<std::vector<uint32_t>> rowCounts;   // dense side, per block
  std::vector<ZeroLists> zeroLists;               // ones side, per block
  uint64_t lastUse = 0;
};

constexpr size_t kKeptForms = 4;  // a and b, each as dense and as ones side
// A matrix's forms are kept only up to about this many bytes (its transposed plane, one bit per field and row, as
// large as the plane itself): a larger block is worked through 64 rows at a time, each block's forms dropped after use.
constexpr double kKeptFormBytes = 256.0 * (1 << 20);

SNPTALLY_AVX512BW SideForms& formsOf(uint64_t matrixId, bool onesRole, const Operand& whole, int plane, int termFirst,
                                    int termEnd, std::pair<int, int> bounds) {
  // Slots replaced in place (the least recently used), so that the forms returned earlier in a call stay where they are.
  thread_local SideForms kept[kKeptForms];
  thread_local SideForms once[2];  // per call where the caller names no operands: one per role
  thread_local uint64_t useCount = 0;
  useCount++;
  const int numBlocks = (whole.numRows + kLanes - 1) / kLanes;
  const int fieldBase = (32 * bounds.first) & ~(kChunkFields - 1);
  const auto matches = [&](const SideForms& f) {
    return f.matrixId == matrixId && f.words == whole.words && f.plane == plane && f.onesRole == onesRole && f.termFirst == termFirst &&
           f.termEnd == termEnd && f.wordFirst == bounds.first && f.wordEnd == bounds.second;
  };
  SideForms* forms = &once[onesRole ? 1 : 0];
  if (static_cast<double>(whole.numRows) * (32.0 * bounds.second - fieldBase) / 8 > kKeptFormBytes) matrixId = 0;
  if (matrixId != 0) {
    SideForms* const found = std::find_if(std::begin(kept), std::end(kept), matches);
    if (found != std::end(kept)) {
      found->lastUse = useCount;
      return *found;
    }
    forms = std::min_element(std::begin(kept), std::end(kept), [](const SideForms& x, const SideForms& y) { return x.lastUse < y.lastUse; });
  }
  *forms = SideForms{matrixId, whole.words, plane, termFirst, termEnd, onesRole, bounds.first, bounds.second, fieldBase, {}, {}, {}, useCount};
  forms->transposed.resize(static_cast<size_t>(numBlocks));
  forms->rowCounts.resize(static_cast<size_t>(numBlocks));
  forms->zeroLists.resize(static_cast<size_t>(numBlocks));
  return *forms;
}

// Block `block` of the dense side: its rows' popcounts over the term's words and their field-major words.
SNPTALLY_AVX512BW void buildDenseBlock(const Operand& whole, SideForms& forms, int block) {
  const int rowBegin = block * kLanes, numRows = std::min(kLanes, whole.numRows - rowBegin);
  std::vector<uint32_t>& counts = forms.rowCounts[static_cast<size_t>(block)];
  counts.assign(static_cast<size_t>(kLanes), 0);
  for (int k = 0; k < numRows; k++) {
    const uint32_t* words = whole.row(rowBegin + k, forms.plane);
    __m512i sum = _mm512_setzero_si512();
    for (int w = forms.termFirst; w < forms.termEnd; w += 16) {
      const __mmask16 load = w + 16 <= forms.termEnd ? static_cast<__mmask16>(0xffff) : static_cast<__mmask16>((1u << (forms.termEnd - w)) - 1);
      sum = _mm512_add_epi64(sum, _mm512_popcnt_epi64(_mm512_maskz_loadu_epi32(load, words + w)));
    }
    counts[static_cast<size_t>(k)] = static_cast<uint32_t>(_mm512_reduce_add_epi64(sum));
  }
  std::vector<uint64_t>& transposed = forms.transposed[static_cast<size_t>(block)];
  const int numChunks = forms.wordEnd > forms.wordFirst ? (32 * forms.wordEnd - forms.fieldBase + kChunkFields - 1) / kChunkFields : 0;
  transposed.resize(static_cast<size_t>(numChunks) * kChunkFields);
  if (numChunks > 0) transposeRows(whole, forms.plane, rowBegin, numRows, forms.fieldBase, forms.wordEnd, transposed.data());
}

}  // namespace

SNPTALLY_AVX512BW ComplementSide complementSideOf(const Operand& A, const Operand& B, const Panel& p, const Group& group,
                                                  ComplementChoice choice) {
  if (choice == ComplementChoice::kNever || group.terms.size() != 1 || group.terms[0].aPlane2 >= 0) return ComplementSide::kNone;
  static const bool hasAvx512Bw = (__builtin_cpu_init(), __builtin_cpu_supports("avx512bw"));
  if (!hasAvx512Bw) return ComplementSide::kNone;
  const Term& term = group.terms[0];
  if (term.wordEnd <= term.wordFirst || p.rowEnd <= p.rowBegin || p.bCount <= p.colBegin) return ComplementSide::kNone;
  const double zerosA = zeroFraction(A, term.aPlane, p.rowBegin, p.rowEnd, term.wordFirst, term.wordEnd);
  const double zerosB = zeroFraction(B, term.bPlane, p.colBegin, p.bCount, term.wordFirst, term.wordEnd);
  const ComplementSide side = zerosB <= zerosA ? ComplementSide::kOnesInB : ComplementSide::kOnesInA;
  if (choice == ComplementChoice::kAlways) return side;
  // A dense pair costs ~3 ops per 16 words (AND, VPOPCNTQ, ADD); the correction ~3 per zero field and 64-row block (the
  // random load of its word, VPMOVM2B, VPSUBB), plus the dense rows' transposition and the zero lists, built once per
  // matrix where the caller names its operands. So it wins while a row has under ~(3/16)·64/3 = 4 zero fields per
  // word; require far fewer (1 in 32 fields) to leave a margin for those builds, and enough pairs to amortize them.
  const int denseRows = side == ComplementSide::kOnesInB ? p.rowEnd - p.rowBegin : p.bCount - p.colBegin;
  const int onesRows = side == ComplementSide::kOnesInB ? p.bCount - p.colBegin : p.rowEnd - p.rowBegin;
  return std::min(zerosA, zerosB) <= 1.0 / 32 && onesRows >= 16 && denseRows >= 16 ? side : ComplementSide::kNone;
}

SNPTALLY_AVX512BW void runComplementGroup(const Operand& A, const Operand& B, const Term& term, ComplementSide side,
                                          const Panel& p, uint32_t* out, const OperandIds& ids) {
  const bool onesInB = side == ComplementSide::kOnesInB;
  const Operand& dense = onesInB ? A : B;
  const Operand& ones = onesInB ? B : A;
  Operand denseWhole = dense, onesWhole = ones;
  denseWhole.first = 0;
  onesWhole.first = 0;
  const int densePlane = onesInB ? term.aPlane : term.bPlane, onesPlane = onesInB ? term.bPlane : term.aPlane;
  // Request-local rows of each side, and where a (dense lane, ones row) cell lies in the output.
  const int denseBegin = onesInB ? p.rowBegin : p.colBegin, denseEnd = onesInB ? p.rowEnd : p.bCount;
  const int onesBegin = onesInB ? p.colBegin : p.rowBegin, onesEnd = onesInB ? p.bCount : p.rowEnd;
  const size_t laneStride = onesInB ? static_cast<size_t>(p.bCount) : 1, listStride = onesInB ? 1 : static_cast<size_t>(p.bCount);
  const uint64_t denseId = onesInB ? ids.a : ids.b, onesId = onesInB ? ids.b : ids.a;

  const auto bounds = wordBoundsOf(denseWhole, densePlane, term.wordFirst, term.wordEnd);
  SideForms& denseForms = formsOf(denseId, false, denseWhole, densePlane, term.wordFirst, term.wordEnd, bounds);
  // The ones side's lists are keyed by the dense side's bounds too: their fields and T(f) depend on them.
  SideForms& onesForms = formsOf(onesId, true, onesWhole, onesPlane, term.wordFirst, term.wordEnd, bounds);
  for (int s = onesBegin; s < onesEnd;) {
    const int block = (ones.first + s) / kLanes;
    ZeroLists& lists = onesForms.zeroLists[static_cast<size_t>(block)];
    if (lists.starts.empty()) {
      zeroListsOf(onesWhole, onesPlane, block * kLanes, std::min(kLanes, ones.numRows - block * kLanes), bounds.first, bounds.second,
                  onesForms.fieldBase, lists);
    }
    s = (block + 1) * kLanes - ones.first;
  }
  for (int laneBlock = (dense.first + denseBegin) / kLanes; laneBlock * kLanes < dense.first + denseEnd; laneBlock++) {
    // Request-local lanes [laneBegin, laneEnd) of this block that are in the panel.
    const int blockLocal = laneBlock * kLanes - dense.first;
    const int laneBegin = std::max(denseBegin, blockLocal), laneEnd = std::min(denseEnd, blockLocal + kLanes);
    // strictUpper: cells r < c are needed; columns left of a block of rows, or rows below a block of columns, are not.
    int listBegin = onesBegin, listEnd = onesEnd;
    if (p.strictUpper) {
      if (onesInB) listBegin = std::max(listBegin, laneBegin + 1);
      else listEnd = std::min(listEnd, laneEnd - 1);
    }
    if (listBegin >= listEnd) continue;
    if (denseForms.rowCounts[static_cast<size_t>(laneBlock)].empty()) buildDenseBlock(denseWhole, denseForms, laneBlock);
    const uint64_t* transposed = denseForms.transposed[static_cast<size_t>(laneBlock)].data();
    const uint32_t* counts = denseForms.rowCounts[static_cast<size_t>(laneBlock)].data();
    // The zero fields read the block's words in random order: swept into the cache first, they stream from memory
    // instead of waiting on one miss after another (a kept block of another task is rarely still in L2).
    const size_t transposedWords = denseForms.transposed[static_cast<size_t>(laneBlock)].size();
    for (size_t w = 0; w < transposedWords; w += 8) _mm_prefetch(reinterpret_cast<const char*>(transposed + w), _MM_HINT_T1);
    for (int s = listBegin; s < listEnd; s++) {
      const int onesRow = ones.first + s;
      const ZeroLists& lists = onesForms.zeroLists[static_cast<size_t>(onesRow / kLanes)];
      const size_t k = static_cast<size_t>(onesRow % kLanes);
      __m512i sums[4] = {_mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512()};
      addZeroFieldCounts(transposed, lists.entries.data() + lists.starts[k], lists.starts[k + 1] - lists.starts[k], sums);
      alignas(64) uint32_t corrections[kLanes];
      for (int q = 0; q < 4; q++) _mm512_store_si512(corrections + 16 * q, sums[q]);
      uint32_t* target = out + static_cast<size_t>(s) * listStride;
      for (int lane = laneBegin; lane < laneEnd; lane++) {
        const int k2 = dense.first + lane - laneBlock * kLanes;
        target[static_cast<size_t>(lane) * laneStride] = counts[k2] - corrections[k2];
      }
    }
    // Forms kept for this call only: one block's words at a time.
    if (denseForms.matrixId == 0) std::vector<uint64_t>().swap(denseForms.transposed[static_cast<size_t>(laneBlock)]);
  }
}

}  // namespace snptally::native
#endif
