// 3-way device finalize appends records (value bits, key) in whatever order its threads pass the threshold; the
// engine writes them in the CPU path's order, which is key order, and as the output lays them out
// (tripleCoordinateRecords, below). (2-way records are written in key order and file layout on the device:
// pairRecordPrograms.ts.) Keys of one request are distinct, so records are ordered either by placing each
// value at its key in a dense array and reading the keys back in order (when records are dense among the keys:
// about twice as fast), or by a least-significant-digit radix sort on the key. Both are linear in the records; a
// comparison sort (BigUint64Array.sort of 64-bit keys) is not, and a run may write hundreds of millions of records.

/** Bits of one radix digit at most: 4096 counters stay in L1, and keys below 2^24 take two passes. */
const MAX_DIGIT_BITS = 12;

/**
 * Dense placement pays when at least one key in DENSE_KEYS_PER_RECORD holds a record: it costs ~1 ns a key (clearing
 * and scanning the presence bits) plus ~10 ns a record, the radix sort ~25 ns a record (2 passes for keys < 2^24).
 */
const DENSE_KEYS_PER_RECORD = 10;
/** Largest key range placed densely: its scratch is 4 bytes a key (128 MiB here), kept by the thread for the next request. */
const DENSE_MAX_KEYS = 1 << 25;

/** Dense placement scratch of this thread: a value per key and a presence bit per key. */
let denseValues = new Uint32Array(0);
let densePresent = new Uint32Array(0);

/** 3-way records the caller gives away (`owned`, value bits and key) in key order and file layout. */
export function orderedTripleRecords(owned: Uint32Array, count: number, slices: readonly TripleSliceCoordinates[]): Uint32Array {
  return tripleCoordinateRecords(ownRecordsInKeyOrder(owned, count), count, slices);
}

/**
 * The first `count` records of `owned` ordered by key, for records the caller gives away (a worker's own copy): `owned` is reordered in place, or
 * read into a new array, and must not be used after; saves a copy of the records (and its fresh pages' faults).
 */
export function ownRecordsInKeyOrder(owned: Uint32Array, count: number): Uint32Array {
  let from: Uint32Array = owned.length === 2 * count ? owned : owned.subarray(0, 2 * count);
  let maxKey = 0;
  let sorted = true;
  for (let n = 0; n < count; n++) {
    const key = from[2 * n + 1];
    if (key < maxKey) sorted = false;
    else maxKey = key;
  }
  if (sorted) return from;
  const numKeys = maxKey + 1;
  if (numKeys <= DENSE_MAX_KEYS && count * DENSE_KEYS_PER_RECORD >= numKeys) return placedByKey(from, count, numKeys);
  const keyBits = 32 - Math.clz32(maxKey);
  const passes = Math.ceil(keyBits / MAX_DIGIT_BITS);
  const digitBits = Math.ceil(keyBits / passes);
  const mask = (1 << digitBits) - 1;
  const starts = new Uint32Array(1 << digitBits);
  let to: Uint32Array = new Uint32Array(2 * count);
  for (let pass = 0; pass < passes; pass++) {
    const shift = pass * digitBits;
    starts.fill(0);
    for (let n = 0; n < count; n++) starts[(from[2 * n + 1] >>> shift) & mask]++;
    let first = 0;
    for (let d = 0; d < starts.length; d++) {
      const size = starts[d];
      starts[d] = first;
      first += size;
    }
    // Stable: records of one digit keep the order of the previous pass.
    for (let n = 0; n < count; n++) {
      const key = from[2 * n + 1];
      const at = 2 * starts[(key >>> shift) & mask]++;
      to[at] = from[2 * n];
      to[at + 1] = key;
    }
    [from, to] = [to, from];
  }
  return from;
}

/** Records `words` (a copy the caller owns) in key order through a value slot and a presence bit per key below `numKeys`. */
function placedByKey(words: Uint32Array, count: number, numKeys: number): Uint32Array {
  if (denseValues.length < numKeys) denseValues = new Uint32Array(numKeys);
  const numPresenceWords = (numKeys + 31) >>> 5;
  if (densePresent.length < numPresenceWords) densePresent = new Uint32Array(numPresenceWords);
  const values = denseValues;
  const present = densePresent;
  present.fill(0, 0, numPresenceWords);
  for (let n = 0; n < count; n++) {
    const key = words[2 * n + 1];
    values[key] = words[2 * n];
    present[key >>> 5] |= 1 << (key & 31);
  }
  // The copy is rewritten in place: every record read above, keys come back in increasing order.
  let placed = 0;
  for (let w = 0; w < numPresenceWords; w++) {
    let bits = present[w];
    while (bits !== 0) {
      const lowest = bits & -bits;
      const key = (w << 5) + 31 - Math.clz32(lowest);
      words[2 * placed] = values[key];
      words[2 * placed + 1] = key;
      placed++;
      bits ^= lowest;
    }
  }
  if (placed !== count) throw new Error(`${count - placed} of ${count} records repeat another record's key`);
  return words;
}

/**
 * Where one slice of a 3-way request puts its records: the record coordinates of its row 0, j and column 0, its
 * shape, and the coordinate step of one vector — 2 for table entries (2i + a, SPEC §7; keys carry the entry bits),
 * 1 for values named by triples (plain i, j, k; keys' entry bits are 0).
 */
export interface TripleSliceCoordinates {
  readonly iRecordFirst: number;
  readonly jRecord: number;
  readonly kRecordFirst: number;
  readonly coordinateStep: 1 | 2;
  readonly xCount: number;
  readonly zCount: number;
}

/**
 * Ordered 3-way records (value bits, key; keys as mgemm/tripleFinalize.ts TripleRecords) as the output lays them
 * out, `[2i + a, 2j + b, 2k + c, value bits]` (or `[i, j, k, value bits]`), in a new array. Keys increase, so slices
 * and rows advance and never go back: no division a record.
 */
export function tripleCoordinateRecords(ordered: Uint32Array, count: number, slices: readonly TripleSliceCoordinates[]): Uint32Array {
  const out = new Uint32Array(4 * count);
  let sliceIdx = 0;
  let slice = slices[0];
  let sliceEnd = slice === undefined ? 0 : slice.xCount * slice.zCount;
  let rowFirst = 0;
  let iRecord = slice?.iRecordFirst ?? 0;
  let tripleFirst = 0;
  for (let n = 0; n < count; n++) {
    const key = ordered[2 * n + 1];
    const triple = key >>> 3;
    while (triple >= sliceEnd) {
      tripleFirst = sliceEnd;
      slice = slices[++sliceIdx];
      if (slice === undefined) throw new RangeError(`record key ${key} is past the request's slices`);
      sliceEnd += slice.xCount * slice.zCount;
      rowFirst = tripleFirst;
      iRecord = slice.iRecordFirst;
    }
    while (triple >= rowFirst + slice.zCount) {
      rowFirst += slice.zCount;
      iRecord += slice.coordinateStep;
    }
    // Entry bits are 0 in the keys of values named by triples.
    out[4 * n] = iRecord + ((key >>> 2) & 1);
    out[4 * n + 1] = slice.jRecord + ((key >>> 1) & 1);
    out[4 * n + 2] = slice.kRecordFirst + slice.coordinateStep * (triple - rowFirst) + (key & 1);
    out[4 * n + 3] = ordered[2 * n];
  }
  return out;
}
