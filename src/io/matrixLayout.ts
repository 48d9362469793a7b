// Dense matrices of one value per pair as PLINK writes them (1.9's --r2 square|square0|triangle, plink2's
// --make-king/--make-rel): a row-major n × n square, the square with its upper triangle zero (square0), or the lower
// triangle (row i holds columns 0 … i, or 0 … i − 1 when the triangle leaves the diagonal out, rows 1 … n − 1).
// Binary files are the elements one after another, little-endian (bin: float64, bin4: float32), text files one line per
// row (plinkNumberText.ts). This file is the geometry: where element (row, col) lies.

export const MATRIX_SHAPES = ['triangle', 'square', 'square0'] as const;
export type MatrixShape = (typeof MATRIX_SHAPES)[number];

export const MATRIX_FORMATS = ['text', 'bin', 'bin4'] as const;
export type MatrixFormat = (typeof MATRIX_FORMATS)[number];

/** A matrix's shape and size. */
export interface MatrixGeometry {
  readonly numVector: number;
  readonly shape: MatrixShape;
  /** Whether the triangle holds the diagonal (PLINK 1.9 --r2: yes; plink2 --make-king: no). Square forms always do. */
  readonly diagonalInTriangle: boolean;
}

/** Elements of the matrix (the file's size in elements). */
export function matrixElementCount(g: MatrixGeometry): number {
  const n = g.numVector;
  if (g.shape !== 'triangle') return n * n;
  return g.diagonalInTriangle ? (n * (n + 1)) / 2 : (n * (n - 1)) / 2;
}

/** Elements of file row `row` (a triangle without diagonal has none in row 0). */
export function matrixRowLength(g: MatrixGeometry, row: number): number {
  if (g.shape !== 'triangle') return g.numVector;
  return g.diagonalInTriangle ? row + 1 : row;
}

/** Element index of (row, col); the triangle stores col ≤ row (col < row without its diagonal). */
export function matrixElementIndex(g: MatrixGeometry, row: number, col: number): number {
  if (g.shape !== 'triangle') return row * g.numVector + col;
  return (g.diagonalInTriangle ? (row * (row + 1)) / 2 : (row * (row - 1)) / 2) + col;
}

/** Bytes of one element in the file: float32 for bin4, float64 for bin (and for the scratch a text matrix is built in). */
export function matrixElementBytes(format: MatrixFormat): 4 | 8 {
  return format === 'bin4' ? 4 : 8;
}

/** The final file name: `<stub>.<extension>` for text, `<stub>.<extension>.bin` for bin and bin4 (PLINK's names). */
export function matrixFilePath(stub: string, extension: string, format: MatrixFormat): string {
  return format === 'text' ? `${stub}.${extension}` : `${stub}.${extension}.bin`;
}

/** PLINK's undefined value (nan) in binary files: the x86 default NaN, sign bit set. */
export const PLINK_NAN_FLOAT32_BITS = 0xffc00000;
export const PLINK_NAN_FLOAT64_HIGH_BITS = 0xfff80000;
