// plink2's GRM files from the finished matrix (plink2_matrix_calc.cc CalcGrm's writers): --make-rel's .rel (text,
// dtoa_g numbers, tab-separated) or .rel.bin (float64 `bin`, float32 `bin4`) in triangle / square / square0 shape,
// --make-grm-bin's GCTA .grm.bin (float32 lower triangle with diagonal, row by row) and .grm.N.bin (float32 counts of
// SNPs both called), and the .rel.id / .grm.id sample lists. Each file is written under a temporary name.
import { closeSync, openSync, rmSync, writeSync } from 'node:fs';
import { pairCalledCount, type GrmMissingCounts } from '../../analyses/grm/index.js';
import { temporaryPathFor, writePlinkNumber, type MatrixFormat, type MatrixShape, type StagedFile } from '../../io/index.js';
import type { SampleIdPair } from './kingReport.js';

/** The GRM: n × n, its lower triangle (diagonal included) valid, row-major. */
export interface GrmMatrix {
  readonly values: Float64Array;
  readonly numSample: number;
}

/** Longest number dtoa_g writes (io/plinkNumberText.ts MAX_NUMBER_TEXT_BYTES) and its tab. */
const MAX_CELL_BYTES = 16;

/** Row r of --make-rel's matrix in `shape`: the triangle's r + 1 values, then zeros (square0) or the column (square). */
function relRow(grm: GrmMatrix, shape: MatrixShape, r: number, into: Float64Array): number {
  const { values, numSample: n } = grm;
  let k = 0;
  for (let j = 0; j <= r; j++) into[k++] = values[r * n + j];
  if (shape === 'square0') for (let j = r + 1; j < n; j++) into[k++] = 0;
  if (shape === 'square') for (let i = r + 1; i < n; i++) into[k++] = values[i * n + r];
  return k;
}

/** --make-rel's matrix, a row per chunk: text (dtoa_g, tabs, newline), float64 or float32. */
export function* relMatrixChunks(grm: GrmMatrix, shape: MatrixShape, format: MatrixFormat): Generator<Uint8Array> {
  const row = new Float64Array(grm.numSample);
  const text = new Uint8Array(grm.numSample * MAX_CELL_BYTES);
  for (let r = 0; r < grm.numSample; r++) {
    const numValues = relRow(grm, shape, r, row);
    if (format === 'bin') {
      yield new Uint8Array(row.slice(0, numValues).buffer);
    } else if (format === 'bin4') {
      yield new Uint8Array(Float32Array.from(row.subarray(0, numValues)).buffer);
    } else {
      let at = 0;
      for (let k = 0; k < numValues; k++) {
        at = writePlinkNumber(row[k], text, at);
        text[at++] = 0x09;
      }
      text[at - 1] = 0x0a;
      yield text.slice(0, at);
    }
  }
}

/** GCTA's .grm.bin: the lower triangle with diagonal, row by row, float32. */
export function* grmBinChunks(grm: GrmMatrix): Generator<Uint8Array> {
  const { values, numSample: n } = grm;
  for (let r = 0; r < n; r++) yield new Uint8Array(Float32Array.from(values.subarray(r * n, r * n + r + 1)).buffer);
}

/** GCTA's .grm.N.bin: each pair's SNPs both called (all SNPs without missing counts), float32, as .grm.bin. */
export function* grmCountChunks(numSample: number, numSnp: number, missing: GrmMissingCounts | null): Generator<Uint8Array> {
  for (let r = 0; r < numSample; r++) {
    const row = new Float32Array(r + 1);
    for (let j = 0; j <= r; j++) row[j] = pairCalledCount(numSnp, missing, r, j);
    yield new Uint8Array(row.buffer);
  }
}

/** plink2's .grm.id without header: `FID\tIID` per sample (FID 0 when the input has none). */
export function grmIdFileText(samples: readonly SampleIdPair[]): string {
  return samples.map(({ fid, iid }) => `${fid ?? '0'}\t${iid}\n`).join('');
}

/** Writes `chunks` under a temporary name beside `finalPath` (removed on failure). */
export function stageChunks(finalPath: string, chunks: Iterable<Uint8Array>): StagedFile {
  const temporaryPath = temporaryPathFor(finalPath);
  try {
    const fd = openSync(temporaryPath, 'wx');
    try {
      for (const chunk of chunks) {
        for (let done = 0; done < chunk.length;) done += writeSync(fd, chunk, done, chunk.length - done);
      }
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    rmSync(temporaryPath, { force: true });
    throw error;
  }
  return { finalPath, temporaryPath };
}
