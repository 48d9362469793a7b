# node-gyp build of the MPI binding; compiler and linker flags come from Open MPI's mpicc wrapper.
{
  "targets": [
    {
      "target_name": "snptally_mpi",
      "sources": ["src/mpiBinding.cc"],
      "include_dirs": [
        "<!(node -p \"require('node-addon-api').include_dir\")",
        "<!@(mpicc --showme:incdirs)"
      ],
      "defines": ["NAPI_VERSION=8", "NAPI_CPP_EXCEPTIONS", "OMPI_SKIP_MPICXX", "MPICH_SKIP_MPICXX"],
      "cflags_cc!": ["-fno-exceptions"],
      "cflags_cc": ["-fexceptions", "-std=c++17"],
      "libraries": ["<!@(mpicc --showme:link)", "-ldl"]
    }
  ]
}
