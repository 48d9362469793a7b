// The N-API entry of the native epistasis scorer (densePairScores.h): reads a dense pair panel as
// native/nativePairScores.ts lays it out, checks every array against the indices the panel will read, scores it and
// returns the checksum part and the records. No logic beyond argument checks.
#include <napi.h>

#include <cstring>
#include <string>
#include <vector>

#include "denseBand.h"
#include "densePairScores.h"
#include "napiArguments.h"

namespace {

using snptally::native::ArgumentError;
using snptally::native::arrayOf;
using snptally::native::checksumResultOf;
using snptally::native::doubleOf;
using snptally::native::integerOf;
using snptally::native::selectionOf;
using snptally::epistasis::BandBlock;
using snptally::epistasis::BandPanel;
using snptally::epistasis::DenseBand;
using snptally::epistasis::DensePanel;
using snptally::epistasis::PanelOutcome;
using snptally::epistasis::RecordSelection;
using snptally::epistasis::Score;
using snptally::epistasis::ScoreTables;

Score scoreOf(const std::string& name) {
  if (name == "k2") return Score::kK2;
  if (name == "mi") return Score::kMI;
  if (name == "ig") return Score::kIG;
  throw ArgumentError{"score '" + name + "' is not k2, mi or ig"};
}

/** The panel; tallies and counts checked against every index scoreDensePanel reads. */
DensePanel panelOf(const Napi::Object& p) {
  DensePanel panel{};
  panel.numCols = integerOf(p, "numCols");
  panel.rowsReal = integerOf(p, "rowsReal");
  panel.colsReal = integerOf(p, "colsReal");
  panel.strictUpper = p.Get("strictUpper").ToBoolean().Value();
  panel.rowVectorFirst = integerOf(p, "rowVectorFirst");
  panel.colVectorFirst = integerOf(p, "colVectorFirst");
  panel.controls = integerOf(p, "controls");
  panel.cases = integerOf(p, "cases");
  panel.numVector = integerOf(p, "numVector");
  if (panel.colsReal > panel.numCols) throw ArgumentError{"colsReal exceeds numCols"};
  if (panel.rowVectorFirst + panel.rowsReal > panel.numVector || panel.colVectorFirst + panel.colsReal > panel.numVector) {
    throw ArgumentError{"the panel's vectors exceed numVector"};
  }
  const size_t numTallies = panel.rowsReal == 0 ? 0 : static_cast<size_t>((panel.rowsReal - 1) * panel.numCols + panel.colsReal);
  const Napi::Value tallies = p.Get("tallies");
  if (!tallies.IsArray() || tallies.As<Napi::Array>().Length() != 8) throw ArgumentError{"tallies is not an array of 8 groups"};
  for (uint32_t g = 0; g < 8; g++) {
    panel.tallies[g] = arrayOf<Napi::Uint32Array>(tallies.As<Napi::Array>().Get(g), napi_uint32_array, numTallies, "tallies[" + std::to_string(g) + "]").Data();
  }
  panel.rowCounts = arrayOf<Napi::Int32Array>(p.Get("rowCounts"), napi_int32_array, static_cast<size_t>(4 * panel.rowsReal), "rowCounts").Data();
  panel.colCounts = arrayOf<Napi::Int32Array>(p.Get("colCounts"), napi_int32_array, static_cast<size_t>(4 * panel.colsReal), "colCounts").Data();
  const Napi::Value values = p.Get("values");
  panel.values = values.IsUndefined() || values.IsNull() ? nullptr : arrayOf<Napi::Float64Array>(values, napi_float64_array, numTallies, "values").Data();
  return panel;
}

/** One block of a band (`side` "row" or "col"): its words (8-byte aligned, every vector's planes) and vectors. */
BandBlock bandBlockOf(const Napi::Object& b, const std::string& side, int64_t numPlanes, int64_t wordsPerPlane, int64_t numVector) {
  BandBlock block{};
  block.numVectors = integerOf(b, (side + "NumVectors").c_str());
  block.vectorFirst = integerOf(b, (side + "VectorFirst").c_str());
  block.numVectorReal = integerOf(b, (side + "sReal").c_str());
  if (block.numVectorReal > block.numVectors || block.vectorFirst + block.numVectorReal > numVector) {
    throw ArgumentError{side + "sReal exceeds the block's vectors or the run's"};
  }
  const Napi::Uint32Array words = arrayOf<Napi::Uint32Array>(b.Get(side + "Words"), napi_uint32_array,
                                                             static_cast<size_t>(block.numVectors * numPlanes * wordsPerPlane), side + "Words");
  if (reinterpret_cast<uintptr_t>(words.Data()) % 8 != 0) throw ArgumentError{side + "Words is not 8-byte aligned"};
  block.words = reinterpret_cast<const uint64_t*>(words.Data());
  return block;
}

/** The band; every plane, word range and panel checked against the blocks it reads. */
DenseBand bandOf(const Napi::Object& b, std::vector<BandPanel>& panels) {
  DenseBand band{};
  band.numPlanes = integerOf(b, "numPlanes");
  const int64_t wordsPerPlane = integerOf(b, "wordsPerPlane");
  if (wordsPerPlane % 2 != 0) throw ArgumentError{"wordsPerPlane is odd (planes of 64-bit words)"};
  band.words64 = wordsPerPlane / 2;
  band.controls = integerOf(b, "controls");
  band.cases = integerOf(b, "cases");
  band.numVector = integerOf(b, "numVector");
  band.rows = bandBlockOf(b, "row", band.numPlanes, wordsPerPlane, band.numVector);
  band.cols = bandBlockOf(b, "col", band.numPlanes, wordsPerPlane, band.numVector);
  const int32_t* planes = arrayOf<Napi::Int32Array>(b.Get("genotypePlanes"), napi_int32_array, 4, "genotypePlanes").Data();
  const int32_t* classWords = arrayOf<Napi::Int32Array>(b.Get("classWords"), napi_int32_array, 4, "classWords").Data();
  for (int cls = 0; cls < 2; cls++) {
    for (int x = 0; x < 2; x++) {
      if (planes[2 * cls + x] < 0 || planes[2 * cls + x] >= band.numPlanes) throw ArgumentError{"a genotype plane outside the planes"};
      band.genotypePlane[cls][x] = planes[2 * cls + x];
    }
    // 32-bit word ranges to the 64-bit words holding them.
    const int64_t first = classWords[2 * cls], end = classWords[2 * cls + 1];
    if (first < 0 || first > end || end > wordsPerPlane) throw ArgumentError{"a class's words outside the plane"};
    band.classWords[cls][0] = first / 2;
    band.classWords[cls][1] = (end + 1) / 2;
  }
  const Napi::Int32Array given = arrayOf<Napi::Int32Array>(b.Get("panels"), napi_int32_array, 0, "panels");
  if (given.ElementLength() % 5 != 0) throw ArgumentError{"panels is not 5 numbers per panel"};
  for (size_t at = 0; at < given.ElementLength(); at += 5) {
    const BandPanel p{given[at], given[at + 1], given[at + 2], given[at + 3], given[at + 4] != 0};
    if (p.rowFirst < 0 || p.numRows < 0 || p.colFirst < 0 || p.numCols < 0 || p.rowFirst + p.numRows > band.rows.numVectors
        || p.colFirst + p.numCols > band.cols.numVectors) {
      throw ArgumentError{"a panel outside its blocks"};
    }
    panels.push_back(p);
  }
  band.panels = panels.data();
  band.numPanels = static_cast<int64_t>(panels.size());
  return band;
}

/** The score and its tables; `numField` the classes' sum (every index a table of non-negative cells reads). */
ScoreTables scoreTablesOf(const Napi::Object& scoring, int64_t numField) {
  // ln n! up to n = classes' sum + 1, n·ln n up to the sum.
  const size_t n = static_cast<size_t>(numField);
  return ScoreTables{
      arrayOf<Napi::Float64Array>(scoring.Get("logFactorial"), napi_float64_array, n + 2, "logFactorial").Data(),
      arrayOf<Napi::Float64Array>(scoring.Get("nLogN"), napi_float64_array, n + 1, "nLogN").Data(),
      doubleOf(scoring, "k2Scale"), doubleOf(scoring, "ln2")};
}

/** The outcome as JS reads it: checksum limbs, counts, records. */
Napi::Object outcomeObject(Napi::Env env, const PanelOutcome& outcome) {
  Napi::Object result = checksumResultOf(env, outcome);
  Napi::Uint32Array records = Napi::Uint32Array::New(env, outcome.recordWords.size());
  if (!outcome.recordWords.empty()) std::memcpy(records.Data(), outcome.recordWords.data(), outcome.recordWords.size() * sizeof(uint32_t));
  result.Set("recordWords", records);
  result.Set("numRecords", Napi::Number::New(env, static_cast<double>(outcome.numRecords)));
  return result;
}

/** Runs `score(outcome)` (which throws ArgumentError on bad arguments, returns a failure text or ""), then the outcome. */
template <typename Scorer>
Napi::Value scoredOutcome(const Napi::CallbackInfo& info, const char* name, Scorer score) {
  Napi::Env env = info.Env();
  PanelOutcome outcome;
  try {
    if (info.Length() != 3 || !info[0].IsObject() || !info[1].IsObject() || !info[2].IsObject()) {
      throw ArgumentError{"takes three objects"};
    }
    const char* failure = score(outcome);
    if (failure[0] != '\0') {
      Napi::Error::New(env, std::string(name) + ": " + failure).ThrowAsJavaScriptException();
      return env.Undefined();
    }
  } catch (const ArgumentError& error) {
    Napi::TypeError::New(env, std::string(name) + ": " + error.message).ThrowAsJavaScriptException();
    return env.Undefined();
  }
  return outcomeObject(env, outcome);
}

/** scoreDensePairs(panel, scoring, selection). */
Napi::Value ScoreDensePairs(const Napi::CallbackInfo& info) {
  return scoredOutcome(info, "scoreDensePairs", [&info](PanelOutcome& outcome) {
    const DensePanel panel = panelOf(info[0].As<Napi::Object>());
    const Napi::Object scoring = info[1].As<Napi::Object>();
    const ScoreTables tables = scoreTablesOf(scoring, panel.controls + panel.cases);
    return scoreDensePanel(panel, tables, scoreOf(scoring.Get("score").ToString().Utf8Value()), selectionOf(info[2].As<Napi::Object>()), outcome);
  });
}

/** scoreDenseBand(band, scoring, selection). */
Napi::Value ScoreDenseBand(const Napi::CallbackInfo& info) {
  return scoredOutcome(info, "scoreDenseBand", [&info](PanelOutcome& outcome) {
    const Napi::Object b = info[0].As<Napi::Object>();
    std::vector<BandPanel> panels;
    const DenseBand band = bandOf(b, panels);
    const Napi::Object scoring = info[1].As<Napi::Object>();
    const ScoreTables tables = scoreTablesOf(scoring, band.controls + band.cases);
    const bool allowAvx512 = !b.Get("scalar").ToBoolean().Value();
    return scoreDenseBand(band, tables, scoreOf(scoring.Get("score").ToString().Utf8Value()), selectionOf(info[2].As<Napi::Object>()), allowAvx512, outcome);
  });
}

Napi::Value Avx512TalliesUsable(const Napi::CallbackInfo& info) {
  return Napi::Boolean::New(info.Env(), snptally::epistasis::avx512TalliesUsable());
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("scoreDensePairs", Napi::Function::New(env, ScoreDensePairs));
  exports.Set("scoreDenseBand", Napi::Function::New(env, ScoreDenseBand));
  exports.Set("avx512TalliesUsable", Napi::Function::New(env, Avx512TalliesUsable));
  return exports;
}

}  // namespace

NODE_API_MODULE(snptally_epistasis, Init)
