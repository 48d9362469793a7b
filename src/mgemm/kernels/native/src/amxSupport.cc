// Whether this process may run the AMX-INT8 kernel: the CPU has AMX-TILE and AMX-INT8 (and AVX512BW, AVX512_BITALG
// for packing), and Linux (≥ 5.16) granted the process the tile data state (arch_prctl ARCH_REQ_XCOMP_PERM). The
// permission is per process, so the first caller, on any thread, asks once for all; threads started before it and
// after it (the kernel pool's workers) may all use tiles (test/mgemm/nativeAmx.test.ts runs the kernel in a worker).
#include <mutex>
#include <string>

#include "popcountKernel.h"

#if defined(__x86_64__) && defined(__linux__)
#include <cpuid.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace snptally::native {
namespace {

#if defined(SNPTALLY_AMX_BUILT) && defined(__linux__)
constexpr unsigned kArchGetXcompPerm = 0x1022, kArchReqXcompPerm = 0x1023;  // asm/prctl.h
constexpr unsigned kXfeatureXtiledata = 18;

AmxSupport probe() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid_max(0, nullptr) < 7) return {false, "this CPU lacks AMX-INT8"};
  __cpuid_count(7, 0, eax, ebx, ecx, edx);
  const bool amxTile = (edx >> 24) & 1, amxInt8 = (edx >> 25) & 1;
  const bool avx512bw = (ebx >> 30) & 1, bitalg = (ecx >> 12) & 1;
  if (!amxTile || !amxInt8) return {false, "this CPU lacks AMX-TILE/AMX-INT8"};
  if (!avx512bw || !bitalg) return {false, "this CPU lacks AVX512BW/AVX512_BITALG (packing for AMX)"};
  if (syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureXtiledata) != 0) {
    return {false, "the kernel refused the AMX tile state (arch_prctl ARCH_REQ_XCOMP_PERM needs Linux 5.16 or later)"};
  }
  unsigned long permitted = 0;
  if (syscall(SYS_arch_prctl, kArchGetXcompPerm, &permitted) != 0 || ((permitted >> kXfeatureXtiledata) & 1) == 0) {
    return {false, "the AMX tile state is not permitted to this process"};
  }
  return {true, ""};
}
#elif defined(__x86_64__) && defined(__linux__)
AmxSupport probe() { return {false, "the native addon was built without AMX intrinsics (needs g++ 11 or clang 12)"}; }
#else
AmxSupport probe() { return {false, "AMX needs Linux on x86-64"}; }
#endif

}  // namespace

const AmxSupport& amxSupport() {
  static std::once_flag once;
  static AmxSupport support{false, ""};
  std::call_once(once, [] { support = probe(); });
  return support;
}

}  // namespace snptally::native
