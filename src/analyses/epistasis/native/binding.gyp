# node-gyp build of the native scorer of dense 2-way epistasis panels (src/densePairScores.cc) and of its fused bands
# (src/denseBand.cc; the analyses' shared helpers in src/analyses/native). x86-64; the bands' AVX-512 tallies are
# compiled for that target alone and run where the CPU has VPOPCNTDQ, else 64-bit popcounts; -ffp-contract=off keeps
# every double operation the JS path's (no fused multiply-add); -Wno-uninitialized silences GCC 12's false warning
# inside its own avx512fintrin.h.
{
  "targets": [
    {
      "target_name": "snptally_epistasis",
      "sources": ["src/epistasisBinding.cc", "src/densePairScores.cc", "src/denseBand.cc"],
      "include_dirs": ["<!(node -p \"require('node-addon-api').include_dir\")", "../../native"],
      "defines": ["NAPI_VERSION=8", "NAPI_CPP_EXCEPTIONS"],
      "cflags_cc!": ["-fno-exceptions", "-O2"],
      "cflags_cc": ["-fexceptions", "-std=c++17", "-O3", "-mpopcnt", "-ffp-contract=off", "-fno-fast-math", "-Wno-uninitialized"]
    }
  ]
}
