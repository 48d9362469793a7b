// 3×3 genotype-count tables of pairs of SNPs read from a packed file (SPEC §1): each SNP's row becomes three bit
// planes (0, 1, 2 copies of allele 1; missing calls in none), and a pair's table is the 9 popcounts of plane ANDs.
// Rows are read on demand and kept in a bounded cache, for the few pairs a report keeps.
import { closeSync, readSync } from 'node:fs';
import { openForReading, packedBytesPerVector } from '../../io/index.js';
import { popcount32 } from '../../core/bitCodes.js';

/** Bytes of bit planes kept in the cache. */
const CACHE_BYTES = 256 << 20;


/** Code (2 bits, SPEC §1) → copies of allele 1, or -1 for missing. */
const COPIES_OF_CODE = [0, 1, -1, 2];

/** Tables of pairs of one packed file. */
export class GenotypeTables {
  private readonly fd: number;
  private readonly rowBytes: number;
  private readonly numWords: number;
  private readonly cache = new Map<number, Uint32Array>();
  private readonly maxCached: number;
  private readonly rowBuffer: Uint8Array;

  constructor(packedPath: string, private readonly numField: number) {
    this.fd = openForReading(packedPath, 'packed file');
    this.rowBytes = packedBytesPerVector(numField);
    this.numWords = Math.ceil(numField / 32);
    this.maxCached = Math.max(16, Math.floor(CACHE_BYTES / (3 * 4 * this.numWords)));
    this.rowBuffer = new Uint8Array(this.rowBytes);
  }

  /** Fills `counts[3·a + b]` with the samples that carry a copies of vector A's allele 1 and b of vector B's. */
  table(vectorA: number, vectorB: number, counts: Float64Array): void {
    const planesA = this.planes(vectorA);
    const planesB = this.planes(vectorB);
    const n = this.numWords;
    for (let a = 0; a < 3; a++) {
      for (let b = 0; b < 3; b++) {
        let total = 0;
        for (let w = 0; w < n; w++) total += popcount32(planesA[a * n + w] & planesB[b * n + w]);
        counts[3 * a + b] = total;
      }
    }
  }

  close(): void {
    closeSync(this.fd);
  }

  private planes(vectorIdx: number): Uint32Array {
    const cached = this.cache.get(vectorIdx);
    if (cached !== undefined) return cached;
    const bytes = this.rowBuffer;
    for (let done = 0; done < bytes.length;) {
      const got = readSync(this.fd, bytes, done, bytes.length - done, vectorIdx * this.rowBytes + done);
      if (got === 0) throw new Error(`packed file ended before vector ${vectorIdx}`);
      done += got;
    }
    const n = this.numWords;
    const planes = new Uint32Array(3 * n);
    for (let f = 0; f < this.numField; f++) {
      const copies = COPIES_OF_CODE[(bytes[f >>> 2] >>> (2 * (f & 3))) & 3];
      if (copies >= 0) planes[copies * n + (f >>> 5)] |= 1 << (f & 31);
    }
    // First in, first out: pairs come sorted by their first SNP, so old rows are the ones done with.
    if (this.cache.size >= this.maxCached) this.cache.delete(this.cache.keys().next().value as number);
    this.cache.set(vectorIdx, planes);
    return planes;
  }
}
