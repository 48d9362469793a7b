// The N-API entry of r²'s native window bands (r2WindowBand.h): reads a band as native/nativeR2Band.ts lays it out,
// checks every array against the indices the band will read, runs it and returns the checksum part and the record
// count (the records are written into the caller's buffer). No logic beyond argument checks. The `.ld` table's
// functions come from ldTextBinding.cc.
#include <napi.h>

#include <string>
#include <vector>

#include "napiArguments.h"
#include "r2WindowBand.h"

namespace snptally::r2 {
void addLdTextFunctions(Napi::Env env, Napi::Object exports);
}

namespace {

using snptally::native::ArgumentError;
using snptally::native::arrayOf;
using snptally::native::checksumResultOf;
using snptally::native::integerOf;
using snptally::native::selectionOf;
using snptally::r2::Band;
using snptally::r2::BandOutcome;
using snptally::r2::kNumPlanes;
using snptally::r2::Panel;
using snptally::r2::PlaneBlock;

/** A block's planes (Uint32Array, 8-byte aligned: read as 64-bit words) with `numVectors` vectors. */
const uint64_t* planeWordsOf(const Napi::Value& value, int64_t numVectors, int64_t wordsPerPlane, const std::string& name) {
  const Napi::Uint32Array words = arrayOf<Napi::Uint32Array>(value, napi_uint32_array, static_cast<size_t>(numVectors * kNumPlanes * wordsPerPlane), name);
  if (reinterpret_cast<uintptr_t>(words.Data()) % 8 != 0) throw ArgumentError{name + " is not 8-byte aligned"};
  return reinterpret_cast<const uint64_t*>(words.Data());
}

/** The band; planes, window arrays and panels checked against every index r2WindowBand reads. */
Band bandOf(const Napi::Object& b, std::vector<Panel>& panels) {
  Band band{};
  const int64_t wordsPerPlane = integerOf(b, "wordsPerPlane");
  if (wordsPerPlane % 2 != 0) throw ArgumentError{"wordsPerPlane is odd"};
  band.words64 = wordsPerPlane / 2;
  band.numVector = integerOf(b, "numVector");
  const int64_t rowNumVectors = integerOf(b, "rowNumVectors"), colNumVectors = integerOf(b, "colNumVectors");
  band.rows = PlaneBlock{planeWordsOf(b.Get("rowWords"), rowNumVectors, wordsPerPlane, "rowWords"), integerOf(b, "rowVectorFirst"), integerOf(b, "rowsReal")};
  band.cols = PlaneBlock{planeWordsOf(b.Get("colWords"), colNumVectors, wordsPerPlane, "colWords"), integerOf(b, "colVectorFirst"), integerOf(b, "colsReal")};
  if (band.rows.numVectorReal > rowNumVectors || band.cols.numVectorReal > colNumVectors) throw ArgumentError{"more real vectors than a block holds"};
  if (band.rows.vectorFirst + band.rows.numVectorReal > band.numVector || band.cols.vectorFirst + band.cols.numVectorReal > band.numVector) {
    throw ArgumentError{"a block's vectors exceed numVector"};
  }
  // The window's global arrays, one entry per vector of the run.
  const size_t numVector = static_cast<size_t>(band.numVector);
  band.window.bandBegin = arrayOf<Napi::Uint32Array>(b.Get("bandBegin"), napi_uint32_array, numVector, "bandBegin").Data();
  band.window.bandEnd = arrayOf<Napi::Uint32Array>(b.Get("bandEnd"), napi_uint32_array, numVector, "bandEnd").Data();
  band.window.chrBegin = arrayOf<Napi::Uint32Array>(b.Get("chrBegin"), napi_uint32_array, numVector, "chrBegin").Data();
  band.window.chrEnd = arrayOf<Napi::Uint32Array>(b.Get("chrEnd"), napi_uint32_array, numVector, "chrEnd").Data();
  band.window.interChr = b.Get("interChr").ToBoolean().Value();
  const Napi::Value panelValue = b.Get("panels");
  if (!panelValue.IsTypedArray()) throw ArgumentError{"panels is not an Int32Array"};
  const Napi::Int32Array geometry = arrayOf<Napi::Int32Array>(panelValue, napi_int32_array, 0, "panels");
  if (geometry.ElementLength() % 5 != 0) throw ArgumentError{"panels is not 5 numbers a panel"};
  panels.resize(geometry.ElementLength() / 5);
  for (size_t p = 0; p < panels.size(); p++) {
    const int32_t* g = geometry.Data() + 5 * p;
    if ((g[0] | g[1] | g[2] | g[3]) < 0 || g[0] + int64_t{g[1]} > rowNumVectors || g[2] + int64_t{g[3]} > colNumVectors) {
      throw ArgumentError{"panel " + std::to_string(p) + " lies outside its blocks"};
    }
    panels[p] = Panel{g[0], g[1], g[2], g[3], g[4] != 0};
  }
  band.panels = panels.data();
  band.numPanels = static_cast<int64_t>(panels.size());
  return band;
}

Napi::Value R2WindowBand(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  BandOutcome outcome;
  try {
    if (info.Length() != 3 || !info[0].IsObject() || !info[1].IsObject() || !info[2].IsTypedArray()) {
      throw ArgumentError{"takes (band, selection, recordWords) arguments"};
    }
    const Napi::Object bandObject = info[0].As<Napi::Object>();
    std::vector<Panel> panels;
    const Band band = bandOf(bandObject, panels);
    const snptally::native::RecordSelection selection = selectionOf(info[1].As<Napi::Object>());
    Napi::Uint32Array records = arrayOf<Napi::Uint32Array>(info[2], napi_uint32_array, 0, "recordWords");
    outcome.recordWords = records.Data();
    outcome.recordCapacity = records.ElementLength() / 3;
    const bool allowAvx512 = !bandObject.Get("scalar").ToBoolean().Value();
    const char* failure = snptally::r2::r2WindowBand(band, selection, allowAvx512, outcome);
    if (failure[0] != '\0') {
      Napi::Error::New(env, std::string("r2WindowBand: ") + failure).ThrowAsJavaScriptException();
      return env.Undefined();
    }
  } catch (const ArgumentError& error) {
    Napi::TypeError::New(env, "r2WindowBand: " + error.message).ThrowAsJavaScriptException();
    return env.Undefined();
  }
  Napi::Object result = checksumResultOf(env, outcome);
  result.Set("numRecords", Napi::Number::New(env, static_cast<double>(outcome.numRecords)));
  return result;
}

Napi::Value Avx512Usable(const Napi::CallbackInfo& info) { return Napi::Boolean::New(info.Env(), snptally::r2::avx512Usable()); }

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("r2WindowBand", Napi::Function::New(env, R2WindowBand));
  exports.Set("avx512Usable", Napi::Function::New(env, Avx512Usable));
  snptally::r2::addLdTextFunctions(env, exports);
  return exports;
}

}  // namespace

NODE_API_MODULE(snptally_r2, Init)
