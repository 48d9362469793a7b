#!/usr/bin/env bash
# GPU epistasis against its GPU peers on one host, in one run and on the same genotypes: tensor-episdet (2- and 3-way
# K2) and Epi4Tensor (4-way K2), built here for the GPU (../shared/peers/epistasis-gpu, packed into the bundle by
# scripts/gpu-bundle.sh), against `snptally epistasis --score k2 --top 1`. Each data set comes from the peers' own
# generator (gen_bin: planted set, no missing calls, classes padded as they need) and is converted to .bed by
# tools/peers/episdet-to-bed.c. Prints per set: the peer's own timer (GPU allocation to last copy back, file reading
# excluded), snptally's engine seconds (its --json `seconds`) and whole-process seconds (reading the .bed, packing,
# the GPU run), tuples·samples/s of each, the ratio engine/peer, and both best sets.
#   cd BUNDLE && bash gpu-run.sh bash tools/bench-epistasis-gpu.sh [SET ...]
# SET: b2_S b2_L b3_S b3_L b3_XL b4_S b4_L (default: b2_S b2_L b3_S b3_L b4_S); sizes as the peers' run-gpu.sh.
# Environment: WORK (scratch folder, default /tmp/snptally-epistasis-gpu), THREADS (16), BACKEND (webgpu),
# ARCH (sm_90), NVCC (nvcc on PATH or /usr/local/cuda/bin/nvcc), RUN_TIMEOUT (seconds per program run, default 300).
set -euo pipefail
bundle=$(pwd)
work=${WORK:-/tmp/snptally-epistasis-gpu}
threads=${THREADS:-16}
backend=${BACKEND:-webgpu}
arch=${ARCH:-sm_90}
run_timeout=${RUN_TIMEOUT:-300}
sets=("$@")
[ ${#sets[@]} -gt 0 ] || sets=(b2_S b2_L b3_S b3_L b4_S)
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
[ -x "$nvcc" ] || { echo "bench-epistasis-gpu: no nvcc (set NVCC)" >&2; exit 1; }
export PATH="$(dirname "$nvcc"):$PATH"

mkdir -p "$work/peers" "$work/bin" "$work/data" "$work/logs"
tar -C "$work/peers" -xJf "$bundle/epistasis-peers.tar.xz"
te=$work/peers/patched/tensor-episdet
e4=$work/peers/patched/Epi4Tensor
# CUDA ≥ 12.8 makes __global__ template stubs static; tensor-episdet launches one across files (run-gpu.sh says more).
extra=-static-global-template-stub=false
build() { # build DIR TARGET CUTLASS
  [ -x "$1/bin/$2" ] || make -C "$1" -f Makefile.sm90 "$2" NVCC="$nvcc" ARCH="$arch" CUTLASS="$3" EXTRA="$extra" > "$work/logs/build_$2.log" 2>&1 \
    || { echo "bench-epistasis-gpu: building $2 failed:"; tail -20 "$work/logs/build_$2.log"; return 1; }
}
build "$te" pairs_k2_and "$work/peers/thirdparty/cutlass-1.3.3" &
build "$te" triplets_k2_and "$work/peers/thirdparty/cutlass-1.3.3" &
build "$e4" epi4tensor_and "$work/peers/thirdparty/cutlass-2.5.0" &
gcc -O3 -fopenmp -o "$work/bin/gen_bin" "$work/peers/tools/gen_bin.c"
gcc -O2 -o "$work/bin/episdet-to-bed" "$bundle/tools/episdet-to-bed.c"
wait

spec_of() { # name → k SNPs cases controls planted (the peers' run-gpu.sh BENCH_SPEC)
  case $1 in
    b2_S) echo "2 4096 131072 131072 450,2700" ;;  b2_L) echo "2 8192 131072 131072 901,5000" ;;
    b3_S) echo "3 1024 8192 8192 113,470,900" ;;   b3_L) echo "3 2048 32768 32768 225,941,1800" ;;
    b3_XL) echo "3 4096 32768 32768 225,941,1800" ;;
    b4_S) echo "4 256 8192 8192 28,90,150,230" ;;  b4_L) echo "4 512 8192 8192 56,180,300,460" ;;
    *) echo "bench-epistasis-gpu: unknown set $1" >&2; return 1 ;;
  esac
}
choose() { awk -v n="$1" -v k="$2" 'BEGIN { r = 1; for (i = 1; i <= k; i++) r = r * (n - k + i) / i; printf "%.0f", r }'; }

printf '%-6s %2s %6s %8s | %10s %10s %14s | %10s %10s %14s %7s | %s\n' set k SNPs samples peer_s peer_best peer_rate \
  ours_s ours_whole ours_rate ratio ours_best
for name in "${sets[@]}"; do
  read -r k snps cases controls planted <<< "$(spec_of "$name")"
  samples=$((cases + controls))
  "$work/bin/gen_bin" "$work/data" "$name" "$snps" "$cases" "$controls" 12345 0.5 "$planted" > "$work/logs/gen_$name.log"
  "$work/bin/episdet-to-bed" "$work/data/$name.txt" "$work/data/$name"
  case $k in 2) peer=$te/bin/pairs_k2_and ;; 3) peer=$te/bin/triplets_k2_and ;; 4) peer=$e4/bin/epi4tensor_and ;; esac
  timeout "$run_timeout" "$peer" "$work/data/$name.txt" > "$work/logs/peer_$name.log" 2>&1 || { echo "peer failed on $name:"; tail "$work/logs/peer_$name.log"; }
  peer_s=$(grep -a 'Wall-clock time' "$work/logs/peer_$name.log" | tail -n 1 | awk '{print $3}')
  peer_best=$(grep -a 'SCORE' "$work/logs/peer_$name.log" | tail -n 1 | sed -E 's/.*\{([^}]*)\}.*/\1/' | tr -d ' ')
  rm -f "$work/data/$name.cases.bin" "$work/data/$name.controls.bin"
  t0=$(date +%s.%N)
  timeout "$run_timeout" node "$bundle/dist/src/cli/main.js" epistasis --bfile "$work/data/$name" --order "$k" --score k2 --top 1 --backend "$backend" \
    --threads "$threads" --json > "$work/logs/ours_$name.json" 2> "$work/logs/ours_$name.err" || { echo "snptally failed on $name:"; tail "$work/logs/ours_$name.err"; }
  t1=$(date +%s.%N)
  read -r ours_s ours_best < <(node -e '
    const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    console.log(r.seconds.toFixed(3), r.top[0].vectors.join(","));' "$work/logs/ours_$name.json" || echo "NA NA")
  combos=$(choose "$snps" "$k")
  awk -v n="$name" -v k="$k" -v m="$snps" -v s="$samples" -v ps="${peer_s:-NA}" -v pb="${peer_best:-NA}" -v os="$ours_s" \
    -v ow="$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" -v ob="$ours_best" -v c="$combos" 'BEGIN {
      pr = (ps > 0) ? c * s / ps : 0; orate = (os > 0) ? c * s / os : 0
      printf "%-6s %2d %6d %8d | %10s %10s %14.3e | %10s %10.2f %14.3e %7.3f | %s (planted '"$planted"')\n", n, k, m, s, ps, pb, pr, os, ow, orate, (pr > 0 ? orate / pr : 0), ob }'
  rm -f "$work/data/$name.bed"
done
