// Program factory: 2-bit code records, one per field (PlaneMatrix.codeRecords: a .bed's SNP-major records), transposed
// into bit planes on the device. A dispatch takes one piece of records — fields [fieldFirst, fieldFirst + numFields),
// fieldFirst a multiple of 32, each record ⌈bytesPerRecord / 4⌉ words from the piece's word 0 — and writes those
// fields' plane words of every row of a target chunk: one thread per row and plane word reads the code of its vector in
// each of the word's 32 records and sets each plane's bit by the layout's code table. Words past the last field are
// never written: a new buffer is zero (WebGPU's guarantee), as the host's packing leaves them.

import type { PlaneCodeRecords } from '../../../contract.js';
import type { WgslProgram } from './wgslProgram.js';

/** Threads per workgroup (a 1-D grid folded into x and y). */
export const CODE_RECORDS_WORKGROUP = 256;

/** The shape of planes built from code records: the target's planes, the records' words and the code table. */
export interface CodeRecordPlanes {
  readonly numPlanes: number;
  readonly wordsPerPlane: number;
  readonly recordWords: number;
  readonly bitsOfCode: readonly number[];
}

/** The shape of `records` written into planes of `numPlanes` × `wordsPerPlane` words. */
export function codeRecordPlanesOf(records: PlaneCodeRecords, numPlanes: number, wordsPerPlane: number): CodeRecordPlanes {
  return { numPlanes, wordsPerPlane, recordWords: Math.ceil(records.bytesPerRecord / 4), bitsOfCode: records.bitsOfCode };
}

/**
 * Uniforms: `vectorFirst` (the vector of the target's row 0, in a record), `numRows` (rows of the target),
 * `numRealRows` (of those, rows with codes: the rest get zero words), `fieldFirst` and `numFields` (the piece's
 * records), `numWorkgroupsX` (the folded grid's width).
 */
export function createCodeRecordsProgram(shape: CodeRecordPlanes): WgslProgram {
  const { numPlanes, wordsPerPlane, recordWords, bitsOfCode } = shape;
  if (bitsOfCode.length !== 4) throw new RangeError(`bitsOfCode has ${bitsOfCode.length} entries, not 4`);
  // Per plane, its bit of each code as a 4-bit table indexed by the code.
  const tables = Array.from({ length: numPlanes }, (_, p) => [0, 1, 2, 3].reduce((table, code) => table | (((bitsOfCode[code] >> p) & 1) << code), 0));
  const declarePlanes = tables.map((_, p) => `  var plane${p} = 0u;`).join('\n');
  const setBits = tables.map((table, p) => `      plane${p} |= ((${table}u >> code) & 1u) << k;`).join('\n');
  const writePlanes = tables.map((_, p) => `  dst[out + ${p * wordsPerPlane}u] = plane${p};`).join('\n');
  return {
    cacheKey: `codeRecords:${numPlanes}:${wordsPerPlane}:${recordWords}:${bitsOfCode.join('.')}`,
    workgroupSize: [CODE_RECORDS_WORKGROUP, 1],
    storage: [
      { name: 'src', access: 'read', elementType: 'u32' },
      { name: 'dst', access: 'read_write', elementType: 'u32' },
    ],
    uniforms: [
      { name: 'vectorFirst', type: 'u32' }, { name: 'numRows', type: 'u32' }, { name: 'numRealRows', type: 'u32' },
      { name: 'fieldFirst', type: 'u32' }, { name: 'numFields', type: 'u32' }, { name: 'numWorkgroupsX', type: 'u32' },
    ],
    extensions: [],
    declarations: [
      `const WORDS_PER_PLANE = ${wordsPerPlane}u;`,
      `const ROW_WORDS = ${numPlanes * wordsPerPlane}u;`,
      `const RECORD_WORDS = ${recordWords}u;`,
    ].join('\n'),
    mainBody: `  let id = (wg.y * u.numWorkgroupsX + wg.x) * ${CODE_RECORDS_WORKGROUP}u + li;
  let pieceWords = (u.numFields + 31u) / 32u;
  if (id >= u.numRows * pieceWords) { return; }
  let row = id / pieceWords;
  let w = id % pieceWords;
${declarePlanes}
  if (row < u.numRealRows) {
    let v = u.vectorFirst + row;
    let at = v >> 4u;
    let shift = (v & 15u) * 2u;
    let kEnd = min(32u, u.numFields - 32u * w);
    for (var k = 0u; k < kEnd; k++) {
      let code = (src[(32u * w + k) * RECORD_WORDS + at] >> shift) & 3u;
${setBits}
    }
  }
  let out = row * ROW_WORDS + u.fieldFirst / 32u + w;
${writePlanes}`,
  };
}
