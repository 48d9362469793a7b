#!/usr/bin/env bash
# Checks that the npm package installs and runs as a user gets it: packs it, installs it globally into a temporary
# prefix as on a fresh machine (empty HOME and npm cache), runs `snptally run` from there against SPEC §5's checksum,
# imports it from a scratch project (the example, and its type declarations through tsc), and installs it again
# where no compiler is found and with scripts ignored: the optional addons are then missing, the run uses the
# prebuilt wasm kernel and says why. Needs the npm registry (the package's dependencies). Run by .ci/run.
#
# Usage: bash tools/check-package.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
repo=$PWD

readonly REFERENCE_CHECKSUM=0-34600668891914-795881718560018816 # SPEC §5: CCC 2-way, nv 48, nf 100, random
readonly MAX_TARBALL_BYTES=$((2 * 1024 * 1024))

work=$(mktemp -d "${TMPDIR:-/tmp}/snptally-package-XXXXXX")
trap 'rm -rf "$work"' EXIT
log() { printf 'check-package: %s\n' "$*"; }
fail() { printf 'check-package: FAILED: %s\n' "$*" >&2; exit 1; }

# A fresh machine's npm: no user config (~/.npmrc), no cache, no node-gyp header cache; no update notices.
mkdir -p "$work/home" "$work/cache"
fresh_npm() {
  HOME="$work/home" npm_config_cache="$work/cache" npm_config_update_notifier=false \
    npm --no-audit --no-fund --loglevel=error "$@"
}

log "npm pack (prepack builds the package)"
npm pack --silent --pack-destination "$work" >"$work/pack.out"
tarball="$work/$(tail -n 1 "$work/pack.out")"
[ -f "$tarball" ] || fail "npm pack made no tarball ($(cat "$work/pack.out"))"
size=$(stat -c %s "$tarball")
[ "$size" -le "$MAX_TARBALL_BYTES" ] || fail "the tarball is $size bytes, more than $MAX_TARBALL_BYTES"
tar -tzf "$tarball" | sed 's|^package/||' | sort >"$work/contents"
for needed in build/wasm/popcountGemm.wasm build/wasm/minPlusGemm.wasm dist/bundle/main.js dist/src/cli/main.js dist/src/api/index.js dist/src/api/index.d.ts \
  tools/install-addons.mjs src/mgemm/kernels/native/binding.gyp src/analyses/epistasis/native/binding.gyp src/analyses/r2/native/binding.gyp src/analyses/native/pairCounts/binding.gyp src/analyses/native/checksumParts.h docs/SPEC.md examples/run-from-javascript.mjs; do
  grep -qxF "$needed" "$work/contents" || fail "the tarball lacks $needed"
done
unwanted=$(grep -E '\.map$|\.node$|\.ts$|^test/|^dist/test/|^dist/tools/|^build/(native|epistasis|r2|paircounts|mpi|vulkan)/' "$work/contents" | grep -v '\.d\.ts$' || true)
[ -z "$unwanted" ] || fail "the tarball holds files a user does not need: $(echo "$unwanted" | head -5 | tr '\n' ' ')"
log "tarball $(basename "$tarball"): $size bytes, $(wc -l <"$work/contents") files"

# Runs `snptally run --json` of SPEC's problem with the snptally of $1/bin from a scratch directory; prints the
# summary line `checksum kernels`.
checked_run() {
  local prefix=$1
  (cd "$work/home" && PATH="$prefix/bin:$PATH" snptally run --json --vectors 48 --fields 100) >"$work/run.json" ||
    fail "snptally run from $prefix failed"
  node -e '
    const report = JSON.parse(require("node:fs").readFileSync(process.argv[1], "utf8"));
    if (report.checksum !== process.argv[2]) { console.error(`checksum ${report.checksum}, expected ${process.argv[2]}`); process.exit(1); }
    console.log(`${report.checksum} ${report.rankDevices.map((d) => d.kernelSet).join(",")}`);
  ' "$work/run.json" "$REFERENCE_CHECKSUM" || fail "snptally run from $prefix: wrong result"
}

log "npm install -g into a temporary prefix (empty HOME and cache)"
fresh_npm install -g --prefix "$work/global" --allow-scripts="$tarball" "$tarball"
log "snptally run --json: $(checked_run "$work/global")"
native_expected=$(node -e 'console.log(process.arch === "x64" ? "yes" : "no")')
if [ "$native_expected" = yes ] && command -v g++ >/dev/null && grep -qw avx512_vpopcntdq /proc/cpuinfo; then
  grep -q avx512-vpopcntq_4x4 "$work/run.json" || fail "g++ and AVX-512 VPOPCNTDQ are here, but the run did not use the native kernel"
fi
(cd "$work/home" && PATH="$work/global/bin:$PATH" snptally run) >"$work/default.txt" || fail "snptally run (the default job) failed"
log "snptally run (the default job): $(head -n 1 "$work/default.txt"); $(grep '^kernels ' "$work/default.txt")"

log "a scratch project: npm install of the tarball (scripts ignored: no addons), the example, the type declarations"
mkdir -p "$work/project"
printf '{ "name": "scratch", "private": true, "type": "module" }\n' >"$work/project/package.json"
(cd "$work/project" && fresh_npm install --offline --ignore-scripts "$tarball")
cp "$work/project/node_modules/snptally/examples/run-from-javascript.mjs" "$work/project/"
example=$(cd "$work/project" && node run-from-javascript.mjs) || fail "examples/run-from-javascript.mjs failed in the scratch project"
[[ "$example" == "checksum $REFERENCE_CHECKSUM "*" kernels wasm-i64_4x4" ]] || fail "the example printed: $example"
log "example: $example"
cat >"$work/project/consumer.ts" <<'EOF'
import { run, UserError, type RunOptions, type RunResult } from 'snptally';
const options: RunOptions = { metric: 'duo', way: 2, vectors: 48, fields: 100, sparse: true };
const result: RunResult = await run(options);
const checksum: string = result.checksum;
const kernelSets: string[] = result.rankDevices.map((device) => device.kernelSet);
console.log(checksum, kernelSets, new UserError('x').message);
EOF
tsc=("$repo/node_modules/typescript/bin/tsc" --noEmit --strict --skipLibCheck --target es2022 --module nodenext --moduleResolution nodenext)
(cd "$work/project" && node "${tsc[@]}" consumer.ts) || fail "a TypeScript consumer of snptally does not compile"
# A misspelt option must be a type error: the declarations are the API's, not `any`.
sed 's/vectors: 48/vector: 48/' "$work/project/consumer.ts" >"$work/project/misspelt.ts"
if (cd "$work/project" && node "${tsc[@]}" misspelt.ts >"$work/misspelt.out"); then fail "tsc accepted run({ vector: 48 })"; fi
grep -q "'vector' does not exist in type 'RunOptions'" "$work/misspelt.out" || fail "tsc said: $(cat "$work/misspelt.out")"
log "type declarations: a consumer compiles, a misspelt option does not"

log "npm install -g where no compiler is found (PATH: node, npm and a shell only)"
mkdir -p "$work/bare"
for tool in node npm sh bash env; do ln -s "$(command -v "$tool")" "$work/bare/$tool"; done
PATH="$work/bare" fresh_npm install -g --offline --prefix "$work/bare-global" --allow-scripts="$tarball" "$tarball"
for part in native epistasis r2 mpi vulkan; do
  [ -f "$work/bare-global/lib/node_modules/snptally/build/$part/UNAVAILABLE" ] || fail "no build/$part/UNAVAILABLE without a compiler"
done
log "snptally run --json: $(checked_run "$work/bare-global")"
(cd "$work/home" && PATH="$work/bare:$work/bare-global/bin" snptally run --vectors 48 --fields 100) >"$work/bare.txt"
grep -qx 'kernels wasm-i64_4x4 (native kernel unavailable: no C++ compiler (g++) when snptally was built)' "$work/bare.txt" ||
  fail "the run without the native kernel said: $(grep '^kernels' "$work/bare.txt" || echo nothing)"
log "ok"
