// The GRM's float64 product: C (n × n, row-major, lower triangle) += A Aᵀ for A (n × k, row-major), by OpenBLAS's
// cblas_dsyrk. OpenBLAS is opened at run time (dlopen), not linked, so the addon loads (and its popcount kernel runs)
// on machines without it; `openBlasStatus` says why it is missing and the caller takes its slower path.
#include <dlfcn.h>
#include <napi.h>

#include <cstdint>
#include <string>

namespace snptally {

namespace {

// CBLAS's enum values (cblas.h): row-major storage, lower triangle, C += A·Aᵀ.
constexpr int kCblasRowMajor = 101;
constexpr int kCblasNoTrans = 111;
constexpr int kCblasLower = 122;

using DsyrkFunction = void (*)(int order, int uplo, int trans, int n, int k, double alpha, const double* a, int lda,
                               double beta, double* c, int ldc);
using SetThreadsFunction = void (*)(int threads);

struct OpenBlas {
  DsyrkFunction dsyrk = nullptr;
  SetThreadsFunction setThreads = nullptr;
  std::string missingReason;
};

const OpenBlas& openBlas() {
  static const OpenBlas loaded = [] {
    OpenBlas blas;
    void* library = nullptr;
    for (const char* name : {"libopenblas.so.0", "libopenblas.so"}) {
      library = dlopen(name, RTLD_NOW | RTLD_LOCAL);
      if (library != nullptr) break;
    }
    if (library == nullptr) {
      blas.missingReason = "OpenBLAS (libopenblas.so.0) cannot be opened: install libopenblas0 (Debian: libopenblas-dev)";
      return blas;
    }
    blas.dsyrk = reinterpret_cast<DsyrkFunction>(dlsym(library, "cblas_dsyrk"));
    blas.setThreads = reinterpret_cast<SetThreadsFunction>(dlsym(library, "openblas_set_num_threads"));
    if (blas.dsyrk == nullptr) blas.missingReason = "the OpenBLAS library found has no cblas_dsyrk";
    return blas;
  }();
  return loaded;
}

/** openBlasStatus(): null when cblas_dsyrk is usable, else the reason it is not. */
Napi::Value OpenBlasStatus(const Napi::CallbackInfo& info) {
  const OpenBlas& blas = openBlas();
  if (blas.dsyrk != nullptr) return info.Env().Null();
  return Napi::String::New(info.Env(), blas.missingReason);
}

/** symmetricRankUpdate(c, a, n, k, threads): c's lower triangle += a·aᵀ (c n × n, a n × k, both row-major). */
Napi::Value SymmetricRankUpdate(const Napi::CallbackInfo& info) {
  const Napi::Env env = info.Env();
  const OpenBlas& blas = openBlas();
  if (blas.dsyrk == nullptr) throw Napi::Error::New(env, blas.missingReason);
  auto c = info[0].As<Napi::Float64Array>();
  auto a = info[1].As<Napi::Float64Array>();
  const int64_t n = info[2].As<Napi::Number>().Int64Value();
  const int64_t k = info[3].As<Napi::Number>().Int64Value();
  const int threads = info[4].As<Napi::Number>().Int32Value();
  if (n < 1 || k < 1 || n > INT32_MAX || k > INT32_MAX || static_cast<int64_t>(c.ElementLength()) < n * n ||
      static_cast<int64_t>(a.ElementLength()) < n * k) {
    throw Napi::RangeError::New(env, "symmetricRankUpdate: sizes do not match the arrays");
  }
  if (blas.setThreads != nullptr) blas.setThreads(threads);
  blas.dsyrk(kCblasRowMajor, kCblasLower, kCblasNoTrans, static_cast<int>(n), static_cast<int>(k), 1.0, a.Data(),
             static_cast<int>(k), 1.0, c.Data(), static_cast<int>(n));
  return env.Undefined();
}

}  // namespace

void addOpenBlasExports(Napi::Env env, Napi::Object exports) {
  exports.Set("openBlasStatus", Napi::Function::New(env, OpenBlasStatus));
  exports.Set("symmetricRankUpdate", Napi::Function::New(env, SymmetricRankUpdate));
}

}  // namespace snptally
