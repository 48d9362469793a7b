// What the native popcount-GEMM kernels share: a request's operands, terms and panel as the N-API entry
// (popcountAvx512.cc) hands them over, and the kernels' entry points (horizontal4x4.cc, verticalLoops.cc, amxLoops.cc).
//
// Identity of both: out[g][r·bCount + c] = Σ_(pa,pb) ∈ group g  Σ_w popcount(A[aFirst+r][pa][w] AND B[bFirst+c][pb][w])
// for the panel's rows r and columns c (mgemm/contract.ts), every cell of the panel they compute overwritten.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
// Functions carry target attributes, so the files compile on any x86-64 compiler and the caller checks the CPU
// before use (cpuHasAvx512Popcount).
#define SNPTALLY_AVX512 __attribute__((target("avx512f,avx512vpopcntdq")))
// The complement terms' byte counters need AVX512BW too (complementSideOf checks the CPU).
#define SNPTALLY_AVX512BW __attribute__((target("avx512f,avx512bw,avx512vpopcntdq")))
// The AMX kernel needs a compiler with the AMX intrinsics (GCC 11, clang 12); built without them, amxSupport() says so.
#if (defined(__clang__) && __clang_major__ >= 12) || (!defined(__clang__) && defined(__GNUC__) && __GNUC__ >= 11)
#define SNPTALLY_AMX_BUILT 1
#endif
#endif

namespace snptally::native {

/** One operand: a plane matrix in shared memory and the request's first row of it. */
struct Operand {
  const uint32_t* words;
  int numPlanes;
  int wordsPerPlane;
  int first;  // request's first row
  int numRows = 0;  // rows of the whole matrix
  const uint32_t* row(int r, int plane) const {
    return words + (static_cast<size_t>(first + r) * numPlanes + plane) * wordsPerPlane;
  }
};

// A term (pa, pb) and the words [first, end) where both its planes may have bits (the request's planeWordRanges). A
// disjoint pair (aPlane2 ≥ 0) adds the second product (aPlane2, bPlane2), which never shares a bit with the first,
// over the union of both terms' words (outside a term's words its product is zero).
struct Term {
  int aPlane, bPlane, wordFirst, wordEnd;
  int aPlane2 = -1, bPlane2 = -1;
};

/** A group's terms and its output (aCount × bCount, row-major). */
struct Group {
  std::vector<Term> terms;
  uint32_t* out;
};

/** Rows [rowBegin, rowEnd) against columns [colBegin, bCount) (request-local); strictUpper: only cells r < c. */
struct Panel {
  int rowBegin, rowEnd, colBegin, bCount;
  bool strictUpper;
};

/** The kernels. */
enum class KernelLayout { kHorizontal, kVertical, kAmx };

/** amxSupport.cc: whether this process may use AMX-INT8 tiles (checked once), or why not. */
struct AmxSupport {
  bool available;
  std::string reason;
};
const AmxSupport& amxSupport();

/** Which kernels chooseLayout may pick besides the two AVX-512 ones. */
struct LayoutCandidates {
  bool amx;
};

/** layoutChoice.cc: the kernel expected to compute this panel of these (planned) groups sooner. */
KernelLayout chooseLayout(const std::vector<Group>& groups, const Panel& panel, const LayoutCandidates& candidates);

#if defined(__x86_64__)
/** The group's terms as the kernels run them: a two-term group whose products share no bit on this panel fused. */
SNPTALLY_AVX512 std::vector<Term> plannedTerms(const Operand& A, const Operand& B, const Panel& panel, std::vector<Term> terms);

/** horizontal4x4.cc: one group over the panel, 4×4 tiles of horizontal sums, read straight from the operands. */
SNPTALLY_AVX512 void runGroupHorizontal(const Operand& A, const Operand& B, const std::vector<Term>& terms, const Panel& p,
                                        uint32_t* out);

/** verticalLoops.cc: every group over the panel, packed operands, 12×32 tiles with one column per u32 lane. */
SNPTALLY_AVX512 void runGroupsVertical(const Operand& A, const Operand& B, const std::vector<Group>& groups, const Panel& p);

/** Which side of a one-term group has the mostly-ones plane computed as a sparse correction (complementTerms.cc). */
enum class ComplementSide { kNone, kOnesInA, kOnesInB };

/** Whether complementSideOf may pick a side: by its cost model, never, or wherever it applies (tests). */
enum class ComplementChoice { kAuto, kNever, kAlways };

/** complementTerms.cc: the side whose plane is mostly ones where the correction costs less than the dense product. */
SNPTALLY_AVX512BW ComplementSide complementSideOf(const Operand& A, const Operand& B, const Panel& p, const Group& group,
                                                ComplementChoice choice);

/**
 * The caller's names of a task's operands (GemmTask.operandIds): the same non-zero id means the same words, so forms
 * derived from them may be kept across tasks; 0: none.
 */
struct OperandIds {
  uint64_t a, b;
};

/** complementTerms.cc: one one-term group over the panel as the popcount of the dense side less the sparse correction. */
SNPTALLY_AVX512BW void runComplementGroup(const Operand& A, const Operand& B, const Term& term, ComplementSide side,
                                        const Panel& p, uint32_t* out, const OperandIds& ids);

#if defined(SNPTALLY_AMX_BUILT)
/** amxLoops.cc: every group over the panel, bits expanded to bytes, 32×32 tiles of TDPBUUD (needs amxSupport()). */
void runGroupsAmx(const Operand& A, const Operand& B, const std::vector<Group>& groups, const Panel& p);
#endif
#endif

}  // namespace snptally::native
