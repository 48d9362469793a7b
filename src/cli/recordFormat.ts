// The tab-separated lines of `dump` and `top`: indices, SNP (or sample) IDs when known, entry bits, float32 value.
import type { NumWay } from '../core/types.js';
import { formatFloat32 } from './formatFloat32.js';
import type { NamedRecord, SnpNaming } from './snpNaming.js';

/** Header line naming the columns: `snp_i …`, or `sample_i …` when the vectors are samples. */
export function recordHeader(numWay: NumWay, names: 'snps' | 'samples' | null): string {
  const indices = ['i', 'j', 'k', 'l'].slice(0, numWay);
  const nameColumns = names === null ? [] : indices.map((index) => `${names === 'samples' ? 'sample' : 'snp'}_${index}`);
  return `${[...indices, ...nameColumns, 'entry', 'value'].join('\t')}\n`;
}

/** One line: `i j [k [l]] [snp_i snp_j [snp_k [snp_l]]] entry value`. */
export function formatNamedRecord(record: NamedRecord, naming: SnpNaming): string {
  const names = naming.hasNames ? record.snpIndices.map((snpIdx) => `${naming.snpId(snpIdx)}\t`).join('') : '';
  return `${record.snpIndices.join('\t')}\t${names}${record.entry}\t${formatFloat32(record.value)}\n`;
}
