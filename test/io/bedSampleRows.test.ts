// `run --individuals` from a .bed read by the transpose workers (io/bedSampleRows.ts): the rows in memory, each sample's
// missing calls and the sidecar equal a naive decode of the .bed's codes and the row-by-row path (the source without
// its .bed records), on ragged sizes (samples not a multiple of 4, SNPs not of 4 nor of a task), with --chr/--extract
// (records not consecutive) on 1 and 3 threads, and the rows' SHA-256 that the workers compute; a sample selection falls back to the row-by-row path; a .bed that
// shrinks after it was opened fails with a one-line error naming it.
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UserError } from '../../src/core/errors.js';
import { mulberry32 } from '../../src/core/seededRandom.js';
import {
  autosomesOf, openPlinkFileset, plinkPathsOf, SELECT_ALL, selectGenotypes, startSampleRowsInMemory, type GenotypeSelection, type GenotypeSource, type SampleIdList,
  type SelectionRecord,
} from '../../src/io/index.js';
import { transposeBedRecords } from '../../src/io/bedSampleRows.js';
import { bedRecordsOf } from '../../src/io/genotypeSource.js';

const workDir = mkdtempSync(join(tmpdir(), 'snptally-bed-rows-'));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

const NUM_SAMPLE = 1003;
const NUM_SNP = 1301;
/** Chromosome of SNP v: mostly autosomes, a run on X and one on 23 (removed by --autosome). */
const chromOf = (v: number): string => (v >= 400 && v < 430 ? 'X' : v >= 900 && v < 905 ? '23' : String(1 + (v % 3)));

/** Writes the fileset; returns each call's .bed code, [snp][sample]. */
function writeFileset(prefix: string): Uint8Array[] {
  const random = mulberry32(5);
  const bytesPerSnp = Math.ceil(NUM_SAMPLE / 4);
  const bed = new Uint8Array(3 + NUM_SNP * bytesPerSnp);
  bed.set([0x6c, 0x1b, 0x01]);
  const codes = Array.from({ length: NUM_SNP }, (_, v) => Uint8Array.from({ length: NUM_SAMPLE }, (_, s) => {
    // PLINK 01 (missing) at about 3 %; the pad bits of a record's last byte set, as a writer may leave them.
    const code = random() < 0.03 ? 0b01 : [0b00, 0b10, 0b11][Math.floor(random() * 3)];
    bed[3 + v * bytesPerSnp + (s >> 2)] |= code << (2 * (s & 3));
    return code;
  }));
  for (let v = 0; v < NUM_SNP; v++) bed[3 + v * bytesPerSnp + bytesPerSnp - 1] |= 0b11 << (2 * (NUM_SAMPLE % 4));
  writeFileSync(`${prefix}.bed`, bed);
  writeFileSync(`${prefix}.bim`, Array.from({ length: NUM_SNP }, (_, v) => `${chromOf(v)}\tsnp${v}\t0\t${1000 + v}\tA\tG\n`).join(''));
  writeFileSync(`${prefix}.fam`, Array.from({ length: NUM_SAMPLE }, (_, s) => `f${s}\ti${s}\t0\t0\t1\t-9\n`).join(''));
  return codes;
}

/** SPEC §1 code of a .bed code: hom A1 00 → 11, missing 01 → 10, het 10 → 01, hom A2 11 → 00. */
const SPEC_OF_BED = [0b11, 0b10, 0b01, 0b00];

/** The sample rows a naive decode gives for the SNPs `snps` (and the samples `samples`), and each sample's missing SNPs. */
function naiveRows(codes: readonly Uint8Array[], snps: readonly number[], samples: readonly number[]): { rows: Uint8Array; missing: number[][] } {
  const bytesPerSample = Math.ceil(snps.length / 4);
  const rows = new Uint8Array(samples.length * bytesPerSample);
  const missing = samples.map(() => [] as number[]);
  samples.forEach((sample, r) => snps.forEach((snp, k) => {
    const code = SPEC_OF_BED[codes[snp][sample]];
    rows[r * bytesPerSample + (k >> 2)] |= code << (2 * (k & 3));
    if (code === 0b10) missing[r].push(k);
  }));
  return { rows, missing };
}

function listsOf(lists: { readonly counts: Uint32Array; readonly snps: Uint32Array }): number[][] {
  let at = 0;
  return Array.from(lists.counts, (count) => Array.from(lists.snps.subarray(at, (at += count))));
}

const prefix = join(workDir, 'ragged');
const codes = writeFileset(prefix);
const extractIds = new Set(Array.from({ length: NUM_SNP }, (_, v) => `snp${v}`).filter((_, v) => v % 7 !== 3 && !(v >= 600 && v < 650)));
const selection: GenotypeSelection = {
  ...SELECT_ALL,
  chromosomes: { text: '1-2,X', names: new Set(['1', '2', '23']) },
  extract: { path: 'extract.txt', ids: extractIds },
};

async function selectedSource(sel: GenotypeSelection): Promise<{ source: GenotypeSource; record: () => SelectionRecord }> {
  const selected = selectGenotypes(await openPlinkFileset(plinkPathsOf(prefix)!), sel);
  return { source: autosomesOf(selected.source), record: selected.record };
}

describe('.bed records transposed by the workers', () => {
  const keptSnps = Array.from({ length: NUM_SNP }, (_, v) => v)
    .filter((v) => ['1', '2'].includes(chromOf(v)) && extractIds.has(`snp${v}`));
  const allSamples = Array.from({ length: NUM_SAMPLE }, (_, s) => s);

  for (const threads of [1, 3]) {
    it(`equal a naive decode on ${threads} thread(s): rows, pad fields and missing calls`, async () => {
      const { source } = await selectedSource(selection);
      const records = bedRecordsOf(source);
      if (records === null) throw new Error('a .bed selected by descriptions without its records');
      expect(Array.from(records.snpIndices)).toEqual(keptSnps);
      const bytesPerSample = Math.ceil(keptSnps.length / 4);
      const rows = new Uint8Array(new SharedArrayBuffer(NUM_SAMPLE * bytesPerSample));
      const layout = { target: { kind: 'memory' as const, rows }, bytesPerSample, numSample: NUM_SAMPLE, bytesPerSnp: Math.ceil(NUM_SAMPLE / 4) };
      const { missingCalls, rowsSha256 } = await transposeBedRecords(records, layout, { threads });
      const expected = naiveRows(codes, keptSnps, allSamples);
      expect(Buffer.from(rows).equals(Buffer.from(expected.rows))).toBe(true);
      expect(listsOf(missingCalls)).toEqual(expected.missing);
      // The workers hash the final rows beside the lists; one thread leaves the hash to its caller.
      expect(rowsSha256).toBe(threads > 1 ? createHash('sha256').update(expected.rows).digest('hex') : null);
    });
  }

  it('as rows in memory: the same rows, missing calls, sidecar and selection record as the row-by-row path', async () => {
    const fast = await selectedSource(selection);
    const slow = await selectedSource(selection);
    const fastRows = await startSampleRowsInMemory(fast.source, { selection: fast.record });
    // The same source with its rows wrapped: no longer known as .bed records, so read row by row.
    const slowRows = await startSampleRowsInMemory({ ...slow.source, rows: () => slow.source.rows() }, { selection: slow.record });
    const [fastDone, slowDone] = [await fastRows.done, await slowRows.done];
    expect(Buffer.from(fastRows.rows).equals(Buffer.from(slowRows.rows))).toBe(true);
    expect(listsOf(fastDone.missingCalls)).toEqual(listsOf(slowDone.missingCalls));
    expect(fastDone.sidecar).toEqual(slowDone.sidecar);
    expect(fastDone.sidecar.numMissingCalls).toBe(naiveRows(codes, keptSnps, allSamples).missing.flat().length);
    // --chr 1-2,X keeps X and 23 (the same chromosome); --autosome then drops them, which the record does not count.
    const inChr = (v: number): boolean => ['1', '2', 'X', '23'].includes(chromOf(v));
    const byChr = Array.from({ length: NUM_SNP }, (_, v) => v).filter((v) => !inChr(v));
    const byExtract = Array.from({ length: NUM_SNP }, (_, v) => v).filter((v) => inChr(v) && !extractIds.has(`snp${v}`));
    expect(fastDone.sidecar.selection?.variantsRemoved).toEqual({ chr: byChr.length, bpRange: 0, extract: byExtract.length, exclude: 0, geno: 0, maf: 0 });
  });

  it('a sample selection keeps the row-by-row path (no .bed records), with the same values as a naive decode', async () => {
    const keep: SampleIdList = { path: 'keep.txt', pairs: new Set(['f1\ti1', 'f8\ti8', 'f1002\ti1002']), iids: new Set(), pairIids: new Set(), pairsJoined: new Set() };
    const { source, record } = await selectedSource({ ...selection, keep });
    expect(bedRecordsOf(source)).toBeNull();
    const rows = await startSampleRowsInMemory(source, { selection: record });
    const done = await rows.done;
    const expected = naiveRows(codes, keptSnps, [1, 8, 1002]);
    expect(Buffer.from(rows.rows).equals(Buffer.from(expected.rows))).toBe(true);
    expect(listsOf(done.missingCalls)).toEqual(expected.missing);
  });

  it('stopped (a run that failed first): no range is started after the stop, and it rejects', async () => {
    const { source } = await selectedSource(selection);
    const records = bedRecordsOf(source);
    if (records === null) throw new Error('a .bed selected by descriptions without its records');
    const bytesPerSample = Math.ceil(records.snpIndices.length / 4);
    const rows = new Uint8Array(new SharedArrayBuffer(NUM_SAMPLE * bytesPerSample));
    const layout = { target: { kind: 'memory' as const, rows }, bytesPerSample, numSample: NUM_SAMPLE, bytesPerSnp: Math.ceil(NUM_SAMPLE / 4) };
    for (const threads of [1, 2]) {
      rows.fill(0);
      await expect(transposeBedRecords(records, layout, { threads, stopped: () => true })).rejects.toThrow(/the transposition was stopped/);
      expect(rows.every((byte) => byte === 0), `${threads} threads`).toBe(true);
    }
  });

  it('a .bed that shrinks after it was opened: done rejects with one line naming it', async () => {
    const shrinking = join(workDir, 'shrinking');
    writeFileset(shrinking);
    const source = autosomesOf(await openPlinkFileset(plinkPathsOf(shrinking)!));
    truncateSync(`${shrinking}.bed`, 3 + 500 * Math.ceil(NUM_SAMPLE / 4));
    const rows = await startSampleRowsInMemory(source, {});
    const failure = await rows.done.then(() => null, (error: unknown) => error);
    expect(failure).toBeInstanceOf(UserError);
    expect(String((failure as Error).message)).toMatch(new RegExp(`^${shrinking}\\.bed ends at byte \\d+: the file shrank while it was read$`));
  });
});
