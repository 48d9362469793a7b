#!/usr/bin/env bash
# Installs the Debian packages snptally's tests and peers need, when they are missing:
#   - a Vulkan CPU driver (lavapipe from bookworm-backports; bookworm's own Mesa is too old for Dawn),
#     so the WebGPU kernels run and are tested on machines without a GPU;
#   - Open MPI (runtime and headers), for the MPI binding and multi-process runs, and the tools
#     node-gyp builds that binding with (g++, make, python3);
#   - the Vulkan headers (libvulkan-dev) and a C compiler, for the layer that numbers identical GPUs
#     (one GPU per rank);
#   - PLINK 1.9 and PLINK 2 (2.00a3.5), the peers that the r², relatedness and epistasis tests and benchmarks compare against;
#   - Chromium, which the report test renders the HTML page with (headless) to check it as a person sees it;
#   - OpenBLAS (libopenblas-dev), whose dsyrk computes the GRM (`snptally plink --make-rel`; loaded at run time).
# Idempotent; needs root and apt-get. Called by scripts/setup.sh; safe to run by hand.
set -euo pipefail

log() { printf 'system-packages: %s\n' "$*" >&2; }

if ! command -v apt-get >/dev/null 2>&1; then
  log "no apt-get: install a Vulkan driver (lavapipe), the Vulkan headers, Open MPI, plink1.9, plink2 and chromium with your system's tools"
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  log "not root: skipping system packages (run this script as root to install them)"
  exit 0
fi
export DEBIAN_FRONTEND=noninteractive

missing=()
for pkg in libvulkan1 libvulkan-dev gcc openmpi-bin libopenmpi-dev g++ make python3 plink1.9 plink2 chromium libopenblas-dev; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
done

# lavapipe must come from backports (Mesa >= 25); a bookworm mesa-vulkan-drivers (22.x) does not count.
mesa_version=$(dpkg-query -W -f='${Version}' mesa-vulkan-drivers 2>/dev/null || true)
need_backports_mesa=1
case "$mesa_version" in
  2[5-9].* | [3-9][0-9].*) need_backports_mesa=0 ;;
esac

if [ ${#missing[@]} -eq 0 ] && [ $need_backports_mesa -eq 0 ]; then
  log "all present"
  exit 0
fi

is_bookworm=0
if [ -r /etc/os-release ] && grep -q 'VERSION_CODENAME=bookworm' /etc/os-release; then is_bookworm=1; fi
if [ $need_backports_mesa -eq 1 ] && [ $is_bookworm -eq 1 ] && ! ls /etc/apt/sources.list.d/ 2>/dev/null | grep -q backports; then
  # The machine's own Debian mirror, so no new host is contacted.
  uri=$(awk '/^URIs:/{print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
  [ -n "$uri" ] || uri=$(awk '/^deb /{print $2; exit}' /etc/apt/sources.list 2>/dev/null || true)
  printf 'Types: deb\nURIs: %s\nSuites: bookworm-backports\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
    "$uri" >/etc/apt/sources.list.d/bookworm-backports.sources
  log "added bookworm-backports from $uri (for a Mesa recent enough for Dawn)"
fi

log "updating package lists"
apt-get update -qq
if [ ${#missing[@]} -gt 0 ]; then
  log "installing ${missing[*]}"
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
if [ $need_backports_mesa -eq 1 ]; then
  if [ $is_bookworm -eq 1 ]; then
    log "installing mesa-vulkan-drivers from bookworm-backports"
    apt-get install -y -qq --no-install-recommends -t bookworm-backports mesa-vulkan-drivers >/dev/null
  else
    apt-get install -y -qq --no-install-recommends mesa-vulkan-drivers >/dev/null
  fi
fi
log "done"
