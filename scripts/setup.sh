#!/usr/bin/env bash
# Sets snptally up on this machine: Node.js >= 20 (installed when missing, as root), dependencies, build.
# Idempotent: run it again at any time; it skips what is already done.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

readonly REQUIRED_NODE_MAJOR=20
# Where Node.js is downloaded from when the system's packages are too old (Debian 12 ships Node 18).
readonly NODE_DIST_URL=https://nodejs.org/dist/latest-v20.x

log() { printf 'setup: %s\n' "$*" >&2; }

node_major() { node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }

has_node() {
  command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 &&
    [ "$(node_major)" -ge "$REQUIRED_NODE_MAJOR" ]
}

# Installs the official Linux build of the latest Node 20 into /usr/local, checked against SHASUMS256.txt.
install_node_from_nodejs_org() {
  local arch
  case "$(uname -m)" in
    x86_64) arch=x64 ;;
    aarch64 | arm64) arch=arm64 ;;
    *) log "no Node.js download for $(uname -m); install Node.js >= $REQUIRED_NODE_MAJOR yourself"; exit 1 ;;
  esac
  if command -v apt-get >/dev/null 2>&1; then
    apt-get install -y -qq curl ca-certificates xz-utils >/dev/null
  fi
  local work
  work=$(mktemp -d)
  curl -fsSL "$NODE_DIST_URL/SHASUMS256.txt" -o "$work/SHASUMS256.txt"
  local tarball
  tarball=$(awk -v suffix="-linux-$arch.tar.xz" 'index($2, suffix) && $2 ~ /^node-v/ {print $2}' "$work/SHASUMS256.txt")
  [ -n "$tarball" ] || { log "no linux-$arch tarball listed at $NODE_DIST_URL"; exit 1; }
  log "downloading $tarball"
  curl -fsSL "$NODE_DIST_URL/$tarball" -o "$work/$tarball"
  (cd "$work" && grep " $tarball\$" SHASUMS256.txt | sha256sum -c - >/dev/null)
  tar -xJf "$work/$tarball" -C /usr/local --strip-components=1 --no-same-owner
  rm -rf "$work"
  hash -r
}

install_node() {
  if [ "$(id -u)" -ne 0 ]; then
    log "Node.js >= $REQUIRED_NODE_MAJOR is required: install it (https://nodejs.org) or run this script as root"
    exit 1
  fi
  if command -v apt-get >/dev/null 2>&1; then
    export DEBIAN_FRONTEND=noninteractive
    log "updating the package lists"
    apt-get update -qq
    local candidate major
    candidate=$(apt-cache policy nodejs 2>/dev/null | awk '/Candidate:/ {print $2}')
    major=${candidate#*:}
    major=${major%%.*}
    if [[ "$major" =~ ^[0-9]+$ ]] && [ "$major" -ge "$REQUIRED_NODE_MAJOR" ]; then
      log "installing nodejs $candidate from the system packages"
      apt-get install -y -qq nodejs >/dev/null
      # Some distributions package npm separately; NodeSource's nodejs already contains it.
      command -v npm >/dev/null 2>&1 || apt-get install -y -qq npm >/dev/null
      hash -r
      has_node && return 0
    fi
  fi
  install_node_from_nodejs_org
}

# A digest of everything that decides the contents of node_modules: skip the install when it is unchanged.
dependencies_digest() {
  { node --version; cat package.json; cat package-lock.json 2>/dev/null || true; } | sha256sum | cut -d' ' -f1
}

if ! has_node; then
  log "Node.js >= $REQUIRED_NODE_MAJOR not found (found: $(node --version 2>/dev/null || echo none))"
  install_node
  has_node || { log "Node.js installation failed"; exit 1; }
fi
log "using Node.js $(node --version), npm $(npm --version 2>/dev/null)"

# Vulkan CPU driver (WebGPU tests without a GPU), Open MPI, PLINK 1.9: system packages, as root.
bash scripts/install-system-packages.sh

readonly STAMP=node_modules/.snptally-setup-digest
digest=$(dependencies_digest)
if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$digest" ]; then
  log "dependencies up to date"
else
  if [ -f package-lock.json ]; then
    log "installing dependencies (npm ci)"
    if ! npm ci --no-audit --no-fund; then
      # A lock file out of step with package.json makes npm ci refuse; npm install repairs it.
      log "npm ci failed; falling back to npm install (commit the updated package-lock.json)"
      npm install --no-audit --no-fund
    fi
  else
    log "installing dependencies (npm install: no package-lock.json)"
    npm install --no-audit --no-fund
  fi
  # npm install may have written the lock file, so the digest is taken again.
  dependencies_digest >"$STAMP"
fi

log "building"
npm run build --silent
log "done: try 'node dist/src/cli/main.js run' or 'npm test'"
