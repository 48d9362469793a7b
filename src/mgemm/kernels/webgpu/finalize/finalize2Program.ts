// Program factory of 2-way finalize on the device: tallies of one GEMM sub-block (where the GEMM left them)
// → each pair's values, by the caller's PairValueProgram (mgemm/pairFinalize.ts), in soft double
// (wgsl/softDouble.ts) → threshold (core/thresholds.ts semantics on float32 bits) → exact checksum partial sums
// (core/checksum.ts: rv·iv in 128-bit integers, one sum per workgroup) and the passing pairs' masks and values.
//
// Each workgroup takes a tile of TILE × TILE pairs (16 × 16 threads, 4 × 4 pairs each), reduces its
// threads' sums in workgroup memory and writes one partial: [S as 4 words, entries, zeros, 0, 0].
// Tally layout: group g, sub-block row r, column c at g·groupWords + r·rowStride + c. A passing entry outside
// [0, 16) (or negative) sets status[1]: the host then finalizes the request itself, exactly as the CPU path would
// (including its error).
// Records are not appended here: each pair with a passing entry leaves its pass mask (bit 2a + b) and values
// (at 4p + 2a + b) at its place p in the request (pairRecordPrograms.ts then writes them out in key order).
// A pair-count program (KING's) checksums every entry and records a pair's entries by its own double value instead.

import { PAIR_WINDOW_WORDS, valuesFillTable, type PairValueProgram } from '../../../pairFinalize.js';
import { CHECKSUM_TERMS_PER_FOLD, checksumPartialDeclarations, checksumPartialWgsl, checksumWeightWgsl, FLOAT32_THRESHOLD_WGSL } from '../programs/wgsl/exactChecksum.js';
import { SOFT_DOUBLE_WGSL } from '../programs/wgsl/softDouble.js';
import { HISTOGRAM_STORAGE, histogramCacheWgsl, histogramWgsl } from '../programs/wgsl/histogramWgsl.js';
import { histogramLayoutKey, type HistogramLayout } from '../../../../core/histogramLayout.js';
import type { WgslProgram } from '../programs/wgslProgram.js';
import { RECORD_BAR_UNIFORMS, RECORD_BAR_WGSL } from './recordBar.js';

/** Pairs per side of one workgroup's tile. */
export const FINALIZE2_TILE = 64;
/** u32 words of one workgroup's partial result. */
export const FINALIZE2_PARTIAL_WORDS = 8;
/**
 * Status words: [records (2-way: the total of pairRecordPrograms.ts; 3-way: appended, may exceed the capacity),
 * needs-host flag].
 */
export const FINALIZE2_STATUS_WORDS = 4;

const THREADS_PER_SIDE = 16;
const PAIRS_PER_THREAD_SIDE = FINALIZE2_TILE / THREADS_PER_SIDE;
// A thread folds its checksum columns once, after all its entries.
if (PAIRS_PER_THREAD_SIDE ** 2 * 4 > CHECKSUM_TERMS_PER_FOLD) throw new Error('finalize2: more checksum terms per thread than a fold takes');

/** Dense value kinds as the uniform `denseValues` carries them. */
export const FINALIZE2_DENSE_VALUES = { none: 0, float32: 1, float64: 2 } as const;

/** Threshold kinds as the uniform `thresholdKind` carries them. */
export const FINALIZE2_THRESHOLD_KIND = { none: 0, single: 1, multi2: 2, pairValue: 3 } as const;

const UNIFORMS = [
  // Sub-block shape and where its tallies lie.
  'numRows', 'numCols', 'rowStride', 'groupWords',
  // Matrix rows of sub-block row / column 0, and whether only row < column is wanted (same matrix).
  'rowFirst', 'colFirst', 'strictUpper',
  // Global vector index of matrix row 0 of A and of B; nv mod 714025 for checksum uids.
  'rowVectorFirst', 'colVectorFirst', 'numVectorMod',
  // Place in the request (pass masks and values): sub-block row / column 0 relative to the request, and its columns.
  'keyRowFirst', 'keyColFirst', 'keyNumCols',
  // Tiles of this sub-block, the dispatch width, and the index of its first partial.
  'tilesX', 'numTiles', 'dispatchX', 'partialFirst',
  'thresholdKind', 'threshold0', 'threshold1', 'threshold2', 'threshold3',
  'writeRecords',
  // A top-N run's records-only bar (recordBar.ts): which passing entries' records are written.
  ...RECORD_BAR_UNIFORMS,
  // Every pair's value at its place in passValues (mgemm/pairFinalize.ts DenseValues): 0 none, 1 float32, 2 float64.
  'denseValues',
] as const;

/** Uniform values of one dispatch, by name: the scaffolding's and the value program's constants. */
export type Finalize2Uniforms = Record<(typeof UNIFORMS)[number], number> & Readonly<Record<string, number>>;

/** The float32 quiet NaN, the bits of an undefined value's record. */
const FLOAT32_NAN_BITS = 0x7fc00000;

export interface Finalize2Program extends WgslProgram {
  readonly tile: number;
  /** Whether it counts every value in a histogram (and binds the `histogram` buffer last). */
  readonly countsHistogram: boolean;
  /** Whether it skips pairs outside an LD window (its words follow each row's in `rowVec`, `colVec`). */
  readonly windowed: boolean;
}

/** Variants of the finalize program besides its value program and histogram. */
export interface Finalize2Options {
  /** Skip pairs outside the request's LD window (mgemm/pairFinalize.ts PAIR_WINDOW_WORDS). */
  readonly windowed: boolean;
}

/** The cache key of a finalize program. */
export function finalize2CacheKey(values: PairValueProgram, histogram: HistogramLayout | null, options: Finalize2Options): string {
  return `finalize2/${values.cacheKey}${histogram === null ? '' : `/histogram:${histogramLayoutKey(histogram)}`}${options.windowed ? '/window' : ''}`;
}

/**
 * A pair outside the LD window is skipped before its values are computed: it adds to no value, threshold, checksum,
 * record or histogram. The limits are those of the pair's lower global vector (PairWindowWords).
 */
function windowSkipWgsl(valueWords: number): string {
  return `      let rowWindow = vec2<u32>(rowVec[STRIDE * row + ${valueWords}u], rowVec[STRIDE * row + ${valueWords + 1}u]);
      let colWindow = vec2<u32>(colVec[STRIDE * col + ${valueWords}u], colVec[STRIDE * col + ${valueWords + 1}u]);
      let loLimits = select(colWindow, rowWindow, gi < gj);
      let hi = max(gi, gj);
      if (hi >= loLimits.x && hi < loLimits.y) { continue; }
`;
}

/** Checks a value program's shape: entries, constants that are no scaffolding uniform. */
function checkValueProgram(values: PairValueProgram): void {
  const { entryBits, constantNames, vectorWords } = values;
  const ascending = entryBits.every((bits, k) => Number.isInteger(bits) && bits >= 0 && bits < 4 && (k === 0 || bits > entryBits[k - 1]));
  if (entryBits.length === 0 || !ascending) throw new Error(`${values.cacheKey}: entry bits must be ascending within [0, 4): ${entryBits.join(', ')}`);
  const scaffolding = new Set<string>(UNIFORMS);
  const clash = constantNames.find((name) => scaffolding.has(name) || !/^[A-Za-z][A-Za-z0-9]*$/.test(name));
  if (clash !== undefined) throw new Error(`${values.cacheKey}: constant name ${clash} is taken or not a WGSL name`);
  if (!Number.isInteger(vectorWords) || vectorWords < 0) throw new Error(`${values.cacheKey}: vectorWords ${vectorWords}`);
  const perTuple = values.naming === 'pairs' || values.naming === 'quads';
  if (perTuple && !(entryBits.length === 1 && entryBits[0] === 0)) throw new Error(`${values.cacheKey}: values named by ${values.naming} need entry bits [0]`);
}

/**
 * The entries the checksum counts (`counted`) and a pair's records, for an ordinary program: each value against the
 * threshold on its float32 bits (`f` holds them); the passing entries are counted, or every one with
 * `countsEveryEntry` (values named by pairs, whose threshold only chooses records: ResultSink.addTupleValueRow).
 */
function thresholdedEntriesWgsl(entryBitsOf: (k: string) => string, options: { readonly countsEveryEntry: boolean }): string {
  return `      if (u.denseValues != 0u) {
        // The first entry's value of every pair, passing or not, at its place in the request (row-major).
        let p = (u.keyRowFirst + r) * u.keyNumCols + u.keyColFirst + c;
        if (u.denseValues == 1u) {
          passValues[p] = f[0];
        } else {
          passValues[2u * p] = values[0].x;
          passValues[2u * p + 1u] = values[0].y;
        }
      }
      let mask = passingEntries(f);
      let counted = ${options.countsEveryEntry ? 'ALL_ENTRIES' : 'mask'};
      if (counted == 0u) { continue; }
      if (u.writeRecords != 0u) {
        // Pair p of the request (row-major): its records' place in key order (pairRecordPrograms.ts). Entries below a
        // top-N run's bar pass (checksum, entries) but write no record; a pair left with none keeps its zero mask.
        let p = (u.keyRowFirst + r) * u.keyNumCols + u.keyColFirst + c;
        var recordMask = 0u;
        for (var k = 0u; k < NUM_ENTRIES; k++) {
          let e = ${entryBitsOf('k')};
          if ((mask & (1u << e)) != 0u && keptByBar(f[k])) {
            recordMask |= 1u << e;
            passValues[4u * p + e] = f[k];
          }
        }
        if (recordMask != 0u) { passMasks[p] = recordMask; }
      }
`;
}

/**
 * The same for a pair-count program (PairValueProgram.pairCounts, the host's addPairCountRow): every entry counts in
 * the checksum; the pair's own value decides its records (all its entries) and is its dense value.
 */
function pairCountEntriesWgsl(entryBitsOf: (k: string) => string): string {
  return `      let pairValue = pairCountValue(STRIDE * row, STRIDE * col, r * u.rowStride + c);
      let p = (u.keyRowFirst + r) * u.keyNumCols + u.keyColFirst + c;
      if (u.denseValues == 1u) {
        passValues[p] = select(sdToF32Bits(pairValue), ${FLOAT32_NAN_BITS}u, isNaN(pairValue));
      } else if (u.denseValues == 2u) {
        passValues[2u * p] = pairValue.x;
        passValues[2u * p + 1u] = pairValue.y;
      }
      let counted = ALL_ENTRIES;
      if (u.writeRecords != 0u && pairValueRecorded(pairValue)) {
        for (var k = 0u; k < NUM_ENTRIES; k++) { passValues[4u * p + ${entryBitsOf('k')}] = f[k]; }
        passMasks[p] = ALL_ENTRIES;
      }
`;
}

/** WGSL of a pair-count program's threshold (kind pairValue: threshold0, threshold1 are the double's words). */
const PAIR_VALUE_THRESHOLD_WGSL = `
/** NaN (exponent all ones, a fraction): plink2's undefined kinship. */
fn isNaN(v: vec2<u32>) -> bool {
  return sdExp(v) == 2047u && ((v.y & 0xfffffu) != 0u || v.x != 0u);
}
/** A key whose u64 order is the order of non-NaN doubles, infinities included; both zeros have one key. */
fn orderKey(v: vec2<u32>) -> vec2<u32> {
  if ((v.y & 0x7fffffffu) == 0u && v.x == 0u) { return vec2<u32>(0u, SD_SIGN); }
  if ((v.y & SD_SIGN) != 0u) { return ~v; }
  return vec2<u32>(v.x, v.y | SD_SIGN);
}
/** Whether a pair with this value is recorded: no threshold, or its value is not ≤ the threshold (NaN is not). */
fn pairValueRecorded(v: vec2<u32>) -> bool {
  if (u.thresholdKind != 3u || isNaN(v)) { return true; }
  return u64Less(orderKey(vec2<u32>(u.threshold0, u.threshold1)), orderKey(v));
}`;

/**
 * Pair-of-pairs names (PairValueNaming 'quads'): row pair index x = j(j−1)/2 + i → (i, j); column pair index y in
 * k-major order → (k, l), as the row pair (nv−1−l, nv−1−k) of index nv(nv−1)/2 − 1 − y (k-major order reversed is
 * j-major order of the mirrored pairs); and the quadruple's uid mod 714025. nv is numVectorMod (nv < 714025).
 */
const QUAD_NAMING_WGSL = `
fn quadRowPair(x: u32) -> vec2<u32> {
  // The float estimate of j is off by a few at most (x < 2^26): corrected in integers.
  var j = max(1u, u32((1.0 + sqrt(1.0 + 8.0 * f32(x))) * 0.5));
  while (j > 1u && j * (j - 1u) / 2u > x) { j -= 1u; }
  while ((j + 1u) * j / 2u <= x) { j += 1u; }
  return vec2<u32>(x - j * (j - 1u) / 2u, j);
}
fn quadColPair(y: u32) -> vec2<u32> {
  let nv = u.numVectorMod;
  let mirrored = quadRowPair(nv * (nv - 1u) / 2u - 1u - y);
  return vec2<u32>(nv - 1u - mirrored.y, nv - 1u - mirrored.x);
}
fn quadUidMod(ij: vec2<u32>, kl: vec2<u32>) -> u32 {
  let nv = u.numVectorMod;
  var m = kl.y % RMOD;
  m = (mulMod(m, nv) + kl.x) % RMOD;
  m = (mulMod(m, nv) + ij.y) % RMOD;
  return (mulMod(m, nv) + ij.x) % RMOD;
}`;

/**
 * The finalize program of a pair value program (thresholds and records are uniforms); with `histogram`, it also
 * counts every value of every pair in that layout, before the threshold.
 */
export function createFinalize2Program(
  values: PairValueProgram, histogram: HistogramLayout | null = null, options: Finalize2Options = { windowed: false },
): Finalize2Program {
  const windowed = options.windowed;
  checkValueProgram(values);
  const pairCounts = values.pairCounts ?? false;
  if (pairCounts && (histogram !== null || windowed || values.naming === 'pairs' || values.naming === 'quads')) {
    throw new Error(`${values.cacheKey}: a pair-count program takes no histogram, LD window or naming by pairs`);
  }
  const quads = values.naming === 'quads';
  if (quads && (histogram !== null || windowed)) throw new Error(`${values.cacheKey}: values named by quads take no histogram or LD window`);
  const numEntries = values.entryBits.length;
  // Entry bits of value k: k itself for a whole table (no table lookup in the loops).
  const fillsTable = valuesFillTable(values);
  const entryBitsOf = fillsTable ? (k: string): string => k : (k: string): string => `ENTRY_BITS[${k}]`;
  const multi2 = fillsTable
    ? `
  // multi2: LL, LH, HH thresholds, and LL+HH on the float32 sum of two positive values.
  let llhh = positive(f[0]) && positive(f[3])
    && above(sdToF32Bits(sdAdd(sdFromF32Bits(f[0]), sdFromF32Bits(f[3]))), u.threshold3);
  var mask = 0u;
  if (above(f[0], u.threshold0) || llhh) { mask |= 1u; }
  if (above(f[1], u.threshold1)) { mask |= 2u; }
  if (above(f[2], u.threshold1)) { mask |= 4u; }
  if (above(f[3], u.threshold2) || llhh) { mask |= 8u; }
  return mask;`
    // The host requests multi2 only of values that fill the table (pairFinalizeWebgpu.ts).
    : `
  return 0u;`;
  const declarations = `${SOFT_DOUBLE_WGSL}
const ONE = vec2<u32>(0u, 0x3ff00000u);
const TILE = ${FINALIZE2_TILE}u;
const SIDE = ${THREADS_PER_SIDE}u;
const NUM_THREADS = ${THREADS_PER_SIDE * THREADS_PER_SIDE}u;
const NUM_ENTRIES = ${numEntries}u;
// Words per row of rowVec / colVec: the value program's, then an LD window's (mgemm/pairFinalize.ts PAIR_WINDOW_WORDS).
const STRIDE = ${values.vectorWords + (windowed ? PAIR_WINDOW_WORDS : 0)}u;
const ENTRY_BITS = array<u32, ${numEntries}>(${values.entryBits.map((bits) => `${bits}u`).join(', ')});
const ALL_ENTRIES = ${values.entryBits.reduce((mask, bits) => mask | (1 << bits), 0)}u;
${checksumPartialDeclarations(THREADS_PER_SIDE * THREADS_PER_SIDE)}
${values.wgsl}
${checksumWeightWgsl()}
${FLOAT32_THRESHOLD_WGSL}
${RECORD_BAR_WGSL}
${histogram === null ? '' : histogramWgsl(histogram, values.entryBits)}
${histogram === null ? '' : histogramCacheWgsl(histogram, values.entryBits, { numThreads: THREADS_PER_SIDE ** 2, tuplesPerFlush: FINALIZE2_TILE ** 2 })}
${pairCounts ? PAIR_VALUE_THRESHOLD_WGSL : ''}
${quads ? QUAD_NAMING_WGSL : ''}
/** An undefined value (NaN: exponent field all ones). */
fn isUndefined(v: vec2<u32>) -> bool {
  return sdExp(v) == 2047u;
}
/** Which entries pass (bit 2a + b): core/thresholds.ts markPassingEntries on the values' float32 bits. */
fn passingEntries(f: array<u32, ${numEntries}>) -> u32 {
  if (u.thresholdKind == 0u) { return ALL_ENTRIES; }
  if (u.thresholdKind == 1u) {
    var mask = 0u;
    for (var k = 0u; k < NUM_ENTRIES; k++) { if (above(f[k], u.threshold0)) { mask |= 1u << ${entryBitsOf('k')}; } }
    return mask;
  }${multi2}
}`;

  const body = `
  // The bindings pairValues may leave unread stay in the pipeline's layout (static use).
  _ = &tallies;
  _ = &rowVec;
  _ = &colVec;
${values.setup}
  let tileIdx = wg.x + wg.y * u.dispatchX;
  if (tileIdx >= u.numTiles) { return; }
  let r0 = (tileIdx / u.tilesX) * TILE;
  let c0 = (tileIdx % u.tilesX) * TILE;
${histogram === null ? '' : '  histogramCacheClear(li);\n'}  var sum = vec4<u32>(0u);
  var entries = 0u;
  var zeros = 0u;
  for (var ii = 0u; ii < ${PAIRS_PER_THREAD_SIDE}u; ii++) {
    let r = r0 + lid.y + ii * SIDE;
    if (r >= u.numRows) { continue; }
    let row = u.rowFirst + r;
    let gi = u.rowVectorFirst + row;
${quads ? '    let rowPair = quadRowPair(gi);\n' : ''}    for (var jj = 0u; jj < ${PAIRS_PER_THREAD_SIDE}u; jj++) {
      let c = c0 + lid.x + jj * SIDE;
      let col = u.colFirst + c;
      if (c >= u.numCols || (u.strictUpper != 0u && row >= col)) { continue; }
      let gj = u.colVectorFirst + col;
${quads ? '      let colPair = quadColPair(gj);\n      if (rowPair.y >= colPair.x) { continue; }\n' : ''}${windowed ? windowSkipWgsl(values.vectorWords) : ''}      let values = pairValues(STRIDE * row, STRIDE * col, r * u.rowStride + c, gi, gj);
${histogram === null ? '' : '      histogramCacheCount(values);\n'}      var f: array<u32, ${numEntries}>;
      for (var k = 0u; k < NUM_ENTRIES; k++) { f[k] = select(sdToF32Bits(values[k]), ${FLOAT32_NAN_BITS}u, isUndefined(values[k])); }
${pairCounts ? pairCountEntriesWgsl(entryBitsOf) : thresholdedEntriesWgsl(entryBitsOf, { countsEveryEntry: values.naming === 'pairs' || quads })}      // uid of entry (a, b): coordinates sorted descending, (c0·nv + c1)·4 + bits (core/checksum.ts entryUid2); values
      // named by pairs: c0·nv + c1; by quads: that of i < j < k < l (mgemm/pairFinalize.ts PairValueNaming).
      let hiIsI = gi > gj;
${quads ? '      let pairMod = quadUidMod(rowPair, colPair);\n'
    : '      let pairMod = (mulMod(select(gi, gj, !hiIsI) % RMOD, u.numVectorMod) + select(gj, gi, !hiIsI) % RMOD) % RMOD;\n'}      let pairResidues = checksumResidues((pairMod * ${values.naming === 'pairs' || quads ? 1 : 4}u) % RMOD);
      for (var k = 0u; k < NUM_ENTRIES; k++) {
        let e = ${entryBitsOf('k')};
        if ((counted & (1u << e)) == 0u) { continue; }
        entries += 1u;
        let v = values[k];
        let a = e >> 1u;
        let b = e & 1u;
        if (sdIsZero(v)) { zeros += 1u; continue; }
        // An undefined value is an entry that adds nothing (core/checksum.ts).
        if (isUndefined(v)) { continue; }
        if ((v.y & SD_SIGN) != 0u || sdExp(v) >= 1027u) { atomicStore(&status[1], 1u); continue; }
        let bits = select(b * 2u + a, a * 2u + b, hiIsI);
        checksumAddTerm(checksumWeight(checksumResiduesPlus(pairResidues, bits)), sdFloorTimes2p56(v));
      }
    }
  }
${histogram === null ? '' : '  histogramCacheFlush(li);\n'}  sum = checksumFold(sum);
${checksumPartialWgsl('u.partialFirst + tileIdx', FINALIZE2_PARTIAL_WORDS)}`;

  return {
    cacheKey: finalize2CacheKey(values, histogram, options),
    workgroupSize: [THREADS_PER_SIDE, THREADS_PER_SIDE],
    storage: [
      { name: 'tallies', access: 'read', elementType: 'u32' },
      { name: 'rowVec', access: 'read', elementType: 'u32' },
      { name: 'colVec', access: 'read', elementType: 'u32' },
      { name: 'partials', access: 'read_write', elementType: 'u32' },
      { name: 'status', access: 'read_write', elementType: 'atomic<u32>' },
      { name: 'passMasks', access: 'read_write', elementType: 'u32' },
      { name: 'passValues', access: 'read_write', elementType: 'u32' },
      ...(histogram === null ? [] : [HISTOGRAM_STORAGE]),
    ],
    uniforms: [...UNIFORMS, ...values.constantNames].map((name) => ({ name, type: 'u32' as const })),
    extensions: [],
    declarations,
    mainBody: body,
    tile: FINALIZE2_TILE,
    countsHistogram: histogram !== null,
    windowed,
  };
}
