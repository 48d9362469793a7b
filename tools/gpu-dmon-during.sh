#!/usr/bin/env bash
# Samples the GPU's power, clocks and utilization (nvidia-smi dmon, once a second, with time stamps) while a
# command runs, and prints both: what limits a kernel when no profiler reads its counters (Nsight Compute
# profiles no Vulkan kernels). Usage: tools/gpu-dmon-during.sh OUT_PREFIX COMMAND [ARGS...]
#   writes OUT_PREFIX.dmon (samples) and OUT_PREFIX.log (the command's output, each line time-stamped).
set -euo pipefail
prefix=$1
shift
nvidia-smi dmon -s pucm -o T -d 1 > "$prefix.dmon" &
dmon=$!
trap 'kill $dmon 2>/dev/null || true' EXIT
sleep 2
"$@" 2>&1 | while IFS= read -r line; do printf '%s %s\n' "$(date +%T)" "$line"; done > "$prefix.log"
sleep 2
