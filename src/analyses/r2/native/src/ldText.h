// PLINK's `.ld` table in bulk (cli/plink/ldTableReport.ts's fast path): a span of SNPs' packed 2-bit codes (SPEC §1)
// made into bit planes, then for a list of pairs each pair's double r² (or its 3×3 genotype table for D′) by popcounts,
// and the table's lines — both loci's columns as given, PLINK's number text of the values — into one byte buffer.
// Pure C++: the N-API binding (r2Binding.cc) checks arguments and runs the text job off the main thread.
#pragma once

#include <cstdint>

namespace snptally::r2 {

/** The planes of one SNP of a span: HOM (2 copies of allele 1), NONZERO (≥ 1), HET (1), PRESENT (called). */
constexpr int kNumLdPlanes = 4;

/** A span of consecutive SNPs as packed 2-bit rows (packedVectorFile.ts: rowBytes bytes per SNP). */
struct CodeSpan {
  const uint8_t* codes;
  int64_t snpFirst;   // global index of the span's first SNP
  int64_t numSnps;
  int64_t numField;
  int64_t rowBytes;
};

/** Planes of a span, SNP-major: kNumLdPlanes planes of words64 64-bit words per SNP (fields past numField are 0). */
struct LdPlanes {
  const uint64_t* words;
  int64_t snpFirst;
  int64_t numSnps;
  int64_t words64;
};

/** 64-bit words per plane of `numField` fields. */
inline int64_t ldWords64(int64_t numField) { return (numField + 63) / 64; }

/** Fills `out` (numSnps · kNumLdPlanes · words64 words) with the span's planes. */
void ldPlanesOfCodes(const CodeSpan& span, uint64_t* out);

/**
 * The dosage r² of each pair (global SNP indices, 2 per pair, inside the planes' span) into `values`: ldTableReport's
 * twoLocusLd.ts dosageR2 of the pair's table, the same doubles (r2FromSums over exact integer sums). AVX-512 VPOPCNTQ
 * where allowed and the CPU has it, else 64-bit popcounts (the same tallies; tests compare the two).
 */
void ldR2OfPairs(const LdPlanes& planes, const uint32_t* pairs, int64_t numPairs, double* values, bool allowAvx512);

/** Each pair's 3×3 table into `counts` (9 per pair, counts[3a + b]: a copies of A's allele 1, b of B's). */
void ldTablesOfPairs(const LdPlanes& planes, const uint32_t* pairs, int64_t numPairs, uint32_t* counts);

/** Room past the ends of the loci and of the lines' buffer that the line loop's fixed-size stores may touch. */
constexpr int64_t kLdTextSlack = 64;

/** What the lines are made of. */
struct LdLineParts {
  const uint8_t* lociBytes;      // every SNP's locus columns (plinkLdTable.ts ldLocusText), concatenated, then kLdTextSlack bytes
  const uint32_t* lociOffsets;   // SNP s's are lociBytes[lociOffsets[s] … lociOffsets[s + 1])
  const double* powersOfTen;     // plinkNumberText.ts powerOfTen(k) for k < numPowers (the same doubles)
  int64_t numPowers;             // at least 331
};

/** The longest line of `parts` for `numSnps` SNPs (a buffer of this many bytes per pair holds any lines). */
int64_t ldMaxLineBytes(const LdLineParts& parts, int64_t numSnps);

/**
 * The lines of the pairs whose value v passes PLINK's filter v ≥ minR2 (NaN never does): loci A and B, v right-aligned
 * in 12 columns and a space, the same for `extras[k]` when `extras` is not null, then a newline. `out` holds
 * numPairs · ldMaxLineBytes + kLdTextSlack bytes. Returns the bytes written; `numLines` gets the lines.
 */
int64_t ldTableLines(const LdLineParts& parts, const uint32_t* pairs, const double* values, const double* extras, int64_t numPairs,
                     double minR2, uint8_t* out, int64_t* numLines);

}  // namespace snptally::r2
