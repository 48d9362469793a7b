// Recognizes a genotype input by its name (PLINK fileset prefix or .bed, VCF) and opens the right reader.
import type { GenotypeReadOptions, GenotypeSource } from './genotypeSource.js';
import { openPlinkFileset, plinkPathsOf } from './plinkFileset.js';
import { looksLikeVcf, openVcf } from './vcfReader.js';

/** What kind of genotype input a path names: `bed` for `x.bed` or a prefix `x` with `x.bed` beside it. */
export function genotypeInputKind(path: string): 'bed' | 'vcf' | null {
  if (looksLikeVcf(path)) return 'vcf';
  return plinkPathsOf(path) === null ? null : 'bed';
}

/**
 * Opens a PLINK fileset or a VCF; null when `path` is neither (then it may be a packed file).
 * @throws UserError from the reader for a malformed input.
 */
export async function openGenotypeInput(path: string, options: GenotypeReadOptions): Promise<GenotypeSource | null> {
  if (looksLikeVcf(path)) return openVcf(path, options);
  const plinkPaths = plinkPathsOf(path);
  return plinkPaths === null ? null : openPlinkFileset(plinkPaths);
}
