// The N-API entries of the `.ld` table's bulk path (ldText.h), laid out as native/nativeLdText.ts describes: a span's
// genotype tables (synchronous) and a chunk's lines (on a libuv pool thread, resolving a promise, so that the main
// thread writes the previous chunk meanwhile). Checks every array against the indices the job will read.
#include <napi.h>

#include <string>
#include <vector>

#include "ldText.h"
#include "napiArguments.h"

namespace snptally::r2 {
namespace {

using native::ArgumentError;
using native::arrayOf;
using native::doubleOf;
using native::integerOf;

/** The job's code span and pairs, checked: every pair's SNPs inside the span. */
struct SpanPairs {
  CodeSpan span;
  const uint32_t* pairs;
  int64_t numPairs;
};

SpanPairs spanPairsOf(const Napi::Object& job) {
  SpanPairs out{};
  out.span.snpFirst = integerOf(job, "snpFirst");
  out.span.numSnps = integerOf(job, "numSnps");
  out.span.numField = integerOf(job, "numField");
  out.span.rowBytes = integerOf(job, "rowBytes");
  if (out.span.rowBytes * 4 < out.span.numField) throw ArgumentError{"rowBytes is too small for numField"};
  out.span.codes = arrayOf<Napi::Uint8Array>(job.Get("codes"), napi_uint8_array, static_cast<size_t>(out.span.numSnps * out.span.rowBytes), "codes").Data();
  out.numPairs = integerOf(job, "numPairs");
  out.pairs = arrayOf<Napi::Uint32Array>(job.Get("pairs"), napi_uint32_array, static_cast<size_t>(2 * out.numPairs), "pairs").Data();
  return out;
}

void checkPairsInside(const SpanPairs& sp, int64_t first, int64_t end, const char* what) {
  for (int64_t k = 0; k < 2 * sp.numPairs; k++) {
    if (sp.pairs[k] < first || sp.pairs[k] >= end) throw ArgumentError{"pair " + std::to_string(k / 2) + " lies outside " + what};
  }
}

/** The planes of a span, built into `words`. */
LdPlanes planesOf(const CodeSpan& span, std::vector<uint64_t>& words) {
  const int64_t words64 = ldWords64(span.numField);
  words.resize(static_cast<size_t>(span.numSnps * kNumLdPlanes * words64));
  ldPlanesOfCodes(span, words.data());
  return LdPlanes{words.data(), span.snpFirst, span.numSnps, words64};
}

Napi::Value LdTablesOfPairs(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  try {
    if (info.Length() != 2 || !info[0].IsObject()) throw ArgumentError{"takes (job, counts) arguments"};
    const SpanPairs sp = spanPairsOf(info[0].As<Napi::Object>());
    checkPairsInside(sp, sp.span.snpFirst, sp.span.snpFirst + sp.span.numSnps, "the span");
    uint32_t* counts = arrayOf<Napi::Uint32Array>(info[1], napi_uint32_array, static_cast<size_t>(9 * sp.numPairs), "counts").Data();
    std::vector<uint64_t> words;
    ldTablesOfPairs(planesOf(sp.span, words), sp.pairs, sp.numPairs, counts);
  } catch (const ArgumentError& error) {
    Napi::TypeError::New(env, "ldTablesOfPairs: " + error.message).ThrowAsJavaScriptException();
  }
  return env.Undefined();
}

/** The sizes a job's indices are checked against (on the pool thread: a batch's checks are O(pairs + loci)). */
struct TextJobBounds {
  int64_t numLoci;
  int64_t lociBytesLength;
  int64_t outLength;
};

/**
 * A chunk's lines, computed on a pool thread; the job object (and so its arrays) is held until it resolves. The checks
 * of every index the job reads run there too, first, and reject the promise naming what is wrong.
 */
class LdTextWorker : public Napi::AsyncWorker {
 public:
  LdTextWorker(Napi::Env env, const Napi::Object& job, const SpanPairs& sp, const LdLineParts& parts, const TextJobBounds& bounds,
               const double* values, const double* extras, double minR2, uint8_t* out, bool allowAvx512)
      : Napi::AsyncWorker(env), deferred_(Napi::Promise::Deferred::New(env)), job_(Napi::Persistent(job)), sp_(sp), parts_(parts),
        bounds_(bounds), values_(values), extras_(extras), minR2_(minR2), out_(out), allowAvx512_(allowAvx512) {}

  Napi::Promise promise() const { return deferred_.Promise(); }

  void Execute() override {
    try {
      check();
    } catch (const ArgumentError& error) {
      SetError("ldTableText: " + error.message);
      return;
    }
    const double* values = values_;
    // Kept per pool thread: fresh megabytes per job were page faults.
    thread_local std::vector<double> computed;
    thread_local std::vector<uint64_t> words;
    if (values == nullptr) {
      computed.resize(static_cast<size_t>(sp_.numPairs));
      ldR2OfPairs(planesOf(sp_.span, words), sp_.pairs, sp_.numPairs, computed.data(), allowAvx512_);
      values = computed.data();
    }
    numBytes_ = ldTableLines(parts_, sp_.pairs, values, extras_, sp_.numPairs, minR2_, out_, &numLines_);
  }

  void OnOK() override {
    Napi::Object result = Napi::Object::New(Env());
    result.Set("numBytes", Napi::Number::New(Env(), static_cast<double>(numBytes_)));
    result.Set("numLines", Napi::Number::New(Env(), static_cast<double>(numLines_)));
    deferred_.Resolve(result);
  }

  void OnError(const Napi::Error& error) override { deferred_.Reject(error.Value()); }

 private:
  void check() const {
    const uint32_t* offsets = parts_.lociOffsets;
    for (int64_t s = 0; s < bounds_.numLoci; s++) {
      if (offsets[s] > offsets[s + 1]) throw ArgumentError{"lociOffsets decrease"};
    }
    if (offsets[bounds_.numLoci] + kLdTextSlack > bounds_.lociBytesLength) throw ArgumentError{"lociBytes lacks its slack past the loci"};
    // Computed values need every SNP in the span's planes; given ones only need loci.
    if (values_ == nullptr) checkPairsInside(sp_, sp_.span.snpFirst, sp_.span.snpFirst + sp_.span.numSnps, "the span");
    checkPairsInside(sp_, 0, bounds_.numLoci, "the loci");
    const int64_t capacity = sp_.numPairs * ldMaxLineBytes(parts_, bounds_.numLoci) + kLdTextSlack;
    if (bounds_.outLength < capacity) {
      throw ArgumentError{"out has " + std::to_string(bounds_.outLength) + " bytes, fewer than " + std::to_string(capacity)};
    }
  }

  Napi::Promise::Deferred deferred_;
  Napi::ObjectReference job_;
  const SpanPairs sp_;
  const LdLineParts parts_;
  const TextJobBounds bounds_;
  const double* values_;
  const double* extras_;
  const double minR2_;
  uint8_t* out_;
  const bool allowAvx512_;
  int64_t numBytes_ = 0;
  int64_t numLines_ = 0;
};

/** Powers of ten the number text needs: 10^0 … 10^330 (the smallest subnormal's shift, and 1e308's). */
constexpr size_t kMinPowers = 331;

Napi::Value LdTableText(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  try {
    if (info.Length() != 1 || !info[0].IsObject()) throw ArgumentError{"takes one job argument"};
    const Napi::Object job = info[0].As<Napi::Object>();
    const SpanPairs sp = spanPairsOf(job);
    const double* values = nullptr;
    if (job.Get("values").IsTypedArray()) values = arrayOf<Napi::Float64Array>(job.Get("values"), napi_float64_array, static_cast<size_t>(sp.numPairs), "values").Data();
    const double* extras = nullptr;
    if (job.Get("extras").IsTypedArray()) extras = arrayOf<Napi::Float64Array>(job.Get("extras"), napi_float64_array, static_cast<size_t>(sp.numPairs), "extras").Data();
    LdLineParts parts{};
    const Napi::Uint32Array offsets = arrayOf<Napi::Uint32Array>(job.Get("lociOffsets"), napi_uint32_array, 1, "lociOffsets");
    const Napi::Uint8Array lociBytes = arrayOf<Napi::Uint8Array>(job.Get("lociBytes"), napi_uint8_array, 0, "lociBytes");
    parts.lociBytes = lociBytes.Data();
    parts.lociOffsets = offsets.Data();
    const Napi::Float64Array powers = arrayOf<Napi::Float64Array>(job.Get("powersOfTen"), napi_float64_array, kMinPowers, "powersOfTen");
    parts.powersOfTen = powers.Data();
    parts.numPowers = static_cast<int64_t>(powers.ElementLength());
    Napi::Uint8Array out = arrayOf<Napi::Uint8Array>(job.Get("out"), napi_uint8_array, 0, "out");
    const TextJobBounds bounds{static_cast<int64_t>(offsets.ElementLength()) - 1, static_cast<int64_t>(lociBytes.ElementLength()),
                               static_cast<int64_t>(out.ElementLength())};
    auto* worker = new LdTextWorker(env, job, sp, parts, bounds, values, extras, doubleOf(job, "minR2"), out.Data(), !job.Get("scalar").ToBoolean().Value());
    const Napi::Promise promise = worker->promise();
    worker->Queue();
    return promise;
  } catch (const ArgumentError& error) {
    Napi::TypeError::New(env, "ldTableText: " + error.message).ThrowAsJavaScriptException();
    return env.Undefined();
  }
}

}  // namespace

/** Adds the `.ld` table's functions to the addon's exports. */
void addLdTextFunctions(Napi::Env env, Napi::Object exports) {
  exports.Set("ldTablesOfPairs", Napi::Function::New(env, LdTablesOfPairs));
  exports.Set("ldTableText", Napi::Function::New(env, LdTableText));
}

}  // namespace snptally::r2
