// The GRM's sums Σ_s z_is·z_js over SNP blocks: each block of standardized values (samples × SNPs, float64, from the
// code tables of grmStandardize.ts) goes to a symmetric rank-k update of the n × n lower triangle — OpenBLAS's dsyrk
// where the native addon has it, else `plainSymmetricRankUpdate` (the same sums, ~30× slower per core). As plink2 does with
// its BLAS, the sums are float64 in the BLAS's order, not plink2's: they agree with plink2's to rounding.
import { closeSync, openSync, readSync } from 'node:fs';

/** C (n × n, row-major; its lower triangle, diagonal included) += A Aᵀ for A (n × k, row-major). */
export type RankUpdate = (c: Float64Array, a: Float64Array, n: number, k: number) => void;

/**
 * Sample-major packed rows (vectors = samples, fields = SNPs, SPEC §1 codes, ⌈numSnp/4⌉ bytes per sample): a file, or
 * the rows in memory (`rows`, transposed in this process: no file written and read back).
 */
export type SampleMajorInput = { readonly numSample: number; readonly numSnp: number } & ({ readonly path: string } | { readonly rows: Uint8Array });

/** Bytes of one block of standardized values: 32 MiB, enough SNPs per dsyrk call for BLAS speed, little memory. */
const BLOCK_BYTES = 32 << 20;

/** SNPs per block: a multiple of 4 (whole packed bytes), at most 1024. */
export function snpsPerBlock(numSample: number, numSnp: number): number {
  const fit = Math.floor(BLOCK_BYTES / (8 * numSample) / 4) * 4;
  return Math.max(4, Math.min(1024, fit, Math.ceil(numSnp / 4) * 4));
}

/** C's lower triangle += A Aᵀ, a plain loop: the fallback without OpenBLAS. */
export function plainSymmetricRankUpdate(c: Float64Array, a: Float64Array, n: number, k: number): void {
  for (let i = 0; i < n; i++) {
    const ai = i * k;
    for (let j = 0; j <= i; j++) {
      const aj = j * k;
      let sum = 0;
      for (let t = 0; t < k; t++) sum += a[ai + t] * a[aj + t];
      c[i * n + j] += sum;
    }
  }
}

/** Reads `numBytes` at `position` of `fd` into `into`. */
function readFully(fd: number, into: Uint8Array, numBytes: number, position: number, path: string): void {
  for (let done = 0; done < numBytes;) {
    const got = readSync(fd, into, done, numBytes - done, position + done);
    if (got === 0) throw new Error(`${path} ended early`);
    done += got;
  }
}

/**
 * Σ_s z_is·z_js for every pair i ≥ j (and i = j): the n × n matrix whose lower triangle holds them (the upper is
 * not written). `codeValues[4·s + code]` is SNP s's standardized value of each 2-bit code.
 */
export function grmCrossProducts(input: SampleMajorInput, codeValues: Float64Array, update: RankUpdate): Float64Array {
  const { numSample: n, numSnp } = input;
  const bytesPerRow = Math.ceil(numSnp / 4);
  const blockSnps = snpsPerBlock(n, numSnp);
  const blockBytes = blockSnps / 4;
  const c = new Float64Array(n * n);
  const z = new Float64Array(n * blockSnps);
  const strip = new Uint8Array(n * blockBytes);
  const fd = 'path' in input ? openSync(input.path, 'r') : null;
  try {
    for (let first = 0; first < numSnp; first += blockSnps) {
      const numSnpHere = Math.min(blockSnps, numSnp - first);
      const numBytesHere = Math.ceil(numSnpHere / 4);
      const byteOffset = first / 4;
      for (let i = 0; i < n; i++) {
        const position = i * bytesPerRow + byteOffset;
        if ('rows' in input) strip.set(input.rows.subarray(position, position + numBytesHere), i * blockBytes);
        else if (fd !== null) readFully(fd, strip.subarray(i * blockBytes), numBytesHere, position, input.path);
      }
      // A row holds numSnpHere values (A is n × numSnpHere, row-major, no padding): the codes past numSnp in the
      // last byte are never read.
      // A byte at a time (4 SNPs, one table lookup each); the last byte of the block may hold fewer.
      const numWholeBytes = numSnpHere >> 2;
      for (let i = 0; i < n; i++) {
        const zRow = i * numSnpHere;
        const stripRow = i * blockBytes;
        for (let q = 0; q < numWholeBytes; q++) {
          const byte = strip[stripRow + q];
          const table = 4 * (first + 4 * q);
          const at = zRow + 4 * q;
          z[at] = codeValues[table + (byte & 3)];
          z[at + 1] = codeValues[table + 4 + ((byte >> 2) & 3)];
          z[at + 2] = codeValues[table + 8 + ((byte >> 4) & 3)];
          z[at + 3] = codeValues[table + 12 + (byte >> 6)];
        }
        for (let s = 4 * numWholeBytes; s < numSnpHere; s++) {
          const code = (strip[stripRow + (s >> 2)] >> (2 * (s & 3))) & 3;
          z[zRow + s] = codeValues[4 * (first + s) + code];
        }
      }
      update(c, z, n, numSnpHere);
    }
  } finally {
    if (fd !== null) closeSync(fd);
  }
  return c;
}
