// PLINK 1.9's missing-call rescaling inputs read from SNP rows as they stream (the .bed's own layout): each SNP's
// missing samples and its founders' genotype counts, so that `--distance` needs no sample-major file of its own — the
// front end reads the .bed with the run's selection while the run (`run --individuals`) computes the distances.
import { popcount32 } from '../../core/bitCodes.js';
import type { GenotypeSource } from '../../io/index.js';
import type { FounderCounts, SnpMissingCalls } from './distanceMissing.js';
import { Uint32List } from '../../core/uint32List.js';

/** Per byte value: its codes 01 (het), 11 (allele-1 homozygote) and 10 (missing), 8 bits each. */
const CODE_COUNTS_OF_BYTE = Uint32Array.from({ length: 256 }, (_, byte) => {
  let counts = 0;
  for (let shift = 0; shift < 8; shift += 2) {
    const code = (byte >> shift) & 3;
    counts += code === 0b01 ? 1 : code === 0b11 ? 1 << 8 : code === 0b10 ? 1 << 16 : 0;
  }
  return counts;
});

/**
 * SNPs read between yields to the event loop: the reader's rows come as microtasks, so that without yields the pass
 * held the main thread from its start to its end while the run beside it waited to open its input.
 */
const SNPS_PER_YIELD = 1 << 10;

function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * Reads `source`'s SNP rows (SPEC §1 codes over its samples): each SNP's missing samples, ascending, and — with
 * `founder` (1 for a founder sample) — the founders' counts of codes 00, 01 and 10 (distanceMissing.ts FounderCounts).
 * Founders are counted through a mask of their codes (others read as 00: their 00s are then taken out of the count).
 */
export async function missingCallsOfSnpRows(source: GenotypeSource, founder: Uint8Array | null): Promise<SnpMissingCalls & { readonly numSnp: number }> {
  const numSample = source.sampleIds.length;
  const numBytes = Math.ceil(numSample / 4);
  const founderMask = new Uint8Array(numBytes);
  let numFounders = 0;
  for (let s = 0; s < numSample; s++) {
    if (founder !== null && founder[s] === 1) {
      founderMask[s >> 2] |= 3 << (2 * (s & 3));
      numFounders++;
    }
  }
  const byCode: [number[], number[], number[]] = [[], [], []];
  const firstOfSnp: number[] = [0];
  const samples = new Uint32List(1 << 16);
  const founderMaskWords = new Uint32Array(founderMask.buffer, 0, numBytes >> 2);
  for await (const row of source.rows()) {
    // The run beside this pass shares the main thread: its reads and worker replies come between SNP pieces.
    if ((firstOfSnp.length & (SNPS_PER_YIELD - 1)) === 0) await yieldToEventLoop();
    const packed = row.packed;
    let het = 0, hom1 = 0, missing = 0;
    // 16 codes a word where the row is word-aligned (the readers' rows are): three popcounts instead of four look-ups.
    const numWords = packed.byteOffset % 4 === 0 ? numBytes >> 2 : 0;
    const words = new Uint32Array(packed.buffer, packed.byteOffset, numWords);
    for (let w = 0; w < numWords; w++) {
      const word = words[w];
      if (founder !== null) {
        const masked = word & founderMaskWords[w];
        const low = masked & 0x55555555;
        const high = (masked >>> 1) & 0x55555555;
        het += popcount32(low & ~high);
        hom1 += popcount32(low & high);
        missing += popcount32(high & ~low);
      }
      // Code 10 of sample 16w + k: bit 2k + 1 set, bit 2k clear (pad fields are 00).
      let missingBits = (word >>> 1) & ~word & 0x55555555;
      while (missingBits !== 0) {
        samples.push(16 * w + ((31 - Math.clz32(missingBits & -missingBits)) >> 1));
        missingBits &= missingBits - 1;
      }
    }
    for (let q = 4 * numWords; q < numBytes; q++) {
      const byte = packed[q];
      if (founder !== null) {
        const counts = CODE_COUNTS_OF_BYTE[byte & founderMask[q]];
        het += counts & 0xff;
        hom1 += (counts >> 8) & 0xff;
        missing += counts >> 16;
      }
      let missingBits = (byte >> 1) & ~byte & 0x55;
      while (missingBits !== 0) {
        samples.push(4 * q + ((31 - Math.clz32(missingBits & -missingBits)) >> 1));
        missingBits &= missingBits - 1;
      }
    }
    firstOfSnp.push(samples.length);
    if (founder !== null) {
      byCode[0].push(numFounders - het - hom1 - missing);
      byCode[1].push(het);
      byCode[2].push(missing);
    }
  }
  const numSnp = firstOfSnp.length - 1;
  const founderCounts: FounderCounts | null = founder === null ? null : {
    byCode: [Uint32Array.from(byCode[0]), Uint32Array.from(byCode[1]), Uint32Array.from(byCode[2])], numFounders,
  };
  return { missing: { firstOfSnp: Uint32Array.from(firstOfSnp), samplesBySnp: samples.toArray() }, founderCounts, numSnp };
}
