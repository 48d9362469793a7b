// The AVX-512 popcount-GEMM kernel (x86-64 with AVX512F + AVX512_VPOPCNTDQ): one GemmTask panel, read
// straight from the plane matrices in shared memory (no packing), blocked for the caches.
//
// Identity: out[g][r·bCount + c] += Σ_(pa,pb) ∈ group g  Σ_w popcount(A[aFirst+r][pa][w] AND B[bFirst+c][pb][w]),
// the contract of mgemm/contract.ts. Sums are exact in 64-bit lanes and written to the u32 outputs (callers
// guarantee they fit); a task overwrites every cell of its panel it computes, as the wasm kernel does.
// Why: VPOPCNTQ counts 8 words per instruction where the wasm kernel's scalar popcnt counts one, so the
// 4×4 microkernel below runs about 5× more field pairs per cycle (its AND/ADD, not the popcounts, are then
// the limit: 512-bit ops issue on two ports). Functions carry target attributes, so this file compiles on
// any x86-64 compiler and the caller checks the CPU before use (cpuSupported).
#include <napi.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#define SNPTALLY_AVX512 __attribute__((target("avx512f,avx512vpopcntdq")))
#endif

namespace snptally {
// openBlasSyrk.cc: the GRM's float64 product through OpenBLAS.
void addOpenBlasExports(Napi::Env env, Napi::Object exports);
}  // namespace snptally

namespace {

constexpr int kMr = 4;  // rows of A per microkernel tile
constexpr int kNr = 4;  // rows of B per microkernel tile
// K block in u32 words: 4 A rows + a B block of kNcRows rows, each plane row kKcWords·4 bytes, stay in L2.
constexpr int kKcWords = 2048;
constexpr int kNcRows = 64;

struct Operand {
  const uint32_t* words;
  int numPlanes;
  int wordsPerPlane;
  int first;  // request's first row
  const uint32_t* row(int r, int plane) const {
    return words + (static_cast<size_t>(first + r) * numPlanes + plane) * wordsPerPlane;
  }
};

#if defined(__x86_64__)
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
  // The 16 horizontal sums in one tree (42 shuffles and adds, where 16 _mm512_reduce_add_epi64 take ~110 ops —
  // as much as the loop itself when a plane is a few hundred words): pairs of sums share a vector, then quads, then
  // eight, which come out in acc's order (k = 4i + j).
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

// A term (pa, pb) and the words [first, end) where both its planes may have bits (the request's planeWordRanges).
struct Term {
  int aPlane, bPlane, wordFirst, wordEnd;
};

struct Panel {
  int rowBegin, rowEnd, colBegin, bCount;
  bool strictUpper;
};

// One term group over the panel: jc (B blocks of kNcRows) → pc (K blocks) → ir (A tiles) → jr (B tiles).
SNPTALLY_AVX512 void runGroup(const Operand& A, const Operand& B, const std::vector<Term>& terms,
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
            microkernel4x4(a, b, k0, k1, acc);
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
#endif

bool cpuHasAvx512Popcount() {
#if defined(__x86_64__)
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vpopcntdq");
#else
  return false;
#endif
}

Operand operandOf(const Napi::Object& matrix, int first) {
  const Napi::Uint32Array words = matrix.Get("words").As<Napi::Uint32Array>();
  return Operand{words.Data(), matrix.Get("numPlanes").As<Napi::Number>().Int32Value(),
                 matrix.Get("wordsPerPlane").As<Napi::Number>().Int32Value(), first};
}

// runTask({request, panel, outputs}): the GemmTask of mgemm/kernels/wasm/gemmTask.ts, already checked.
Napi::Value RunTask(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!cpuHasAvx512Popcount()) {
    Napi::Error::New(env, "this CPU lacks AVX512F/AVX512_VPOPCNTDQ").ThrowAsJavaScriptException();
    return env.Undefined();
  }
#if defined(__x86_64__)
  const Napi::Object task = info[0].As<Napi::Object>();
  const Napi::Object request = task.Get("request").As<Napi::Object>();
  const Napi::Object panelObj = task.Get("panel").As<Napi::Object>();
  const Napi::Array outputs = task.Get("outputs").As<Napi::Array>();
  const Napi::Array groups = request.Get("termGroups").As<Napi::Array>();
  const Operand A = operandOf(request.Get("a").As<Napi::Object>(), request.Get("aFirst").As<Napi::Number>().Int32Value());
  const Operand B = operandOf(request.Get("b").As<Napi::Object>(), request.Get("bFirst").As<Napi::Number>().Int32Value());
  const Panel panel{panelObj.Get("rowBegin").As<Napi::Number>().Int32Value(),
                    panelObj.Get("rowEnd").As<Napi::Number>().Int32Value(),
                    panelObj.Get("colBegin").As<Napi::Number>().Int32Value(),
                    request.Get("bCount").As<Napi::Number>().Int32Value(),
                    request.Get("strictUpper").As<Napi::Boolean>().Value()};
  // planeWordRanges (absent or null: every word; a null entry: every word of that plane).
  const int wpp = A.wordsPerPlane;
  std::vector<std::pair<int, int>> planeWords(static_cast<size_t>(std::max(A.numPlanes, B.numPlanes)), {0, wpp});
  const Napi::Value rangesValue = request.Get("planeWordRanges");
  if (rangesValue.IsArray()) {
    const Napi::Array ranges = rangesValue.As<Napi::Array>();
    for (uint32_t p = 0; p < ranges.Length() && p < planeWords.size(); p++) {
      const Napi::Value range = ranges.Get(p);
      if (!range.IsArray()) continue;
      const Napi::Array pair = range.As<Napi::Array>();
      planeWords[p] = {std::clamp(pair.Get(0u).As<Napi::Number>().Int32Value(), 0, wpp),
                       std::clamp(pair.Get(1u).As<Napi::Number>().Int32Value(), 0, wpp)};
    }
  }
  for (uint32_t g = 0; g < groups.Length(); g++) {
    const Napi::Array group = groups.Get(g).As<Napi::Array>();
    std::vector<Term> terms;
    for (uint32_t t = 0; t < group.Length(); t++) {
      const Napi::Array term = group.Get(t).As<Napi::Array>();
      const int pa = term.Get(0u).As<Napi::Number>().Int32Value(), pb = term.Get(1u).As<Napi::Number>().Int32Value();
      const auto [aFirst, aEnd] = planeWords[static_cast<size_t>(pa)];
      const auto [bFirst, bEnd] = planeWords[static_cast<size_t>(pb)];
      terms.push_back(Term{pa, pb, std::max(aFirst, bFirst), std::min(aEnd, bEnd)});
    }
    runGroup(A, B, terms, panel, outputs.Get(g).As<Napi::Uint32Array>().Data());
  }
#endif
  return env.Undefined();
}

Napi::Value CpuSupported(const Napi::CallbackInfo& info) {
  return Napi::Boolean::New(info.Env(), cpuHasAvx512Popcount());
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("runTask", Napi::Function::New(env, RunTask));
  exports.Set("cpuSupported", Napi::Function::New(env, CpuSupported));
  snptally::addOpenBlasExports(env, exports);
  return exports;
}

}  // namespace

NODE_API_MODULE(snptally_popcount, Init)
