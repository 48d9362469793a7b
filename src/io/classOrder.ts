// Reorders packed genotype rows (SPEC §1's 2-bit codes, 4 samples per byte) into [controls | cases], leaving out the
// samples of missing phenotype, for case-control preparation — a source byte at a time: its 4 samples' classes (one
// of 81 patterns, fixed per byte position) and its value index a table of the codes each class keeps, packed, and how
// many; the codes are appended to two bit streams. About 4× fewer operations than moving codes one by one, which made
// this step most of `prepare --case-control` at 262,144 samples.
import { CLASS_CASE, CLASS_CONTROL, CLASS_MISSING } from './phenotypes.js';

/**
 * Per (class pattern, byte value): controls' codes (bits 0–7), their count (8–10), cases' codes (11–18), count (19–21).
 * A pattern is the byte's 4 classes as base-3 digits (CLASS_* are 0, 1, 2), the first sample least significant. Built
 * on first use: phenotypes.ts, whose classes it reads, imports this module.
 */
let keptCodes: Uint32Array | null = null;

function buildKeptCodes(): Uint32Array {
  const table = new Uint32Array(81 * 256);
  for (let pattern = 0; pattern < 81; pattern++) {
    for (let value = 0; value < 256; value++) {
      let controls = 0, numControls = 0, cases = 0, numCases = 0;
      for (let s = 0, rest = pattern; s < 4; s++, rest = Math.floor(rest / 3)) {
        const code = (value >> (2 * s)) & 3;
        if (rest % 3 === CLASS_CONTROL) controls |= code << (2 * numControls++);
        else if (rest % 3 === CLASS_CASE) cases |= code << (2 * numCases++);
      }
      table[pattern * 256 + value] = controls | (numControls << 8) | (cases << 11) | (numCases << 19);
    }
  }
  return table;
}

/** Missing calls (code 10) among the 4 codes of a byte. */
const MISSING_IN_BYTE = Uint8Array.from({ length: 256 }, (_, value) => {
  let count = 0;
  for (let s = 0; s < 4; s++) if (((value >> (2 * s)) & 3) === 0b10) count++;
  return count;
});

/** Reorders rows of one source's samples into [controls | cases]; `classes[s]` is CLASS_CONTROL, CLASS_CASE or missing. */
export class ClassOrder {
  readonly numControls: number;
  readonly numKept: number;
  /** Table offset of each source byte's class pattern. */
  private readonly patternOffsets: Uint32Array;
  /** Every sample a control or case, controls first: rows are already in order. */
  private readonly identity: boolean;

  constructor(classes: ArrayLike<number>) {
    const numSample = classes.length;
    let numControls = 0, numCases = 0;
    for (let s = 0; s < numSample; s++) {
      if (classes[s] === CLASS_CONTROL) numControls++;
      else if (classes[s] === CLASS_CASE) numCases++;
    }
    this.numControls = numControls;
    this.numKept = numControls + numCases;
    let identity = this.numKept === numSample;
    for (let s = 0; identity && s < numSample; s++) identity = classes[s] === (s < numControls ? CLASS_CONTROL : CLASS_CASE);
    this.identity = identity;
    this.patternOffsets = new Uint32Array(Math.ceil(numSample / 4));
    for (let b = 0; b < this.patternOffsets.length; b++) {
      let pattern = 0;
      // Samples past the last are missing: their pad codes go nowhere.
      for (let s = 3; s >= 0; s--) pattern = 3 * pattern + (4 * b + s < numSample ? classes[4 * b + s] : CLASS_MISSING);
      this.patternOffsets[b] = pattern * 256;
    }
  }

  /**
   * The row `packed` (the source's samples) reordered into `out` (≥ ⌈numKept / 4⌉ bytes; its pad codes are 00), and
   * the number of missing calls among the kept samples.
   */
  reorder(packed: Uint8Array, out: Uint8Array): number {
    out.fill(0);
    this.reorderRows(packed, 1, out);
    return missingCalls(out, Math.ceil(this.numKept / 4));
  }

  /**
   * `numRows` consecutive rows of `rows` (the source's ⌈numSample / 4⌉ bytes each) reordered into consecutive rows of
   * `out` (⌈numKept / 4⌉ bytes each, zeroed here), in one loop: each row's kept codes appended to two bit streams
   * (controls from the row's first byte, cases from sample numControls), local variables rather than an object per
   * stream, so that a bulk read's rows (a .bed's records in memory) cost no call per row.
   */
  reorderRows(rows: Uint8Array, numRows: number, out: Uint8Array): void {
    const bytesIn = this.patternOffsets.length;
    const bytesOut = Math.ceil(this.numKept / 4);
    if (this.identity) {
      // Every sample kept, in order: rows of the same length, whose codes past the last sample are cleared.
      out.set(rows.subarray(0, numRows * bytesIn));
      const lastByteMask = (1 << (2 * (this.numKept & 3))) - 1;
      if (lastByteMask !== 0) for (let last = bytesOut - 1; last < numRows * bytesOut; last += bytesOut) out[last] &= lastByteMask;
      return;
    }
    out.fill(0, 0, numRows * bytesOut);
    const offsets = this.patternOffsets;
    const table = (keptCodes ??= buildKeptCodes());
    const casesFirstByte = this.numControls >> 2;
    const casesFirstBits = 2 * (this.numControls & 3);
    for (let r = 0, from = 0, to = 0; r < numRows; r++, from += bytesIn, to += bytesOut) {
      // The two streams: pending bits, their count, the next byte; at most 8 bits are appended to fewer than 8, so one
      // byte at most is complete.
      let controlBits = 0, numControlBits = 0, controlAt = to;
      let caseBits = 0, numCaseBits = casesFirstBits, caseAt = to + casesFirstByte;
      for (let b = 0; b < bytesIn; b++) {
        const kept = table[offsets[b] + rows[from + b]];
        controlBits |= (kept & 0xff) << numControlBits;
        numControlBits += 2 * ((kept >> 8) & 7);
        if (numControlBits >= 8) {
          out[controlAt++] |= controlBits & 0xff;
          controlBits >>>= 8;
          numControlBits -= 8;
        }
        caseBits |= ((kept >> 11) & 0xff) << numCaseBits;
        numCaseBits += 2 * ((kept >> 19) & 7);
        if (numCaseBits >= 8) {
          out[caseAt++] |= caseBits & 0xff;
          caseBits >>>= 8;
          numCaseBits -= 8;
        }
      }
      if (numControlBits > 0) out[controlAt] |= controlBits;
      if (numCaseBits > 0) out[caseAt] |= caseBits;
    }
  }
}

/** Missing calls in the first `numBytes` bytes of a row whose pad codes are 00. */
function missingCalls(packed: Uint8Array, numBytes: number): number {
  let count = 0;
  for (let b = 0; b < numBytes; b++) count += MISSING_IN_BYTE[packed[b]];
  return count;
}
