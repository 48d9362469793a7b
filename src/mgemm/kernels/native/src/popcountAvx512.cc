// The N-API entry of the native AVX-512 popcount-GEMM kernels (x86-64 with AVX512F + AVX512_VPOPCNTDQ): reads a
// GemmTask (mgemm/kernels/wasm/gemmTask.ts) and computes its panel straight from the plane matrices in shared memory,
// with the kernel that suits the request's shape (layoutChoice.cc): the horizontal 4×4 kernel (horizontal4x4.cc),
// the vertical 12×32 kernel (verticalLoops.cc) or, where the CPU and Linux allow AMX-INT8 (amxSupport.cc), the AMX
// kernel of 32×32 tiles (amxLoops.cc).
//
// Identity: out[g][r·bCount + c] = Σ_(pa,pb) ∈ group g  Σ_w popcount(A[aFirst+r][pa][w] AND B[bFirst+c][pb][w]),
// the contract of mgemm/contract.ts; callers guarantee the sums fit in u32. A task overwrites every cell of its panel it
// computes, as the wasm kernel does.
#include <napi.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "popcountKernel.h"

namespace snptally {
// openBlasSyrk.cc: the GRM's float64 product through OpenBLAS.
void addOpenBlasExports(Napi::Env env, Napi::Object exports);
// codePlanes.cc: code rows → planes, and the planes' per-row popcounts.
void addCodePlaneExports(Napi::Env env, Napi::Object exports);
}  // namespace snptally

namespace {

using snptally::native::amxSupport;
using snptally::native::chooseLayout;
using snptally::native::ComplementChoice;
using snptally::native::ComplementSide;
using snptally::native::complementSideOf;
using snptally::native::runComplementGroup;
using snptally::native::Group;
using snptally::native::KernelLayout;
using snptally::native::Operand;
using snptally::native::OperandIds;
using snptally::native::Panel;
using snptally::native::Term;

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
                 matrix.Get("wordsPerPlane").As<Napi::Number>().Int32Value(), first,
                 matrix.Get("numVectors").As<Napi::Number>().Int32Value()};
}

// runTask({request, panel, outputs}, options?): the GemmTask of mgemm/kernels/wasm/gemmTask.ts, already checked;
// options.layout 'horizontal', 'vertical' or 'amx' forces a kernel (tests, measurements), else chooseLayout picks
// (options.amx false: among the two AVX-512 kernels only).
Napi::Value RunTask(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!cpuHasAvx512Popcount()) {
    Napi::Error::New(env, "this CPU lacks AVX512F/AVX512_VPOPCNTDQ").ThrowAsJavaScriptException();
    return env.Undefined();
  }
#if defined(__x86_64__)
  std::optional<KernelLayout> requestedLayout;
  bool amxAllowed = true;  // options.amx false: auto never picks AMX (a set of many threads; nativePopcount.ts)
  if (info.Length() > 1 && info[1].IsObject()) {
    const Napi::Value amxValue = info[1].As<Napi::Object>().Get("amx");
    amxAllowed = !(amxValue.IsBoolean() && !amxValue.As<Napi::Boolean>().Value());
    const Napi::Value layoutValue = info[1].As<Napi::Object>().Get("layout");
    const std::string name = layoutValue.IsString() ? layoutValue.As<Napi::String>().Utf8Value() : "auto";
    if (name == "horizontal") {
      requestedLayout = KernelLayout::kHorizontal;
    } else if (name == "vertical") {
      requestedLayout = KernelLayout::kVertical;
    } else if (name == "amx") {
      if (!amxSupport().available) {
        Napi::Error::New(env, "runTask: options.layout 'amx' is unavailable: " + amxSupport().reason).ThrowAsJavaScriptException();
        return env.Undefined();
      }
      requestedLayout = KernelLayout::kAmx;
    } else if (name != "auto") {
      Napi::TypeError::New(env, "runTask: options.layout must be 'auto', 'horizontal', 'vertical' or 'amx', not '" + name + "'")
          .ThrowAsJavaScriptException();
      return env.Undefined();
    }
  }
  ComplementChoice complementChoice = ComplementChoice::kAuto;
  if (info.Length() > 1 && info[1].IsObject()) {
    const Napi::Value complementValue = info[1].As<Napi::Object>().Get("complement");
    const std::string name = complementValue.IsString() ? complementValue.As<Napi::String>().Utf8Value() : "auto";
    if (name == "never") {
      complementChoice = ComplementChoice::kNever;
    } else if (name == "always") {
      complementChoice = ComplementChoice::kAlways;
    } else if (name != "auto") {
      Napi::TypeError::New(env, "runTask: options.complement must be 'auto', 'never' or 'always', not '" + name + "'")
          .ThrowAsJavaScriptException();
      return env.Undefined();
    }
  }
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
  // operandIds (absent or null: none).
  OperandIds operandIds{0, 0};
  const Napi::Value idsValue = task.Get("operandIds");
  if (idsValue.IsObject()) {
    const Napi::Object ids = idsValue.As<Napi::Object>();
    operandIds = {static_cast<uint64_t>(ids.Get("a").As<Napi::Number>().Int64Value()),
                  static_cast<uint64_t>(ids.Get("b").As<Napi::Number>().Int64Value())};
  }
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
  std::vector<Group> plannedGroups;
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
    Group planned{plannedTerms(A, B, panel, std::move(terms)), outputs.Get(g).As<Napi::Uint32Array>().Data()};
    const ComplementSide side = complementSideOf(A, B, panel, planned, complementChoice);
    if (side != ComplementSide::kNone) {
      runComplementGroup(A, B, planned.terms[0], side, panel, planned.out, operandIds);
    } else {
      plannedGroups.push_back(std::move(planned));
    }
  }
  if (plannedGroups.empty()) return env.Undefined();
  const KernelLayout layout = requestedLayout.value_or(chooseLayout(plannedGroups, panel, {amxSupport().available && amxAllowed}));
#if defined(SNPTALLY_AMX_BUILT)
  if (layout == KernelLayout::kAmx) {
    runGroupsAmx(A, B, plannedGroups, panel);
    return env.Undefined();
  }
#endif
  if (layout == KernelLayout::kVertical) {
    runGroupsVertical(A, B, plannedGroups, panel);
  } else {
    for (const Group& group : plannedGroups) runGroupHorizontal(A, B, group.terms, panel, group.out);
  }
#endif
  return env.Undefined();
}

Napi::Value CpuSupported(const Napi::CallbackInfo& info) {
  return Napi::Boolean::New(info.Env(), cpuHasAvx512Popcount());
}

// amxStatus(): {available, reason} of AMX-INT8 in this process (asking Linux for the tile state the first time).
Napi::Value AmxStatus(const Napi::CallbackInfo& info) {
  Napi::Object result = Napi::Object::New(info.Env());
  result.Set("available", Napi::Boolean::New(info.Env(), amxSupport().available));
  result.Set("reason", Napi::String::New(info.Env(), amxSupport().reason));
  return result;
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("runTask", Napi::Function::New(env, RunTask));
  exports.Set("cpuSupported", Napi::Function::New(env, CpuSupported));
  exports.Set("amxStatus", Napi::Function::New(env, AmxStatus));
  snptally::addOpenBlasExports(env, exports);
  snptally::addCodePlaneExports(env, exports);
  return exports;
}

}  // namespace

NODE_API_MODULE(snptally_popcount, Init)
