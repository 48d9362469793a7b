// Numbers as PLINK prints them in matrices (`--r2 square` text and the like): 6 significant digits, `%g`-like
// (fixed notation from 1e-4 up to 999999.5, exponential `1.5e-05` outside it, trailing zeros dropped), `nan` and
// `inf`. PLINK rounds the 6th digit half to even and treats values within 5e-9 of a unit of that digit from the
// half-way point as half-way (its own decimal conversion), which %g does not: matching it keeps text files byte-identical.
// Also the conversion of a float64 matrix file into PLINK's text layout (tab-separated rows).
import { closeSync, openSync, readSync, writeSync } from 'node:fs';
import { matrixRowLength, type MatrixGeometry } from './matrixLayout.js';

const CHAR_0 = 0x30;
const CHAR_DOT = 0x2e;
const CHAR_MINUS = 0x2d;
const CHAR_TAB = 0x09;
const CHAR_NEWLINE = 0x0a;
const NAN_TEXT = [0x6e, 0x61, 0x6e];
const INF_TEXT = [0x69, 0x6e, 0x66];
const EXPONENT_MARK = 0x65;
const PLUS = 0x2b;

/** Half-way zone of the 6th digit's rounding (PLINK's banker's rounding of its 6-digit decimal conversion). */
const HALF_WAY_SLACK = 5e-9;

/** Longest text of one number: sign, 6 digits, '.', 'e', exponent sign and 3 digits. */
export const MAX_NUMBER_TEXT_BYTES = 14;

/** Powers of ten 10^0 … 10^22 are exact doubles (a table: `**` per number was a quarter of a .kin0 line's cost). */
const POWERS_OF_TEN = Float64Array.from({ length: 23 }, (_, e) => 10 ** e);

function powerOfTen(e: number): number {
  return e <= 22 ? POWERS_OF_TEN[e] : 10 ** 22 * 10 ** (e - 22);
}

/**
 * powerOfTen(k) for k = 0 … 330, the doubles the formatter scales by (a native formatter given these prints the same
 * digits: every power a double's scaling needs, the smallest subnormal's 10^329 and 1e308's 10^303).
 */
export function plinkPowersOfTen(): Float64Array {
  return Float64Array.from({ length: 331 }, (_, k) => powerOfTen(k));
}

/** x · 10^(5 − e): x scaled so that its decimal exponent e becomes 5 (six digits before the point). */
function scaledBy(x: number, e: number): number {
  const shift = 5 - e;
  if (shift < 0) return x / powerOfTen(-shift);
  return shift > 300 ? x * 1e300 * powerOfTen(shift - 300) : x * powerOfTen(shift);
}

/** sixDigits' result (no array per number: they were most of a .kin0 pass's garbage). */
const SIX_DIGITS = { q: 0, e: 0 };
/** writePlinkNumber's digits, most significant first. */
const DIGITS = new Uint8Array(6);

/** `x` (> 0, finite) rounded to six digits into SIX_DIGITS: 100000 ≤ q ≤ 999999 and x ≈ q · 10^(e − 5). */
function sixDigits(x: number): void {
  let e = Math.floor(Math.log10(x));
  let scaled = scaledBy(x, e);
  // log10 may be off by one next to powers of ten.
  if (scaled >= 1e6) scaled = scaledBy(x, ++e);
  else if (scaled < 1e5) scaled = scaledBy(x, --e);
  let q = Math.floor(scaled);
  const frac = scaled - q;
  // Half to even, with the slack: an even q rounds up from 0.5 + slack, an odd one from 0.5 − slack.
  if (frac >= ((q & 1) === 0 ? 0.5 + HALF_WAY_SLACK : 0.5 - HALF_WAY_SLACK)) q++;
  SIX_DIGITS.q = q >= 1000000 ? 100000 : q;
  SIX_DIGITS.e = q >= 1000000 ? e + 1 : e;
}

/** Writes `x` as PLINK prints it into `out` at `at`; returns the position after it. */
export function writePlinkNumber(x: number, out: Uint8Array, at: number): number {
  let p = at;
  if (Number.isNaN(x)) {
    for (const c of NAN_TEXT) out[p++] = c;
    return p;
  }
  let v = x;
  if (v < 0) {
    out[p++] = CHAR_MINUS;
    v = -v;
  }
  if (v === 0) {
    out[p++] = CHAR_0;
    return p;
  }
  if (v === Infinity) {
    for (const c of INF_TEXT) out[p++] = c;
    return p;
  }
  sixDigits(v);
  const { q, e } = SIX_DIGITS;
  // The six digits, most significant first, and how many are significant once trailing zeros go.
  const digits = DIGITS;
  let rest = q;
  for (let k = 5; k >= 0; k--) {
    digits[k] = rest % 10;
    rest = Math.floor(rest / 10);
  }
  let numDigits = 6;
  while (numDigits > 1 && digits[numDigits - 1] === 0) numDigits--;
  if (e < -4 || e >= 6) {
    out[p++] = CHAR_0 + digits[0];
    if (numDigits > 1) {
      out[p++] = CHAR_DOT;
      for (let k = 1; k < numDigits; k++) out[p++] = CHAR_0 + digits[k];
    }
    out[p++] = EXPONENT_MARK;
    out[p++] = e < 0 ? CHAR_MINUS : PLUS;
    const magnitude = Math.abs(e);
    if (magnitude >= 100) out[p++] = CHAR_0 + Math.floor(magnitude / 100);
    out[p++] = CHAR_0 + Math.floor((magnitude % 100) / 10);
    out[p++] = CHAR_0 + (magnitude % 10);
    return p;
  }
  if (e < 0) {
    out[p++] = CHAR_0;
    out[p++] = CHAR_DOT;
    for (let k = 0; k < -e - 1; k++) out[p++] = CHAR_0;
    for (let k = 0; k < numDigits; k++) out[p++] = CHAR_0 + digits[k];
    return p;
  }
  for (let k = 0; k <= e; k++) out[p++] = CHAR_0 + digits[k];
  if (numDigits > e + 1) {
    out[p++] = CHAR_DOT;
    for (let k = e + 1; k < numDigits; k++) out[p++] = CHAR_0 + digits[k];
  }
  return p;
}

/** `x` as PLINK prints it. */
export function formatPlinkNumber(x: number): string {
  const out = new Uint8Array(MAX_NUMBER_TEXT_BYTES);
  return Buffer.from(out.buffer, 0, writePlinkNumber(x, out, 0)).toString('latin1');
}

/** Values read from a float64 file in order, a chunk at a time. */
class Float64Reader {
  private readonly chunk: Float64Array;
  private numInChunk = 0;
  private next = 0;
  private filePosition = 0;

  constructor(private readonly fd: number, chunkValues: number) {
    this.chunk = new Float64Array(chunkValues);
  }

  read(): number {
    if (this.next === this.numInChunk) this.fill();
    return this.chunk[this.next++];
  }

  private fill(): void {
    const bytes = new Uint8Array(this.chunk.buffer);
    const numBytes = readSync(this.fd, bytes, 0, bytes.length, this.filePosition);
    if (numBytes < 8) throw new Error('matrix scratch file ended early');
    this.filePosition += numBytes;
    this.numInChunk = Math.floor(numBytes / 8);
    this.next = 0;
  }
}

const TEXT_CHUNK_BYTES = 1 << 22;

/**
 * Writes the float64 matrix file `binaryPath` (laid out as `geometry`) as PLINK's text matrix to `textPath` (a new
 * file): one line per row, values tab-separated. Returns the text's bytes.
 */
export function writeMatrixText(binaryPath: string, textPath: string, geometry: MatrixGeometry): number {
  const input = openSync(binaryPath, 'r');
  let output: number | null = null;
  try {
    output = openSync(textPath, 'wx');
    const reader = new Float64Reader(input, TEXT_CHUNK_BYTES / 8);
    const out = new Uint8Array(TEXT_CHUNK_BYTES + MAX_NUMBER_TEXT_BYTES + 2);
    let at = 0;
    let written = 0;
    const flush = (): void => {
      let done = 0;
      while (done < at) done += writeSync(output as number, out, done, at - done);
      written += at;
      at = 0;
    };
    for (let row = 0; row < geometry.numVector; row++) {
      const length = matrixRowLength(geometry, row);
      if (length === 0) continue;
      for (let k = 0; k < length; k++) {
        at = writePlinkNumber(reader.read(), out, at);
        out[at++] = k === length - 1 ? CHAR_NEWLINE : CHAR_TAB;
        if (at >= TEXT_CHUNK_BYTES) flush();
      }
    }
    flush();
    return written;
  } finally {
    closeSync(input);
    if (output !== null) closeSync(output);
  }
}
