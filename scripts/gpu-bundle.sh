#!/usr/bin/env bash
# Packs a self-contained snptally for a GPU host without Node or a Vulkan loader (e.g. an HPC compute
# node): the built dist/, the runtime node_modules (webgpu with only its linux-x64 binary), package.json,
# the Node binary (xz), the Vulkan loader / GL dispatch .debs (unpacked there by gpu-run.sh), and the
# native parts that were built: CPU kernel, epistasis scorer, r²'s window bands, MPI binding (build/mpi), the Vulkan layer that numbers GPUs
# (build/vulkan, one GPU per rank). MPI runs use the host's Open MPI (libmpi.so.40 and mpirun of Open
# MPI 4.x, as HPC hosts and the GPU image here have); it is not packed.
#   bash scripts/gpu-bundle.sh DEST        (after npm run build; needs apt-get for the .debs)
# On the GPU host:  cd DEST && bash gpu-run.sh node dist/tools/bench-gpu.js ...
set -euo pipefail
dest=${1:?usage: gpu-bundle.sh DEST}
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$dest/node_modules" "$dest/debs" "$dest/tools" "$dest/build"
rm -rf "$dest/dist" "$dest/node_modules"/* "$dest/build/wasm" "$dest/build/native" "$dest/build/epistasis" "$dest/build/r2" "$dest/build/mpi" "$dest/build/vulkan"
# dist/ without source maps and declarations (the bundle travels within the device's 64 MiB carry).
cp -r "$root/dist" "$dest/dist"
find "$dest/dist" \( -name '*.map' -o -name '*.d.ts' \) -delete
cp -r "$root/build/wasm" "$dest/build/wasm"
# The native AVX-512 CPU kernel, when it was built (the host CPU decides at run time whether it is used).
[ -d "$root/build/native" ] && cp -r "$root/build/native" "$dest/build/native"
# The native epistasis pair scorer (analyses/epistasis/native), when it was built.
[ -d "$root/build/epistasis" ] && cp -r "$root/build/epistasis" "$dest/build/epistasis"
# r²'s native window bands (analyses/r2/native), when they were built.
[ -d "$root/build/r2" ] && cp -r "$root/build/r2" "$dest/build/r2"
# KING's and the distances' native finalize (analyses/native/pairCounts), when it was built.
[ -d "$root/build/paircounts" ] && cp -r "$root/build/paircounts" "$dest/build/paircounts"
# The MPI binding (its .node only: it links the host's libmpi.so.40) and the GPU-numbering layer.
if [ -f "$root/build/mpi/snptally_mpi.node" ]; then mkdir -p "$dest/build/mpi" && cp "$root/build/mpi/snptally_mpi.node" "$dest/build/mpi/"; fi
[ -d "$root/build/vulkan" ] && cp -r "$root/build/vulkan" "$dest/build/vulkan"
cp "$root/package.json" "$dest/"
cp "$root/tools/bench-torch-int8.py" "$dest/tools/"
cp "$root/tools/check-webgpu-cpu.sh" "$dest/tools/"
cp "$root/scripts/gpu-run.sh" "$dest/"
# Runtime packages: what dist/ imports (webgpu, commander, cli-progress) and their dependencies.
for pkg in commander cli-progress string-width strip-ansi ansi-regex emoji-regex is-fullwidth-code-point msgpackr; do
  cp -r "$root/node_modules/$pkg" "$dest/node_modules/"
done
mkdir -p "$dest/node_modules/webgpu/dist"
cp "$root/node_modules/webgpu/"{index.js,package.json} "$dest/node_modules/webgpu/"
# Dawn's 21 MB binary travels as xz (6 MB); gpu-run.sh unpacks it.
mkdir -p "$dest/node_modules/webgpu/dist/linux-x64"
xz -T0 -c "$root/node_modules/webgpu/dist/linux-x64/dawn.node" > "$dest/node_modules/webgpu/dist/linux-x64/dawn.node.xz"
[ -f "$dest/node.xz" ] || xz -T0 -c "$(command -v node)" > "$dest/node.xz"
if ! ls "$dest/debs/"libvulkan1_*.deb >/dev/null 2>&1; then
  lists=$(mktemp -d); mkdir -p "$lists/partial"
  o=(-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 "-oDir::State::Lists=$lists")
  apt-get "${o[@]}" update >/dev/null
  (cd "$dest/debs" && apt-get "${o[@]}" download libvulkan1 libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2)
fi
# Peers measured in the same run (plink1.9, plink2 and the libraries they link: BLAS/LAPACK/Fortran, libdeflate, zstd), unpacked by gpu-run.sh
# into peers/ and found through PATH and LD_LIBRARY_PATH.
if ! ls "$dest/peer-debs/"libdeflate0_*.deb >/dev/null 2>&1; then
  mkdir -p "$dest/peer-debs"
  lists=$(mktemp -d); mkdir -p "$lists/partial"
  o=(-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 "-oDir::State::Lists=$lists")
  apt-get "${o[@]}" update >/dev/null
  (cd "$dest/peer-debs" && apt-get "${o[@]}" download plink1.9 plink2 libdeflate0 libzstd1 libblas3 liblapack3 libgfortran5 libquadmath0)
fi
# The GPU epistasis peers (tensor-episdet, Epi4Tensor: patched sources, CUTLASS headers, generator), when the shared
# folder has them, for tools/bench-epistasis-gpu.sh; and the converter of their input to .bed.
peers=${EPISTASIS_PEERS:-$root/../shared/peers/epistasis-gpu}
if [ -d "$peers" ]; then
  tar -C "$peers" -cJf "$dest/epistasis-peers.tar.xz" run-gpu.sh patched thirdparty tools data/tiny
fi
cp "$root/tools/peers/episdet-to-bed.c" "$root/tools/bench-epistasis-gpu.sh" "$dest/tools/"
du -sh "$dest"
