// plink2's genomic relationship matrix (--make-rel, --make-grm-bin), level 4: standardized genotypes from founder
// allele frequencies, their float64 cross products over SNP blocks (a BLAS rank-k update), plink2's denominators.
// Not an engine analysis: its sums carry real per-SNP weights, so they are a float GEMM, not popcount tallies.
export { GenotypeCodeCounter, grmCodeValues, type GrmStandardizeOptions, type SnpNamer } from './grmStandardize.js';
export { grmCrossProducts, plainSymmetricRankUpdate, snpsPerBlock, type RankUpdate, type SampleMajorInput } from './grmProduct.js';
export { applyGrmDenominators, pairCalledCount, type GrmMissingCounts } from './grmScale.js';
