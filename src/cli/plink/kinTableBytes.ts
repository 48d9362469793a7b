// The .kin0 table's lines written as bytes into a buffer that goes to the file when full: no string per line, number or
// ID, no joins. At 925,713 lines (20,000 samples × 2,000 SNPs above 0.0442) the string lines cost 3.5 CPU s of a
// 5 CPU s front end. Each sample's ID columns are encoded once.
import { closeSync, openSync, writeSync } from 'node:fs';
import { UserError } from '../../core/errors.js';
import { MAX_NUMBER_TEXT_BYTES, systemErrorText, writePlinkNumber } from '../../io/index.js';

const BUFFER_BYTES = 1 << 20;
const TAB = 0x09;
const NEWLINE = 0x0a;
const ZERO = 0x30;

/** One .kin0 line's numbers (IDs as sample indices). */
export interface KinTableLine {
  readonly id1: number;
  readonly id2: number;
  readonly nsnp: number;
  readonly hethet: number;
  readonly ibs0: number;
  readonly kinship: number;
}

/** Lines of a new .kin0 file (`path`, named `finalPath` in errors); `close` after the last, `discard` on failure. */
export class KinTableWriter {
  private readonly buffer = new Uint8Array(BUFFER_BYTES);
  private used = 0;
  private readonly fd: number;
  /** Sample s's ID columns are idBytes[idStart[s] … idStart[s + 1]). */
  private readonly idBytes: Uint8Array;
  private readonly idStart: Uint32Array;
  numLines = 0;

  /** @throws UserError when the file cannot be created. */
  constructor(path: string, private readonly finalPath: string, ids: readonly string[], private readonly counts: boolean) {
    const encoded = ids.map((id) => Buffer.from(id, 'utf8'));
    this.idStart = new Uint32Array(ids.length + 1);
    encoded.forEach((bytes, s) => { this.idStart[s + 1] = this.idStart[s] + bytes.length; });
    this.idBytes = new Uint8Array(this.idStart[ids.length]);
    encoded.forEach((bytes, s) => this.idBytes.set(bytes, this.idStart[s]));
    try {
      this.fd = openSync(path, 'wx');
    } catch (error) {
      throw new UserError(`cannot write ${finalPath}: ${systemErrorText(error)}`);
    }
  }

  /** Writes text as it is (the header). */
  writeText(text: string): void {
    const bytes = Buffer.from(text, 'utf8');
    this.reserve(bytes.length);
    this.buffer.set(bytes, this.used);
    this.used += bytes.length;
  }

  /** One line: IDs, NSNP, HETHET and IBS0 (counts, or proportions as 1/NSNP · count, as plink2 computes them), KINSHIP. */
  writeLine(line: KinTableLine): void {
    const { idStart, idBytes } = this;
    const id1Length = idStart[line.id1 + 1] - idStart[line.id1];
    const id2Length = idStart[line.id2 + 1] - idStart[line.id2];
    this.reserve(id1Length + id2Length + 5 + 11 + 3 * MAX_NUMBER_TEXT_BYTES);
    const out = this.buffer;
    out.set(idBytes.subarray(idStart[line.id1], idStart[line.id1 + 1]), this.used);
    let p = this.used + id1Length;
    out[p++] = TAB;
    out.set(idBytes.subarray(idStart[line.id2], idStart[line.id2 + 1]), p);
    p += id2Length;
    out[p++] = TAB;
    p = writeUnsigned(line.nsnp, out, p);
    out[p++] = TAB;
    const share = 1 / line.nsnp;
    p = this.counts ? writeUnsigned(line.hethet, out, p) : writePlinkNumber(share * line.hethet, out, p);
    out[p++] = TAB;
    p = this.counts ? writeUnsigned(line.ibs0, out, p) : writePlinkNumber(share * line.ibs0, out, p);
    out[p++] = TAB;
    p = writePlinkNumber(line.kinship, out, p);
    out[p++] = NEWLINE;
    this.used = p;
    this.numLines++;
  }

  /** Writes what is buffered and closes the file. @throws UserError when it cannot be written. */
  close(): void {
    this.flush();
    closeSync(this.fd);
  }

  /** Closes the file after a failure (the caller removes it). */
  discard(): void {
    closeSync(this.fd);
  }

  private reserve(numBytes: number): void {
    if (this.used + numBytes > this.buffer.length) this.flush();
    if (numBytes > this.buffer.length) throw new UserError(`${this.finalPath}: a line of ${numBytes} bytes (IDs too long)`);
  }

  private flush(): void {
    try {
      for (let done = 0; done < this.used;) done += writeSync(this.fd, this.buffer, done, this.used - done);
    } catch (error) {
      throw new UserError(`cannot write ${this.finalPath}: ${systemErrorText(error)}`);
    }
    this.used = 0;
  }
}

/** Writes the decimal digits of a non-negative integer below 2^53 at `at`; returns the position after them. */
function writeUnsigned(value: number, out: Uint8Array, at: number): number {
  let numDigits = 1;
  for (let power = 10; power <= value; power *= 10) numDigits++;
  let rest = value;
  for (let k = numDigits - 1; k >= 0; k--) {
    const next = Math.floor(rest / 10);
    out[at + k] = ZERO + (rest - 10 * next);
    rest = next;
  }
  return at + numDigits;
}
