#!/usr/bin/env bash
# Whole runs with --backend cpu and --backend webgpu, case by case: the checksum and entry count must be equal
# (dense and sparse, ragged sizes, thresholds, DUO, r², 3-way, field slabs, stages, the split half-diagonal, field
# ranks that hold no fields).
# Prints one line per case and exits 1 if any case differs or fails.
#
#   bash tools/check-webgpu-cpu.sh [--small]
#   SNPTALLY="bash gpu-run.sh node dist/src/cli/main.js" bash tools/check-webgpu-cpu.sh   # in a gpu-bundle.sh bundle
#
# --small runs sizes a CPU-only machine (lavapipe) finishes in a few minutes; the default sizes are for a GPU host.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
read -r -a snptally <<< "${SNPTALLY:-node dist/src/cli/main.js}"
small=false
case "${1:-}" in
  --small) small=true ;;
  '') ;;
  -h | --help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  *) echo "check-webgpu-cpu: unknown option $1 (--small, --help)" >&2; exit 1 ;;
esac

if $small; then
  cases=(
    "2way-dense-thr --vectors 700 --fields 3001 --threshold 0.5"
    "2way-sparse-thr --sparse --vectors 650 --fields 2999 --threshold 0.5"
    "duo-sparse-npv3-npf2 --metric duo --sparse --vectors 301 --fields 1025 --npv 3 --npf 2"
    "2way-npv4-split-thr --vectors 500 --fields 1000 --npv 4 --half-diagonal split --threshold 0.45"
    "3way-dense --way 3 --vectors 90 --fields 999"
    "3way-sparse-thr --way 3 --sparse --vectors 81 --fields 1001 --threshold 0.3"
    "3way-npv2-stages2-thr --way 3 --vectors 80 --fields 700 --npv 2 --stages 2 --threshold 0.3"
    "2way-npf-past-fields --vectors 60 --fields 3 --npf 4"
    "3way-sparse-npf-past-fields --way 3 --sparse --vectors 40 --fields 3 --npf 4"
    "r2-sparse-thr --metric r2 --sparse --vectors 401 --fields 1999 --threshold 0.003"
    "r2-dense-npv2 --metric r2 --vectors 300 --fields 1001 --npv 2"
  )
else
  cases=(
    "2way-dense-thr --vectors 4096 --fields 32768 --threshold 0.5"
    "2way-sparse-thr --sparse --vectors 4096 --fields 32768 --threshold 0.5"
    "2way-dense-ragged --vectors 3001 --fields 4099"
    "duo-sparse-npv3-npf2 --metric duo --sparse --vectors 1999 --fields 1025 --npv 3 --npf 2"
    "2way-npv4-split-thr --vectors 5000 --fields 3000 --npv 4 --half-diagonal split --threshold 0.45"
    "3way-dense --way 3 --vectors 400 --fields 4099"
    "3way-sparse-thr --way 3 --sparse --vectors 401 --fields 3001 --threshold 0.3"
    "3way-npv3-npf2 --way 3 --vectors 300 --fields 2049 --npv 3 --npf 2"
    "3way-npv2-stages2-thr --way 3 --vectors 400 --fields 2000 --npv 2 --stages 2 --threshold 0.3"
    "3way-duo-sparse --way 3 --metric duo --sparse --vectors 200 --fields 999"
    "3way-multi-thr --way 3 --vectors 300 --fields 1500 --threshold 0.3,0.35,0.4,0.45,0.5"
    "2way-npf-past-fields --vectors 300 --fields 3 --npf 4"
    "3way-sparse-npf-past-fields --way 3 --sparse --vectors 100 --fields 3 --npf 4"
    "r2-sparse --metric r2 --sparse --vectors 4096 --fields 10000"
    "r2-sparse-thr-ragged --metric r2 --sparse --vectors 3001 --fields 4099 --threshold 0.001"
    "r2-dense-npv3 --metric r2 --vectors 2999 --fields 2049 --npv 3"
  )
fi

# The checksum and entry count of one run ("" when it fails).
result_of() {
  "${snptally[@]}" run --json "$@" 2>/dev/null | grep -o '"checksum":"[^"]*","entries":[0-9]*'
}

failures=0
for line in "${cases[@]}"; do
  read -r name args <<< "$line"
  read -r -a opts <<< "$args"
  cpu=$(result_of --backend cpu "${opts[@]}")
  gpu=$(result_of --backend webgpu "${opts[@]}")
  if [ -n "$cpu" ] && [ "$cpu" = "$gpu" ]; then
    echo "equal   $name $cpu"
  else
    echo "DIFFER  $name cpu=[$cpu] webgpu=[$gpu]"
    failures=$((failures + 1))
  fi
done
echo "check-webgpu-cpu: ${#cases[@]} cases, $failures differing"
[ "$failures" -eq 0 ]
