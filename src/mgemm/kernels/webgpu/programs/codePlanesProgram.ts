// Program factory: rows of SPEC §1's 2-bit codes (PlaneMatrix.codeRows) written out as bit planes on the device. A
// row of codes crosses as ⌈bytesPerRow / 4⌉ words (pad bytes are garbage, cleared with the fields past numField); one
// thread per plane word of a row reads the two code words of its 32 fields and writes that word of every plane: per
// plane, the codes whose `bitsOfCode` bit is set, as an OR of the code indicators at even bit positions, squeezed
// into 16 bits per code word. Rows past the real ones are written zero, so the operand equals the host's packing
// (engine/blocks/planePacking.ts) word for word.

import type { PlaneCodeRows } from '../../../contract.js';
import type { WgslProgram } from './wgslProgram.js';

/** Threads per workgroup (a 1-D grid folded into x and y). */
export const CODE_PLANES_WORKGROUP = 256;

/** The shape of rows built from codes: the target's planes and the code rows' fields, bytes and code table. */
export interface CodePlaneRows {
  readonly numPlanes: number;
  readonly wordsPerPlane: number;
  readonly numField: number;
  /** Words one code row crosses as (its bytes rounded up to whole words). */
  readonly codeRowWords: number;
  readonly bitsOfCode: readonly number[];
}

/** The shape of `rows` written into planes of `numPlanes` × `wordsPerPlane` words. */
export function codePlaneRowsOf(rows: PlaneCodeRows, numPlanes: number, wordsPerPlane: number): CodePlaneRows {
  return { numPlanes, wordsPerPlane, numField: rows.numField, codeRowWords: Math.ceil(rows.bytesPerRow / 4), bitsOfCode: rows.bitsOfCode };
}

/**
 * The indicator of `code` at the even bit of each of the 16 codes of code word `k` (0 or 1), from its low bits `lo`, high
 * bits `hi` and their complements `nlo`, `nhi` (odd bits are garbage: squeeze drops them).
 */
function codeIndicator(code: number, k: number): string {
  const high = (code >> 1) === 1 ? `hi${k}` : `nhi${k}`;
  const low = (code & 1) === 1 ? `lo${k}` : `nlo${k}`;
  return `(${high} & ${low})`;
}

/**
 * Uniforms: `rowFirst` (the first row written, in the target), `numRows` (code rows in `src` from its word 0),
 * `numRealRows` (of those, the rows with codes: the rest are written zero), `numWorkgroupsX` (the folded grid's width).
 */
export function createCodePlanesProgram(rows: CodePlaneRows): WgslProgram {
  const { numPlanes, wordsPerPlane, numField, codeRowWords, bitsOfCode } = rows;
  if (bitsOfCode.length !== 4) throw new RangeError(`bitsOfCode has ${bitsOfCode.length} entries, not 4`);
  const wordsUsed = Math.ceil(numField / 32);
  if (wordsUsed > wordsPerPlane || 2 * wordsUsed > codeRowWords + 1) {
    throw new RangeError(`${numField} fields do not fit planes of ${wordsPerPlane} words from code rows of ${codeRowWords} words`);
  }
  const tailMask = numField % 32 === 0 ? 0xffffffff : 2 ** (numField % 32) - 1;
  // Per plane and code word, the OR of the indicators of the codes that set the plane's bit (0u when none does).
  const planeBits = (p: number, k: number): string => {
    const terms = [0, 1, 2, 3].filter((code) => ((bitsOfCode[code] >> p) & 1) === 1).map((code) => codeIndicator(code, k));
    return terms.length === 0 ? '0u' : terms.join(' | ');
  };
  const planeWrites = Array.from({ length: numPlanes }, (_, p) =>
    `  dst[out + ${p * wordsPerPlane}u] = select(0u, (squeeze(${planeBits(p, 0)}) | (squeeze(${planeBits(p, 1)}) << 16u)) & mask, live);`).join('\n');
  return {
    cacheKey: `codePlanes:${numPlanes}:${wordsPerPlane}:${numField}:${codeRowWords}:${bitsOfCode.join('.')}`,
    workgroupSize: [CODE_PLANES_WORKGROUP, 1],
    storage: [
      { name: 'src', access: 'read', elementType: 'u32' },
      { name: 'dst', access: 'read_write', elementType: 'u32' },
    ],
    uniforms: [
      { name: 'rowFirst', type: 'u32' }, { name: 'numRows', type: 'u32' }, { name: 'numRealRows', type: 'u32' },
      { name: 'numWorkgroupsX', type: 'u32' },
    ],
    extensions: [],
    declarations: [
      `const WORDS_PER_PLANE = ${wordsPerPlane}u;`,
      `const ROW_WORDS = ${numPlanes * wordsPerPlane}u;`,
      `const CODE_ROW_WORDS = ${codeRowWords}u;`,
      `const WORDS_USED = ${wordsUsed}u;`,
      `const TAIL_MASK = ${tailMask}u;`,
      '/** The even bits of `x` packed into its low 16 bits. */',
      'fn squeeze(x: u32) -> u32 {',
      '  var v = x & 0x55555555u;',
      '  v = (v | (v >> 1u)) & 0x33333333u;',
      '  v = (v | (v >> 2u)) & 0x0f0f0f0fu;',
      '  v = (v | (v >> 4u)) & 0x00ff00ffu;',
      '  return (v | (v >> 8u)) & 0x0000ffffu;',
      '}',
    ].join('\n'),
    mainBody: `  let id = (wg.y * u.numWorkgroupsX + wg.x) * ${CODE_PLANES_WORKGROUP}u + li;
  if (id >= u.numRows * WORDS_PER_PLANE) { return; }
  let row = id / WORDS_PER_PLANE;
  let w = id % WORDS_PER_PLANE;
  // Word w of a plane holds fields 32w…32w+31: code words 2w (fields 32w…32w+15) and 2w+1 of the row.
  let live = row < u.numRealRows && w < WORDS_USED;
  let at = row * CODE_ROW_WORDS + 2u * w;
  var x0 = 0u;
  var x1 = 0u;
  if (live) {
    x0 = src[at];
    if (2u * w + 1u < CODE_ROW_WORDS) { x1 = src[at + 1u]; }
  }
  let mask = select(0xffffffffu, TAIL_MASK, w + 1u == WORDS_USED);
  let lo0 = x0;
  let hi0 = x0 >> 1u;
  let nlo0 = ~lo0;
  let nhi0 = ~hi0;
  let lo1 = x1;
  let hi1 = x1 >> 1u;
  let nlo1 = ~lo1;
  let nhi1 = ~hi1;
  let out = (u.rowFirst + row) * ROW_WORDS + w;
${planeWrites}`,
  };
}
