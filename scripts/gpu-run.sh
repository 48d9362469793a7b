#!/usr/bin/env bash
# Runs a command inside a bundle made by gpu-bundle.sh on a GPU host: unpacks the Vulkan loader .debs
# (once, into /; needs root), points the loader at NVIDIA's driver, puts the bundled Node first on PATH.
#   bash gpu-run.sh node dist/tools/bench-gpu.js --out bench.json
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
export PATH="$PATH:/usr/sbin:/sbin"
if ! ldconfig -p | grep -q libvulkan.so.1; then
  for f in "$here"/debs/*.deb; do dpkg -x "$f" /; done
  ldconfig
fi
for icd in /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json /usr/share/vulkan/icd.d/nvidia_icd.json /etc/vulkan/icd.d/nvidia_icd.json; do
  if [ -f "$icd" ] && [ -z "${VK_DRIVER_FILES:-}" ]; then export VK_DRIVER_FILES=$icd; fi
done
if ! command -v node >/dev/null || [ -f "$here/node.xz" ]; then
  mkdir -p "$here/bin"
  [ -x "$here/bin/node" ] || xz -dc "$here/node.xz" > "$here/bin/node"
  chmod +x "$here/bin/node"
  export PATH="$here/bin:$PATH"
fi
dawn=$here/node_modules/webgpu/dist/linux-x64/dawn.node
[ -f "$dawn" ] || xz -dc "$dawn.xz" > "$dawn"
# Peers (gpu-bundle.sh peer-debs): unpacked here, never into /.
for f in "$here"/peer-debs/*.deb; do
  [ -f "$f" ] || continue
  done_mark=$here/peers/.unpacked-$(basename "$f")
  [ -f "$done_mark" ] || { dpkg -x "$f" "$here/peers" && touch "$done_mark"; }
done
if [ -d "$here/peers" ]; then
  export PATH="$PATH:$here/peers/usr/lib/debian-med/bin:$here/peers/usr/bin"
  export LD_LIBRARY_PATH="${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$here/peers/usr/lib/x86_64-linux-gnu:$here/peers/usr/lib/x86_64-linux-gnu/blas:$here/peers/usr/lib/x86_64-linux-gnu/lapack"
fi
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/tmp}
cd "$here"
exec "$@"
