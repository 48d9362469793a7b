// The N-API entry of the native pair-count finalize (pairCountRows.h): reads a block as nativePairCounts.ts lays it
// out, checks every array against the indices the block will read, runs it and returns the checksum part. No logic
// beyond argument checks.
#include <napi.h>

#include <string>

#include "napiArguments.h"
#include "pairCountRows.h"

namespace {

using snptally::native::ArgumentError;
using snptally::native::arrayOf;
using snptally::native::checksumResultOf;
using snptally::native::integerOf;
using snptally::paircounts::PairCountBlock;
using snptally::paircounts::PairCountKind;
using snptally::paircounts::PairCountOutcome;

PairCountKind kindOf(const Napi::Object& b) {
  const int64_t kind = integerOf(b, "kind");
  if (kind > static_cast<int64_t>(PairCountKind::kSquaredDistance)) throw ArgumentError{"kind is not 0, 1 or 2"};
  return static_cast<PairCountKind>(kind);
}

/** The block; its tallies checked against the last index it reads. */
PairCountBlock blockOf(const Napi::Object& b, PairCountKind kind) {
  PairCountBlock block{};
  block.tallyStride = integerOf(b, "tallyStride");
  block.numRows = integerOf(b, "numRows");
  block.numCols = integerOf(b, "numCols");
  block.rowVector = integerOf(b, "rowVector");
  block.colVector = integerOf(b, "colVector");
  block.rowFirst = integerOf(b, "rowFirst");
  block.colFirst = integerOf(b, "colFirst");
  block.strictUpper = b.Get("strictUpper").ToBoolean().Value();
  block.numVector = integerOf(b, "numVector");
  if (block.numCols > block.tallyStride) throw ArgumentError{"numCols exceeds tallyStride"};
  if (block.rowVector + block.numRows > block.numVector || block.colVector + block.numCols > block.numVector) {
    throw ArgumentError{"the block's vectors exceed numVector"};
  }
  const Napi::Value talliesValue = b.Get("tallies");
  if (!talliesValue.IsArray()) throw ArgumentError{"tallies is not an array"};
  const Napi::Array tallies = talliesValue.As<Napi::Array>();
  const uint32_t numGroups = kind == PairCountKind::kKing ? 4 : 2;
  if (tallies.Length() != numGroups) throw ArgumentError{"tallies has " + std::to_string(tallies.Length()) + " groups, not " + std::to_string(numGroups)};
  const size_t numTallies = block.numRows == 0 ? 0 : static_cast<size_t>((block.numRows - 1) * block.tallyStride + block.numCols);
  for (uint32_t g = 0; g < numGroups; g++) {
    block.tallies[g] = arrayOf<Napi::Uint32Array>(tallies.Get(g), napi_uint32_array, numTallies, "tallies[" + std::to_string(g) + "]").Data();
  }
  return block;
}

Napi::Value PairCountRows(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  PairCountOutcome outcome;
  try {
    if (info.Length() != 2 || !info[0].IsObject() || !info[1].IsTypedArray()) throw ArgumentError{"takes (block, values) arguments"};
    const Napi::Object blockObject = info[0].As<Napi::Object>();
    const PairCountKind kind = kindOf(blockObject);
    const PairCountBlock block = blockOf(blockObject, kind);
    Napi::Float64Array values = arrayOf<Napi::Float64Array>(info[1], napi_float64_array, static_cast<size_t>(block.numRows * block.numCols), "values");
    const char* failure = snptally::paircounts::pairCountRows(kind, block, values.Data(), outcome);
    if (failure[0] != '\0') return env.Null();
  } catch (const ArgumentError& error) {
    Napi::TypeError::New(env, "pairCountRows: " + error.message).ThrowAsJavaScriptException();
    return env.Undefined();
  }
  Napi::Object result = checksumResultOf(env, outcome);
  return result;
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("pairCountRows", Napi::Function::New(env, PairCountRows));
  return exports;
}

}  // namespace

NODE_API_MODULE(snptally_paircounts, Init)
