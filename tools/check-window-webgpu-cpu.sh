#!/usr/bin/env bash
# A windowed r² run (LD window) with --backend webgpu and --backend cpu on one PLINK fileset: the checksum, window
# pairs and record files must be equal; prints each run's compute and wall time, and plink1.9's on the same window.
# Data: `plink1.9 --dummy SAMPLES SNPS 0.02 --seed 3`, its .bim rewritten to 4 chromosomes, SNPs 5 kb apart.
#
#   bash tools/check-window-webgpu-cpu.sh [SNPS] [SAMPLES] [THREADS]          (default 60000 2000 16)
#   SNPTALLY="bash gpu-run.sh node dist/src/cli/main.js" PLINK="bash gpu-run.sh plink1.9" \
#     bash tools/check-window-webgpu-cpu.sh                                    # in a gpu-bundle.sh bundle
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
read -r -a snptally <<< "${SNPTALLY:-node dist/src/cli/main.js}"
read -r -a plink <<< "${PLINK:-plink1.9}"
snps=${1:-60000}
samples=${2:-2000}
threads=${3:-16}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"${plink[@]}" --dummy "$samples" "$snps" 0.02 --seed 3 --make-bed --out "$work/w" --silent > /dev/null 2>&1
per_chr=$(( (snps + 3) / 4 ))
awk -v n="$per_chr" 'BEGIN { OFS = "\t" } { c = 1 + int((NR - 1) / n); print c, $2, $3, 5000 * ((NR - 1) % n) + 1000, $5, $6 }' \
  "$work/w.bim" > "$work/w.bim.new" && mv "$work/w.bim.new" "$work/w.bim"
window=(--ld-window-kb 1000 --ld-window 99999 --ld-window-r2 0)
for backend in webgpu cpu; do
  start=$(date +%s%N)
  report=$("${snptally[@]}" run --metric r2 --input "$work/w" "${window[@]}" --backend "$backend" --threads "$threads" \
    --out "$work/$backend" --json)
  wall_ms=$(( ($(date +%s%N) - start) / 1000000 ))
  echo "$backend: $(grep -o '"checksum":"[0-9-]*"\|"windowPairs":[0-9]*\|"computeSeconds":[0-9.]*' <<< "$report" | tr '\n' ' ')wall ${wall_ms} ms"
done
start=$(date +%s%N)
"${plink[@]}" --bfile "$work/w" --r2 "${window[@]}" --threads "$threads" --out "$work/p" --silent > /dev/null 2>&1
echo "plink1.9 --r2 ${window[*]}: wall $(( ($(date +%s%N) - start) / 1000000 )) ms"
if cmp -s "$work/webgpu_0.bin" "$work/cpu_0.bin"; then
  echo "check-window-webgpu-cpu: record files equal"
else
  echo "check-window-webgpu-cpu: record files differ" >&2
  exit 1
fi
