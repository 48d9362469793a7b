// Reading and checking the arguments of the analyses' N-API bindings (numbers, typed arrays, a record selection as
// analyses/tupleRecordSelection.ts hands it out), and the result object their finalizes share. Errors name the field.
// Header only.
#pragma once

#include <napi.h>

#include <string>

#include "recordFilter.h"

namespace snptally::native {

/** A thrown argument error, reported to JS as a TypeError naming the field. */
struct ArgumentError {
  std::string message;
};

inline int64_t integerOf(const Napi::Object& object, const char* name) {
  const Napi::Value value = object.Get(name);
  if (!value.IsNumber()) throw ArgumentError{std::string(name) + " is not a number"};
  const double number = value.As<Napi::Number>().DoubleValue();
  if (!(number >= 0 && number <= 9007199254740991.0) || number != static_cast<double>(static_cast<int64_t>(number))) {
    throw ArgumentError{std::string(name) + " is not a non-negative integer"};
  }
  return static_cast<int64_t>(number);
}

inline double doubleOf(const Napi::Object& object, const char* name) {
  const Napi::Value value = object.Get(name);
  if (!value.IsNumber()) throw ArgumentError{std::string(name) + " is not a number"};
  return value.As<Napi::Number>().DoubleValue();
}

/** A typed array of `type` with at least `minLength` elements. */
template <typename Array>
Array arrayOf(const Napi::Value& value, napi_typedarray_type type, size_t minLength, const std::string& name) {
  if (!value.IsTypedArray() || value.As<Napi::TypedArray>().TypedArrayType() != type) throw ArgumentError{name + " has the wrong type"};
  Array array = value.As<Array>();
  if (array.ElementLength() < minLength) {
    throw ArgumentError{name + " has " + std::to_string(array.ElementLength()) + " elements, fewer than " + std::to_string(minLength)};
  }
  return array;
}

/** The selection object of a native finalize's caller ({ writesRecords, threshold, bar, topCount, topLarger }). */
inline RecordSelection selectionOf(const Napi::Object& s) {
  RecordSelection selection{};
  selection.writesRecords = s.Get("writesRecords").ToBoolean().Value();
  const Napi::Value threshold = s.Get("threshold");
  selection.hasThreshold = threshold.IsNumber();
  selection.thresholdValue = selection.hasThreshold ? threshold.As<Napi::Number>().DoubleValue() : 0;
  const Napi::Value bar = s.Get("bar");
  selection.bar = BarKind::kNone;
  if (bar.IsObject()) {
    const Napi::Object barObject = bar.As<Napi::Object>();
    selection.bar = barObject.Get("atLeast").ToBoolean().Value() ? BarKind::kAtLeast : BarKind::kAtMost;
    selection.barValue = doubleOf(barObject, "value");
  }
  selection.topCount = integerOf(s, "topCount");
  selection.topLarger = s.Get("topLarger").ToBoolean().Value();
  return selection;
}

/**
 * A native finalize's result object: its checksum part as normalized limbs, its entries, zeros and pairs (an outcome
 * with `checksum`, `entries`, `zeros` and `numPairs`); the caller sets its own fields after these.
 */
template <typename Outcome>
Napi::Object checksumResultOf(Napi::Env env, const Outcome& outcome) {
  Napi::Object result = Napi::Object::New(env);
  Napi::Float64Array limbs = Napi::Float64Array::New(env, decltype(outcome.checksum)::kLimbs);
  outcome.checksum.normalizedLimbs(limbs.Data());
  result.Set("checksumLimbs", limbs);
  result.Set("entries", Napi::Number::New(env, static_cast<double>(outcome.entries)));
  result.Set("zeros", Napi::Number::New(env, static_cast<double>(outcome.zeros)));
  result.Set("numPairs", Napi::Number::New(env, static_cast<double>(outcome.numPairs)));
  return result;
}

}  // namespace snptally::native
