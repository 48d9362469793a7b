// Packed 2-bit code rows → bit planes, and per-row plane popcounts: the block build's packRowPlanes and the CPU kernel
// sets' vectorSums (engine/blocks/planePacking.ts, mgemm/kernels/ref/popcountGemmRef.ts) without a table lookup per
// byte pair and plane or a JS popcount per word. Plain C++ (no AVX-512 needed): the work is O(rows × fields).
//
// Identity (packCodeRows): for row r, plane p and field f < numField,
//   bit f of words[rowBase + (r·numPlanes + p)·wordsPerPlane + f/32] = bit p of planeBitsOfCode[code of field f],
// code of field f = (packed[src + r·bytesPerRow + f/4] >> 2·(f mod 4)) & 3 (SPEC §1, LSB first). Bits of fields past
// numField in the last used word are cleared; words past ceil(numField/32) are left as they are (as packRowPlanes).
#include <napi.h>

#include <cstdint>
#include <cstring>

namespace snptally {

namespace {

// The even bits of x (bits 0, 2, …, 62) gathered into the low 32 bits, in order.
inline uint32_t evenBits(uint64_t x) {
  x &= 0x5555555555555555ULL;
  x = (x | (x >> 1)) & 0x3333333333333333ULL;
  x = (x | (x >> 2)) & 0x0F0F0F0F0F0F0F0FULL;
  x = (x | (x >> 4)) & 0x00FF00FF00FF00FFULL;
  x = (x | (x >> 8)) & 0x0000FFFF0000FFFFULL;
  x = (x | (x >> 16)) & 0x00000000FFFFFFFFULL;
  return static_cast<uint32_t>(x);
}

// Popcounts of `count` words. Only called where the addon's CPU check passed (AVX-512 CPUs all have POPCNT).
__attribute__((target("popcnt"))) uint64_t popcountWords(const uint32_t* words, int64_t count) {
  uint64_t total = 0;
  int64_t w = 0;
  for (; w + 2 <= count; w += 2) {
    uint64_t pair;
    std::memcpy(&pair, words + w, sizeof pair);
    total += static_cast<uint64_t>(__builtin_popcountll(pair));
  }
  if (w < count) total += static_cast<uint64_t>(__builtin_popcount(words[w]));
  return total;
}

// A word of 32 codes split into their low bits (b0) and high bits (b1), field k at bit k of each.
struct CodeBits {
  uint32_t b0;
  uint32_t b1;
};

inline CodeBits splitCodes(uint64_t codes) {
  return {evenBits(codes), evenBits(codes >> 1)};
}

// The same with BMI2's PEXT (checked at run time).
__attribute__((target("bmi2"))) inline CodeBits splitCodesBmi2(uint64_t codes) {
  return {static_cast<uint32_t>(__builtin_ia32_pext_di(codes, 0x5555555555555555ULL)),
          static_cast<uint32_t>(__builtin_ia32_pext_di(codes, 0xAAAAAAAAAAAAAAAAULL))};
}

struct CodeRowsShape {
  int64_t src, bytesPerRow, numRows, numField, rowBase, numPlanes, wordsPerPlane;
};

// The rows' planes, codes split by `split` (inlined into each entry below).
template <typename Split>
__attribute__((always_inline)) inline void packRowsWith(
    Split split, const uint8_t* packed, const CodeRowsShape& shape, const uint32_t (*selectOfPlane)[4], uint32_t* words) {
  const int64_t numWordsUsed = (shape.numField + 31) / 32;
  const int64_t tailFields = shape.numField % 32;
  const uint32_t tailMask = tailFields == 0 ? 0xffffffffu : (1u << tailFields) - 1u;
  const int64_t bytesUsed = (shape.numField + 3) / 4;
  const int64_t numPlanes = shape.numPlanes, wordsPerPlane = shape.wordsPerPlane;
  for (int64_t r = 0; r < shape.numRows; r++) {
    const uint8_t* row = packed + shape.src + r * shape.bytesPerRow;
    uint32_t* out = words + shape.rowBase + r * numPlanes * wordsPerPlane;
    for (int64_t w = 0; w < numWordsUsed; w++) {
      uint64_t codes = 0;
      if (bytesUsed - 8 * w >= 8) {
        std::memcpy(&codes, row + 8 * w, 8);  // little-endian: field 0 in the low bits
      } else {
        std::memcpy(&codes, row + 8 * w, static_cast<size_t>(bytesUsed - 8 * w));
      }
      const CodeBits bits = split(codes);
      const uint32_t match0 = ~bits.b1 & ~bits.b0, match1 = ~bits.b1 & bits.b0, match2 = bits.b1 & ~bits.b0, match3 = bits.b1 & bits.b0;
      const uint32_t mask = w == numWordsUsed - 1 ? tailMask : 0xffffffffu;
      for (int64_t p = 0; p < numPlanes; p++) {
        const uint32_t* select = selectOfPlane[p];
        out[p * wordsPerPlane + w] = ((match0 & select[0]) | (match1 & select[1]) | (match2 & select[2]) | (match3 & select[3])) & mask;
      }
    }
  }
}

__attribute__((target("bmi2"))) void packRowsBmi2(
    const uint8_t* packed, const CodeRowsShape& shape, const uint32_t (*selectOfPlane)[4], uint32_t* words) {
  packRowsWith(splitCodesBmi2, packed, shape, selectOfPlane, words);
}

template <typename T>
T* dataOf(const Napi::Value& value, size_t* length) {
  auto array = value.As<Napi::TypedArrayOf<T>>();
  *length = array.ElementLength();
  return array.Data();
}

// packCodeRows(packed, src, bytesPerRow, numRows, numField, planeBitsOfCode[4], words, rowBase, numPlanes, wordsPerPlane)
Napi::Value PackCodeRows(const Napi::CallbackInfo& info) {
  size_t packedLength = 0, wordsLength = 0;
  const uint8_t* packed = dataOf<uint8_t>(info[0], &packedLength);
  const int64_t src = info[1].As<Napi::Number>().Int64Value();
  const int64_t bytesPerRow = info[2].As<Napi::Number>().Int64Value();
  const int64_t numRows = info[3].As<Napi::Number>().Int64Value();
  const int64_t numField = info[4].As<Napi::Number>().Int64Value();
  const Napi::Array bitsOfCode = info[5].As<Napi::Array>();
  uint32_t* words = dataOf<uint32_t>(info[6], &wordsLength);
  const int64_t rowBase = info[7].As<Napi::Number>().Int64Value();
  const int64_t numPlanes = info[8].As<Napi::Number>().Int64Value();
  const int64_t wordsPerPlane = info[9].As<Napi::Number>().Int64Value();
  const int64_t numWordsUsed = (numField + 31) / 32;
  if (numPlanes < 1 || numPlanes > 32 || bitsOfCode.Length() != 4 || bytesPerRow < (numField + 3) / 4 || numWordsUsed > wordsPerPlane ||
      src < 0 || numRows < 0 || src + numRows * bytesPerRow > static_cast<int64_t>(packedLength) || rowBase < 0 ||
      rowBase + numRows * numPlanes * wordsPerPlane > static_cast<int64_t>(wordsLength)) {
    throw Napi::RangeError::New(info.Env(), "packCodeRows: rows outside the packed bytes or the plane words");
  }
  // selectOfPlane[p][c]: all ones when code c has plane p's bit, else zero.
  uint32_t selectOfPlane[32][4] = {};
  for (uint32_t c = 0; c < 4; c++) {
    const uint32_t bits = bitsOfCode.Get(c).As<Napi::Number>().Uint32Value();
    for (int64_t p = 0; p < numPlanes; p++) selectOfPlane[p][c] = ((bits >> p) & 1u) != 0 ? 0xffffffffu : 0u;
  }
  const CodeRowsShape shape{src, bytesPerRow, numRows, numField, rowBase, numPlanes, wordsPerPlane};
  if (__builtin_cpu_supports("bmi2")) {
    packRowsBmi2(packed, shape, selectOfPlane, words);
  } else {
    packRowsWith(splitCodes, packed, shape, selectOfPlane, words);
  }
  return info.Env().Undefined();
}

// planeRowSums(words, numPlanes, wordsPerPlane, rowFirst, rowEnd, countPlanes[], maskPlane (-1: none), sums, counts):
// sums[r] += Σ over count planes of the row's popcount; counts[r] = the mask plane's popcount (with one).
Napi::Value PlaneRowSums(const Napi::CallbackInfo& info) {
  size_t wordsLength = 0, sumsLength = 0, countsLength = 0;
  const uint32_t* words = dataOf<uint32_t>(info[0], &wordsLength);
  const int64_t numPlanes = info[1].As<Napi::Number>().Int64Value();
  const int64_t wordsPerPlane = info[2].As<Napi::Number>().Int64Value();
  const int64_t rowFirst = info[3].As<Napi::Number>().Int64Value();
  const int64_t rowEnd = info[4].As<Napi::Number>().Int64Value();
  const Napi::Array countPlanes = info[5].As<Napi::Array>();
  const int64_t maskPlane = info[6].As<Napi::Number>().Int64Value();
  double* sums = dataOf<double>(info[7], &sumsLength);
  double* counts = dataOf<double>(info[8], &countsLength);
  if (rowFirst < 0 || rowEnd < rowFirst || rowEnd * numPlanes * wordsPerPlane > static_cast<int64_t>(wordsLength) ||
      rowEnd > static_cast<int64_t>(sumsLength) || rowEnd > static_cast<int64_t>(countsLength) || maskPlane >= numPlanes) {
    throw Napi::RangeError::New(info.Env(), "planeRowSums: rows outside the plane words or the sums");
  }
  int64_t planes[32];
  const int64_t numCountPlanes = countPlanes.Length();
  if (numCountPlanes > 32) throw Napi::RangeError::New(info.Env(), "planeRowSums: more than 32 count planes");
  for (int64_t k = 0; k < numCountPlanes; k++) {
    planes[k] = countPlanes.Get(static_cast<uint32_t>(k)).As<Napi::Number>().Int64Value();
    if (planes[k] < 0 || planes[k] >= numPlanes) throw Napi::RangeError::New(info.Env(), "planeRowSums: no such count plane");
  }
  const auto planeSum = [&](int64_t r, int64_t p) {
    return static_cast<double>(popcountWords(words + (r * numPlanes + p) * wordsPerPlane, wordsPerPlane));
  };
  for (int64_t r = rowFirst; r < rowEnd; r++) {
    for (int64_t k = 0; k < numCountPlanes; k++) sums[r] += planeSum(r, planes[k]);
    if (maskPlane >= 0) counts[r] = planeSum(r, maskPlane);
  }
  return info.Env().Undefined();
}

}  // namespace

void addCodePlaneExports(Napi::Env env, Napi::Object exports) {
  exports.Set("packCodeRows", Napi::Function::New(env, PackCodeRows));
  exports.Set("planeRowSums", Napi::Function::New(env, PlaneRowSums));
}

}  // namespace snptally
