// The N-API entry of the native epistasis scorer (densePairScores.h): reads a dense pair panel as
// native/nativePairScores.ts lays it out, checks every array against the indices the panel will read, scores it and
// returns the checksum part and the records. No logic beyond argument checks.
#include <napi.h>

#include <cstring>
#include <string>

#include "densePairScores.h"
#include "napiArguments.h"

namespace {

using snptally::native::ArgumentError;
using snptally::native::arrayOf;
using snptally::native::doubleOf;
using snptally::native::integerOf;
using snptally::native::selectionOf;
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

Napi::Value ScoreDensePairs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  PanelOutcome outcome;
  try {
    if (info.Length() != 3 || !info[0].IsObject() || !info[1].IsObject() || !info[2].IsObject()) {
      throw ArgumentError{"takes (panel, scoring, selection) objects"};
    }
    const DensePanel panel = panelOf(info[0].As<Napi::Object>());
    const Napi::Object scoring = info[1].As<Napi::Object>();
    const Score score = scoreOf(scoring.Get("score").ToString().Utf8Value());
    // ln n! up to n = classes' sum + 1, n·ln n up to the sum: every index a table of non-negative cells reads.
    const size_t numField = static_cast<size_t>(panel.controls + panel.cases);
    const ScoreTables tables{
        arrayOf<Napi::Float64Array>(scoring.Get("logFactorial"), napi_float64_array, numField + 2, "logFactorial").Data(),
        arrayOf<Napi::Float64Array>(scoring.Get("nLogN"), napi_float64_array, numField + 1, "nLogN").Data(),
        doubleOf(scoring, "k2Scale"), doubleOf(scoring, "ln2")};
    const RecordSelection selection = selectionOf(info[2].As<Napi::Object>());
    const char* failure = scoreDensePanel(panel, tables, score, selection, outcome);
    if (failure[0] != '\0') {
      Napi::Error::New(env, std::string("scoreDensePairs: ") + failure).ThrowAsJavaScriptException();
      return env.Undefined();
    }
  } catch (const ArgumentError& error) {
    Napi::TypeError::New(env, "scoreDensePairs: " + error.message).ThrowAsJavaScriptException();
    return env.Undefined();
  }
  Napi::Object result = Napi::Object::New(env);
  Napi::Float64Array limbs = Napi::Float64Array::New(env, snptally::epistasis::ExactSum::kLimbs);
  outcome.checksum.normalizedLimbs(limbs.Data());
  result.Set("checksumLimbs", limbs);
  result.Set("entries", Napi::Number::New(env, static_cast<double>(outcome.entries)));
  result.Set("zeros", Napi::Number::New(env, static_cast<double>(outcome.zeros)));
  result.Set("numPairs", Napi::Number::New(env, static_cast<double>(outcome.numPairs)));
  Napi::Uint32Array records = Napi::Uint32Array::New(env, outcome.recordWords.size());
  if (!outcome.recordWords.empty()) std::memcpy(records.Data(), outcome.recordWords.data(), outcome.recordWords.size() * sizeof(uint32_t));
  result.Set("recordWords", records);
  result.Set("numRecords", Napi::Number::New(env, static_cast<double>(outcome.numRecords)));
  return result;
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("scoreDensePairs", Napi::Function::New(env, ScoreDensePairs));
  return exports;
}

}  // namespace

NODE_API_MODULE(snptally_epistasis, Init)
