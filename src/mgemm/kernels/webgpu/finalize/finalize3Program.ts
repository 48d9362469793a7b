// Program factory of 3-way finalize on the device: tallies of the slices' rectangles of an mGEMM3 sub-block (where
// the GEMM left them) → values in soft double (wgsl/softDouble.ts): SPEC §3's (r_abc of the eight entries by
// inclusion–exclusion, the operations of src/analyses/comet/tripleValues.ts and core/formulas.ts combine3, bit for
// bit; finalize3Wgsl.ts) or one per triple from an analysis's TripleValueProgram (finalize3ValueWgsl.ts) →
// threshold (core/thresholds.ts on float32 bits) → exact checksum partial sums (core/checksum.ts: rv·iv in 128-bit
// integers) and appended records.
//
// One dispatch finalizes one sub-block of a stacked GEMM (sliceStacks.ts): a table of rectangles, one per slice
// the sub-block holds rows of (FINALIZE3_RECT_FIELDS, FINALIZE3_RECT_WORDS words each, in `sliceWords` at
// rectsFirst). Each workgroup (16 × 16 threads) walks the tiles of TILE × TILE triples of all rectangles (2 × 2
// per thread), grid-stride, finding a tile's rectangle by binary search of the rectangles' first tiles; so a
// dispatch needs at most FINALIZE3_MAX_WORKGROUPS partials, in 2-way finalize's layout (finalize2Program.ts):
// [S as 4 words, entries, zeros, 0, 0] each, and the same status words [records appended, needs-host flag].
// Tally layout: group g, row r, column c of a rectangle at g·groupWords + tallyFirst + r·rowStride + c.
// `sliceWords` holds the request's finalize words (tripleFinalizeWebgpu.ts requestFinalizeWords): per-vector
// words (mgemm/tripleFinalize.ts) of the rows, j and the columns, and, dense, T[ccm] of each row and T[mcc] of
// each column, at a rectangle's offsets; then the rectangle tables. `pairIK` is the dense block-pair matrix of
// T[cmc]; `runWords` a value program's run words. A counted value outside [0, 16) sets status[1]: the host then
// finalizes the request (all its slices) itself, as the CPU path would (error included).

import { TRIPLE_VECTOR_WORDS, type TripleFinalizeValues, type TripleValueProgram } from '../../../tripleFinalize.js';
import { FINALIZE2_PARTIAL_WORDS } from './finalize2Program.js';
import { CHECKSUM_TERMS_PER_FOLD, checksumPartialDeclarations, checksumPartialWgsl, checksumWeightWgsl, FLOAT32_THRESHOLD_WGSL } from '../programs/wgsl/exactChecksum.js';
import { lastAtMostWgsl } from '../programs/wgsl/lastAtMost.js';
import { SOFT_DOUBLE_WGSL } from '../programs/wgsl/softDouble.js';
import { HISTOGRAM_STORAGE } from '../programs/wgsl/histogramWgsl.js';
import { histogramLayoutKey, type HistogramLayout } from '../../../../core/histogramLayout.js';
import { FORMULA_SETUP_WGSL, formulaDeclarations, formulaTripleWgsl } from './finalize3Wgsl.js';
import { VALUE_PROGRAM_TRIPLE_WGSL, valueProgramDeclarations } from './finalize3ValueWgsl.js';
import type { WgslProgram } from '../programs/wgslProgram.js';
import { RECORD_BAR_UNIFORMS, RECORD_BAR_WGSL } from './recordBar.js';

/**
 * Triples per side of one tile: 2 × 2 triples (32 entries) per thread, about half of finalize2's 64 entries per
 * thread since each 3-way entry costs one soft multiply more. Other tile sizes change nothing beyond noise: the
 * soft-double arithmetic bounds finalize3 (docs/performance.md).
 */
export const FINALIZE3_TILE = 32;
/**
 * Workgroups of one dispatch at most (each loops over tiles): a request holds a few sub-blocks and the engine makes
 * hundreds of requests per unit, so per-tile partials would make the read-back large; 1024 workgroups still fill a large GPU.
 */
export const FINALIZE3_MAX_WORKGROUPS = 1024;

const THREADS_PER_SIDE = 16;
const TRIPLES_PER_THREAD_SIDE = FINALIZE3_TILE / THREADS_PER_SIDE;
// A thread folds its checksum columns after each tile.
if (TRIPLES_PER_THREAD_SIDE ** 2 * 8 > CHECKSUM_TERMS_PER_FOLD) throw new Error('finalize3: more checksum terms per tile than a fold takes');

/** Threshold kinds as the uniform `thresholdKind` carries them. */
export const FINALIZE3_THRESHOLD_KIND = { none: 0, single: 1, multi3: 2 } as const;

/**
 * Fields of one rectangle in the table, in order (Finalize3Rect). A rectangle's tiles are numbered from tileFirst
 * on (the tiles of the rectangles before it), tilesX per row of tiles.
 */
export const FINALIZE3_RECT_FIELDS = [
  'tileFirst', 'tilesX',
  // Rectangle shape and where its tallies lie in each group.
  'numRows', 'numCols', 'tallyFirst',
  // Slice row / column of rectangle row / column 0, and the slice's rows and columns (a run3 request's slice
  // is what the names call the request); record keys of the slice start at keyFirst (its first triple · 8).
  'rowFirst', 'colFirst', 'requestRows', 'requestCols', 'keyFirst',
  // Global vector indices of slice row 0, of j and of slice column 0.
  'iVectorFirst', 'jVectorGlobal', 'kVectorFirst',
  // Dense T[cmc]: the block-pair matrix's row / column of slice row / column 0.
  'ikRowFirst', 'ikColFirst',
  // Word offsets in sliceWords of the slice's row 0, j, column 0 and pair counts.
  'rowWordsFirst', 'jWordsFirst', 'colWordsFirst', 'pairWordsFirst',
] as const;

/** Words of one rectangle in the table (its fields, padded to a multiple of 4). */
export const FINALIZE3_RECT_WORDS = Math.ceil(FINALIZE3_RECT_FIELDS.length / 4) * 4;

/** A rectangle's table fields, by name. */
export type Finalize3Rect = Record<(typeof FINALIZE3_RECT_FIELDS)[number], number>;

const UNIFORMS = [
  // The sub-block's tally layout.
  'rowStride', 'groupWords',
  // The rectangle table: where in sliceWords, how many rectangles, their tiles in all.
  'rectsFirst', 'numRects', 'numTiles',
  // nv mod 714025 for checksum uids; T[cmc] (dense formulas, a value program's pair counts): row stride of the
  // block-pair matrix, and its words per group.
  'numVectorMod', 'ikStride', 'ikGroupWords',
  // The dispatch width, and the index of its first partial.
  'numWorkgroups', 'partialFirst',
  'thresholdKind', 'threshold0', 'threshold1', 'threshold2', 'threshold3', 'threshold4',
  'writeRecords', 'recordCapacity',
  // A top-N run's records-only bar (recordBar.ts): which passing entries' records are appended.
  ...RECORD_BAR_UNIFORMS,
  // SPEC §3 constants: C, m, and doubles as (lo, hi) bits.
  'countedBits', 'numField', 'multLo', 'multHi', 'rsumLo', 'rsumHi',
] as const;

/** Uniform values of one dispatch, by name: the scaffolding's and a value program's constants. */
export type Finalize3Uniforms = Record<(typeof UNIFORMS)[number], number> & Readonly<Record<string, number>>;

export interface Finalize3Program extends WgslProgram {
  readonly tile: number;
  /** Whether it counts every value in a histogram (and binds the `histogram` buffer last). */
  readonly countsHistogram: boolean;
}

/** The formula variant's histogram cache: per workgroup thread, flushed after each tile. */
const FORMULA_HISTOGRAM_CACHE = { numThreads: THREADS_PER_SIDE ** 2, tuplesPerFlush: FINALIZE3_TILE ** 2 };

/** The cache key of a finalize program (finalize3Program options). */
export function finalize3CacheKey(values: TripleFinalizeValues, histogram: HistogramLayout | null): string {
  const kind = values.kind === 'formula' ? (values.sparse ? 'sparse' : 'dense') : `program/${values.program.cacheKey}`;
  return `finalize3/${kind}${histogram === null ? '' : `/histogram:${histogramLayoutKey(histogram)}`}`;
}

/** Checks a value program's shape: per-vector words, constants that are no scaffolding uniform. */
function checkValueProgram(program: TripleValueProgram): void {
  const scaffolding = new Set<string>(UNIFORMS);
  const clash = program.constantNames.find((name) => scaffolding.has(name) || !/^[A-Za-z][A-Za-z0-9]*$/.test(name));
  if (clash !== undefined) throw new Error(`${program.cacheKey}: constant name ${clash} is taken or not a WGSL name`);
  if (!Number.isInteger(program.vectorWords) || program.vectorWords < 0) throw new Error(`${program.cacheKey}: vectorWords ${program.vectorWords}`);
  const groups = program.pairCountGroups ?? 0;
  if (!Number.isInteger(groups) || groups < 0) throw new Error(`${program.cacheKey}: pairCountGroups ${groups}`);
}

/**
 * The finalize program of dense or sparse 3-way formulas, or of an analysis's value program (thresholds and records
 * are uniforms); with `histogram` (formulas only), it also counts every value of every triple in that layout — so it
 * never skips a triple by the threshold's screen.
 */
export function createFinalize3Program(options: { readonly values: TripleFinalizeValues; readonly histogram?: HistogramLayout | null }): Finalize3Program {
  const values = options.values;
  const histogram = options.histogram ?? null;
  if (values.kind === 'program') {
    if (histogram !== null) throw new Error('finalize3: a value program counts no histogram');
    checkValueProgram(values.program);
  }
  const declarations = `${SOFT_DOUBLE_WGSL}
const ONE = vec2<u32>(0u, 0x3ff00000u);
const VW = ${values.kind === 'formula' ? TRIPLE_VECTOR_WORDS : values.program.vectorWords}u;
const TILE = ${FINALIZE3_TILE}u;
const SIDE = ${THREADS_PER_SIDE}u;
const NUM_THREADS = ${THREADS_PER_SIDE * THREADS_PER_SIDE}u;
/** The rectangle of the tile at hand (loadRect). */
struct Rect {
${FINALIZE3_RECT_FIELDS.map((f) => `  ${f}: u32,`).join('\n')}
};
var<private> R: Rect;
/** Word offsets in sliceWords of the rows', j's and the columns' vector words (of R). */
var<private> ROW_VECTORS: u32;
var<private> J_VECTOR: u32;
var<private> COL_VECTORS: u32;
${checksumPartialDeclarations(THREADS_PER_SIDE * THREADS_PER_SIDE)}
/** Loads rectangle k of the table into R (and its vector word offsets). */
fn loadRect(k: u32) {
  let at = u.rectsFirst + k * ${FINALIZE3_RECT_WORDS}u;
${FINALIZE3_RECT_FIELDS.map((f, idx) => `  R.${f} = sliceWords[at + ${idx}u];`).join('\n')}
  ROW_VECTORS = R.rowWordsFirst;
  J_VECTOR = R.jWordsFirst;
  COL_VECTORS = R.colWordsFirst;
}
/** The rectangle holding a tile: the last whose first tile is at most it. */
${lastAtMostWgsl('rectOfTile', 'u.numRects', (i) => `sliceWords[u.rectsFirst + ${i} * ${FINALIZE3_RECT_WORDS}u]`)}
${checksumWeightWgsl()}
${FLOAT32_THRESHOLD_WGSL}
${RECORD_BAR_WGSL}
${values.kind === 'formula' ? formulaDeclarations(values.sparse, histogram, FORMULA_HISTOGRAM_CACHE) : valueProgramDeclarations(values.program)}`;

  const body = `
${values.kind === 'formula' ? FORMULA_SETUP_WGSL : ''}  var sum = vec4<u32>(0u);
  var entries = 0u;
  var zeros = 0u;
${histogram === null ? '' : '  histogramCacheClear(li);\n'}  for (var tileIdx = wg.x; tileIdx < u.numTiles; tileIdx += u.numWorkgroups) {
    loadRect(rectOfTile(tileIdx));
    let gj = R.jVectorGlobal;
    let tile = tileIdx - R.tileFirst;
    let r0 = (tile / R.tilesX) * TILE;
    let c0 = (tile % R.tilesX) * TILE;
    for (var ii = 0u; ii < ${TRIPLES_PER_THREAD_SIDE}u; ii++) {
      let r = r0 + lid.y + ii * SIDE;
      if (r >= R.numRows) { continue; }
      let rq = R.rowFirst + r;
      let gi = R.iVectorFirst + rq;
      for (var kk = 0u; kk < ${TRIPLES_PER_THREAD_SIDE}u; kk++) {
        let c = c0 + lid.x + kk * SIDE;
        if (c >= R.numCols) { continue; }
        let cq = R.colFirst + c;
        let gk = R.kVectorFirst + cq;
        let t = R.tallyFirst + r * u.rowStride + c;
${values.kind === 'formula' ? formulaTripleWgsl(histogram) : VALUE_PROGRAM_TRIPLE_WGSL}
      }
    }
${histogram === null ? '' : '    // Every tile: a cache count stays below 2^32 however many tiles the workgroup takes.\n    histogramCacheFlush(li);\n'}    sum = checksumFold(sum);
  }
${checksumPartialWgsl('u.partialFirst + wg.x', FINALIZE2_PARTIAL_WORDS)}`;

  const formulaBindings = values.kind === 'formula' && !values.sparse ? [{ name: 'pairIK', access: 'read', elementType: 'u32' } as const] : [];
  const programPairs = values.kind === 'program' && (values.program.pairCountGroups ?? 0) > 0;
  const programBindings = values.kind === 'program'
    ? [...(programPairs ? [{ name: 'pairIK', access: 'read', elementType: 'u32' } as const] : []), { name: 'runWords', access: 'read', elementType: 'u32' } as const] : [];
  return {
    cacheKey: finalize3CacheKey(values, histogram),
    workgroupSize: [THREADS_PER_SIDE, THREADS_PER_SIDE],
    storage: [
      { name: 'tallies', access: 'read', elementType: 'u32' },
      { name: 'sliceWords', access: 'read', elementType: 'u32' },
      // Dense formulas only (value programs: with pair counts): layout 'auto' leaves out bindings a shader does not use.
      ...formulaBindings,
      ...programBindings,
      { name: 'partials', access: 'read_write', elementType: 'u32' },
      { name: 'status', access: 'read_write', elementType: 'atomic<u32>' },
      { name: 'records', access: 'read_write', elementType: 'u32' },
      ...(histogram === null ? [] : [HISTOGRAM_STORAGE]),
    ],
    uniforms: [...UNIFORMS, ...(values.kind === 'program' ? values.program.constantNames : [])].map((name) => ({ name, type: 'u32' as const })),
    extensions: [],
    declarations,
    mainBody: body,
    tile: FINALIZE3_TILE,
    countsHistogram: histogram !== null,
  };
}
