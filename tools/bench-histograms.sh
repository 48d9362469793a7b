#!/usr/bin/env bash
# Compute seconds of three GPU jobs without and with --histograms, each pair twice (a process that meets a shader for
# the first time pays the driver's compile: compare the second runs), and the 3-way file against the CPU's.
#   bash tools/bench-histograms.sh            (in a bundle: SNPTALLY="bash gpu-run.sh node dist/src/cli/main.js")
set -euo pipefail
S=${SNPTALLY:-node dist/src/cli/main.js}
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
for job in "--vectors 32768 --fields 16384" "--sparse --vectors 32768 --fields 16384" "--way 3 --vectors 1024 --fields 16384"; do
  for histograms in "" "--histograms $d/h.tsv --force" "" "--histograms $d/h.tsv --force"; do
    # shellcheck disable=SC2086
    echo "$job $histograms: $($S run --backend webgpu --threads 16 $job $histograms --json | grep -o '"computeSeconds":[0-9.]*')"
  done
done
$S run --backend webgpu --way 3 --vectors 300 --fields 4096 --histograms "$d/g.tsv" --json > /dev/null
$S run --backend cpu --way 3 --vectors 300 --fields 4096 --histograms "$d/c.tsv" --json > /dev/null
cmp "$d/g.tsv" "$d/c.tsv" && echo "3-way histograms: webgpu = cpu"
