// How many triples a device-finalized 3-way call may hold when its passing entries come back as records. Records
// (8 bytes each) must fit the call's records buffer, within one storage binding, or the call falls back to the
// host; up to 8 entries of a triple may pass. The first call assumes they all do (1 Mi triples, 8 Mi records); later
// calls size from the most records per triple any call has returned so far, with room to spare, growing at most
// 4× a call. On the H100, nv 4096 nf 16384 --threshold 0.4 --output made 11 000 calls of 1 Mi triples (19 M
// records): 7.1 s against 1.75 s without --output.

/** Records one call is sized for: 64 MiB, and twice what the densest call so far would give. */
const RECORDS_PER_CALL = 1 << 23;
const FIRST_TRIPLES_PER_CALL = RECORDS_PER_CALL / 8;
/** Keys of a call's records are triple · 8 + entry in a u32; 2^25 triples also bound a fallback to the host. */
const MAX_TRIPLES_PER_CALL = 1 << 25;
const GROWTH_PER_CALL = 4;

/**
 * The first call of a top-N run: its records all come back (no records-only bar is known yet), later calls' only
 * those that reach the bar it sets; 4 Ki triples, at most 32 Ki records (a j-slice larger than that is a call of its own).
 */
export const TOP_FIRST_TRIPLES_PER_CALL = 1 << 12;

export class RecordedTriplesPerCall {
  private triples: number;
  private densest = 0;
  private unbarredCalls: number;

  /**
   * `firstTriples`: the first call's triples (default FIRST_TRIPLES_PER_CALL). `firstUnbarred`: the first call
   * returns every record (a top-N run's bar comes from it), so its density says nothing of the barred calls after it;
   * counted, it kept an H200 3-way top-N run at ~2 M triples a call (GEMMs of ~60 workgroup tiles).
   */
  constructor(options: { readonly firstTriples?: number; readonly firstUnbarred?: boolean } = {}) {
    this.triples = options.firstTriples ?? FIRST_TRIPLES_PER_CALL;
    this.unbarredCalls = options.firstUnbarred === true ? 1 : 0;
  }

  /** Triples the next call may hold. */
  get limit(): number {
    return this.triples;
  }

  /** After a call finalized on the device: its triples and the records it returned. */
  observe(numTriples: number, numRecords: number): void {
    if (numTriples <= 0) return;
    if (this.unbarredCalls > 0) this.unbarredCalls--;
    else this.densest = Math.max(this.densest, numRecords / numTriples);
    const fits = this.densest > 0 ? RECORDS_PER_CALL / (2 * this.densest) : Infinity;
    this.triples = Math.floor(Math.max(FIRST_TRIPLES_PER_CALL, Math.min(this.triples * GROWTH_PER_CALL, fits, MAX_TRIPLES_PER_CALL)));
  }
}
