#!/usr/bin/env bash
# End-to-end walk-through on real-data files: PLINK fileset → prepare → run → top → merge → report.
#
# Usage: bash examples/real-data-walkthrough.sh [WORKDIR]     (default: a new temporary directory)
# Needs the built CLI (npm run build) and plink1.9 (scripts/setup.sh installs it) to make the example data.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
snptally() { node "$repo/dist/src/cli/main.js" "$@"; }
work="${1:-$(mktemp -d)}"
mkdir -p "$work"
cd "$work"
echo "== working in $work"

# 1. Data: 300 samples × 120 SNPs with 2% missing calls, as a PLINK 1 fileset and as a VCF of the same calls.
plink1.9 --dummy 300 120 0.02 --seed 5 --make-bed --out cohort --silent
#    (PLINK warns that the dummy allele codes A/B are not nucleotides; its messages go to plink.log.)
plink1.9 --bfile cohort --recode vcf --out cohort --silent 2>>plink.log

# 2. Prepare: a packed vector file + sidecar (SNP and sample IDs, checksum), vector order shuffled.
snptally prepare cohort --out cohort.packed --permute 42 --force

# 3. Run: 2-way CCC over the prepared file (sizes from the sidecar; --sparse skips missing calls),
#    two vector blocks, keeping values above 0.5; writes out_0.bin, out_1.bin and out.run.json.
snptally run --input cohort.packed --sparse --npv 2 --threshold 0.5 --out out --force
#    The VCF of the same calls gives the same checksum (without the shuffle; converted on the fly).
snptally run --input cohort.vcf --sparse | head -n 1
snptally run --input cohort --sparse | head -n 1
#    PLINK's selection flags choose SNPs and samples while the input is read; r² skips missing calls by itself.
snptally run --metric r2 --bfile cohort --chr 1 --from-bp 1 --to-bp 60 --maf --geno | head -n 1

# 4. Results with names: the ten strongest pairs (SNP order restored); the strongest 11 entries;
#    every value in [0.57, 0.58].
snptally top out_0.bin out_1.bin -k 10
snptally top out_0.bin out_1.bin -k 3 --entry 11
snptally top out_0.bin out_1.bin -k 0 --min 0.57 --max 0.58

# 5. One file instead of one per rank; top reads it the same way.
snptally merge out_0.bin out_1.bin --out merged.bin --force
snptally top merged.bin -k 3

# 6. An HTML report (histograms per table entry, strongest pairs, parameters, throughput).
snptally report out --out report.html --top 20
echo "== open $work/report.html in a browser"
