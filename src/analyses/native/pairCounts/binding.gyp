# node-gyp build of the native finalize of the analyses whose pairs carry four exact counts (KING, the genotype
# distances: src/pairCountRows.cc; the analyses' shared helpers in src/analyses/native). Plain x86-64 code, no CPU
# feature beyond SSE2; -ffp-contract=off keeps every double operation the JS path's (no fused multiply-add).
{
  "targets": [
    {
      "target_name": "snptally_paircounts",
      "sources": ["src/pairCountsBinding.cc", "src/pairCountRows.cc"],
      "include_dirs": ["<!(node -p \"require('node-addon-api').include_dir\")", ".."],
      "defines": ["NAPI_VERSION=8", "NAPI_CPP_EXCEPTIONS"],
      "cflags_cc!": ["-fno-exceptions", "-O2"],
      "cflags_cc": ["-fexceptions", "-std=c++17", "-O3", "-ffp-contract=off", "-fno-fast-math"]
    }
  ]
}
