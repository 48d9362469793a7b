#!/usr/bin/env bash
# A small study from a VCF to reports: select a region, windowed LD as PLINK's .ld.gz (checked against plink1.9),
# CCC with a threshold picked from the histogram of every value, tables with positions, and HTML reports.
#
# Usage: bash examples/real-data-walkthrough.sh [WORKDIR]     (default: a new temporary directory)
# Needs the built CLI (npm run build) and plink1.9 (scripts/setup.sh installs it) for the comparison in step 3.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
snptally() { node "$repo/dist/src/cli/main.js" "$@"; }
work="${1:-$(mktemp -d)}"
mkdir -p "$work"
cd "$work"
echo "== working in $work"

# 1. A cohort with real linkage disequilibrium: 600 samples × 4,500 SNPs on chromosomes 1–3, 1 % missing calls.
node "$repo/examples/simulate-cohort.mjs" --out cohort.vcf

# 2. The region of interest: chromosome 2 from 2 to 8 Mb, SNPs with MAF ≥ 5 % and ≤ 5 % missing calls, packed once
#    into a prepared file (its sidecar keeps IDs, chromosomes, positions and what was selected).
region=(--chr 2 --from-bp 2000000 --to-bp 8000000 --maf 0.05 --geno 0.05)
snptally prepare cohort.vcf "${region[@]}" --out region.packed --force

# 3. Windowed LD as PLINK writes it: pairs within 500 kb with r² ≥ 0.2, as region.ld.gz. `snptally plink` takes
#    PLINK's own command line, so the same flags give plink1.9's file, byte for byte.
ld_flags=(--r2 gz --ld-window-kb 500 --ld-window 99999 --ld-window-r2 0.2)
snptally plink --vcf cohort.vcf "${region[@]}" "${ld_flags[@]}" --out region --force > /dev/null
plink1.9 --vcf cohort.vcf "${region[@]}" "${ld_flags[@]}" --out plink-region --silent
if cmp -s <(gzip -dc region.ld.gz) <(gzip -dc plink-region.ld.gz); then
  echo "region.ld.gz: $(($(gzip -dc region.ld.gz | wc -l) - 1)) pairs, identical to plink1.9's"
else
  echo "region.ld.gz differs from plink1.9's plink-region.ld.gz" >&2
  exit 1
fi
head -n 4 < <(gzip -dc region.ld.gz)

# 4. The same window on the engine directly, keeping every pair with r² ≥ 0.05 and the histogram of all window pairs,
#    then PLINK's table of those records, sorted by position.
snptally run --metric r2 --input region.packed --ld-window-kb 500 --ld-window 99999 --ld-window-r2 0.05 \
  --histograms ld.hist.tsv --out ld --force
snptally dump ld_0.bin --format ld --out ld.ld.gz --force

# 5. CCC between all SNPs of the region: first only the histogram of every value (no records), then a threshold that
#    keeps about 2,000 table entries, read off the histogram (SPEC §9: one row per 0.001, counts per entry class).
snptally run --input region.packed --sparse --histograms ccc.hist.tsv --force > /dev/null
threshold=$(node -e '
  const [file, wanted] = [process.argv[1], Number(process.argv[2])];
  const rows = require("fs").readFileSync(file, "utf8").trim().split("\n").slice(1).map((line) => line.split("\t"));
  let kept = 0;
  for (let b = rows.length - 1; b >= 0; b--) {
    // LL, LH, HH: every entry value (the last column, LL+HH, counts sums, not entries).
    kept += Number(rows[b][1]) + Number(rows[b][2]) + Number(rows[b][3]);
    if (kept >= wanted) { console.log(rows[b][0]); process.exit(0); }
  }
  console.log("0");
' ccc.hist.tsv 2000)
echo "CCC threshold keeping about 2000 entries: $threshold"
snptally run --input region.packed --sparse --npv 2 --threshold "$threshold" --histograms ccc.hist.tsv --out ccc --force

# 6. The strongest pairs with chromosomes and positions; one file instead of one per rank.
snptally top ccc_0.bin ccc_1.bin -k 10 --format tsv --sort value
snptally merge ccc_0.bin ccc_1.bin --out merged.bin --force

# 7. Reports: LD (heatmap of the densest region, LD decay, distribution of every value) and CCC.
snptally report ld --out ld-report.html --force
snptally report ccc --out ccc-report.html --top 20 --force
echo "== open $work/ld-report.html and $work/ccc-report.html in a browser"
