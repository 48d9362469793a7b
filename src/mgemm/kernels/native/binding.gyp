# node-gyp build of the native AVX-512 popcount-GEMM kernel, the block build's code-row packing and vector sums, and the GRM's OpenBLAS entry (mgemm/kernels/native).
{
  "targets": [
    {
      "target_name": "snptally_popcount",
      "sources": ["src/popcountAvx512.cc", "src/horizontal4x4.cc", "src/verticalLoops.cc", "src/verticalPacking.cc", "src/layoutChoice.cc", "src/complementTerms.cc", "src/amxSupport.cc", "src/amxPacking.cc", "src/amxLoops.cc", "src/openBlasSyrk.cc", "src/codePlanes.cc"],
      "libraries": ["-ldl"],
      "include_dirs": ["<!(node -p \"require('node-addon-api').include_dir\")"],
      "defines": ["NAPI_VERSION=8", "NAPI_CPP_EXCEPTIONS"],
      "cflags_cc!": ["-fno-exceptions", "-O2"],
      "cflags_cc": ["-fexceptions", "-std=c++17", "-O3", "-Wno-maybe-uninitialized"]
    }
  ]
}
