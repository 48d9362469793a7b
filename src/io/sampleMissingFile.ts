// Each sample's missing calls as a file (`run --individuals --out STUB` writes `<stub>.sample-missing.bin`), so that a
// relatedness front end counts the SNPs two samples both called (KING's NSNP) from the lists of the samples it names,
// with no packed data to read back. Layout, little-endian uint32: numSample, numSnp, each sample's count, then each
// sample's SNP indices (increasing), sample after sample — 4 bytes per missing call.
import { closeSync } from 'node:fs';
import { UserError } from '../core/errors.js';
import { LITTLE_ENDIAN_HOST } from './metricsFile.js';
import { openForReading } from './openForReading.js';
import { fileSize, readExactly } from './packedVectorFile.js';
import type { MissingCallLists } from './sampleMajorChunks.js';

const HEADER_WORDS = 2;

/** The file's bytes for `lists` over `numSnp` SNPs. */
export function sampleMissingFileBytes(lists: MissingCallLists, numSnp: number): Uint8Array {
  if (!LITTLE_ENDIAN_HOST) throw new Error('sample-missing files are written on little-endian hosts');
  const numSample = lists.counts.length;
  const words = new Uint32Array(HEADER_WORDS + numSample + lists.snps.length);
  words[0] = numSample;
  words[1] = numSnp;
  words.set(lists.counts, HEADER_WORDS);
  words.set(lists.snps, HEADER_WORDS + numSample);
  return new Uint8Array(words.buffer);
}

/** A sample-missing file open for reading; each sample's list is read when first asked for. `close()` releases it. */
export class SampleMissingFile {
  private readonly fd: number;
  /** Where each sample's list starts, in words of the file. */
  private readonly listStart: Float64Array;
  private readonly lists: (Uint32Array | undefined)[];
  /** marks[s] = sample + 1 where `markedSample` misses SNP s (calledByBoth). */
  private marks = new Int32Array(0);
  private markedSample = -1;

  /** @throws UserError naming the file when it is not a sample-missing file of `numSample` samples over `numSnp` SNPs. */
  constructor(private readonly path: string, readonly numSample: number, readonly numSnp: number) {
    if (!LITTLE_ENDIAN_HOST) throw new Error('sample-missing files are read on little-endian hosts');
    this.fd = openForReading(path);
    try {
      const head = new Uint32Array(HEADER_WORDS + numSample);
      const size = fileSize(path);
      if (size < head.byteLength) throw new UserError(`${path}: ${size} bytes, too short for the missing calls of ${numSample} samples`);
      readExactly(this.fd, path, new Uint8Array(head.buffer), head.byteLength, 0);
      if (head[0] !== numSample || head[1] !== numSnp) {
        throw new UserError(`${path}: the missing calls of ${head[0]} samples over ${head[1]} SNPs, not ${numSample} over ${numSnp}`);
      }
      this.listStart = new Float64Array(numSample + 1);
      this.listStart[0] = HEADER_WORDS + numSample;
      for (let s = 0; s < numSample; s++) this.listStart[s + 1] = this.listStart[s] + head[HEADER_WORDS + s];
      if (4 * this.listStart[numSample] !== size) {
        throw new UserError(`${path}: ${size} bytes, but its counts need ${4 * this.listStart[numSample]}`);
      }
    } catch (error) {
      closeSync(this.fd);
      throw error;
    }
    this.lists = new Array<Uint32Array | undefined>(numSample);
  }

  /** Sample `sample`'s missing SNPs, increasing. @throws UserError naming the file for a list that is not. */
  missingOf(sample: number): Uint32Array {
    const known = this.lists[sample];
    if (known !== undefined) return known;
    const list = new Uint32Array(this.listStart[sample + 1] - this.listStart[sample]);
    readExactly(this.fd, this.path, new Uint8Array(list.buffer), list.byteLength, 4 * this.listStart[sample]);
    for (let k = 0; k < list.length; k++) {
      if (list[k] >= this.numSnp || (k > 0 && list[k] <= list[k - 1])) {
        throw new UserError(`${this.path}: sample ${sample}'s missing calls are not increasing SNP indices below ${this.numSnp}`);
      }
    }
    this.lists[sample] = list;
    return list;
  }

  /**
   * SNPs both samples called: numSnp − each one's missing + those both miss. `sampleA`'s missing SNPs are marked once
   * and stay marked while the next calls name the same `sampleA` (a table's lines come sorted by their first sample),
   * so a pair costs a look-up per missing call of `sampleB` (a merge of both lists cost both lengths per pair).
   */
  calledByBoth(sampleA: number, sampleB: number): number {
    const a = this.missingOf(sampleA);
    const b = this.missingOf(sampleB);
    if (this.markedSample !== sampleA) {
      if (this.marks.length === 0) this.marks = new Int32Array(this.numSnp);
      // Stamps are sample + 1: a new sample's stamp leaves no stale mark of another.
      for (let k = 0; k < a.length; k++) this.marks[a[k]] = sampleA + 1;
      this.markedSample = sampleA;
    }
    const stamp = sampleA + 1;
    let both = 0;
    for (let k = 0; k < b.length; k++) if (this.marks[b[k]] === stamp) both++;
    return this.numSnp - a.length - b.length + both;
  }

  close(): void {
    closeSync(this.fd);
  }
}
