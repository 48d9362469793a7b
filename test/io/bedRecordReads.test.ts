// A .bed's records read as they are, for a GPU that transposes them itself (io/bedRecordReads.ts): into word-aligned
// places, the records' own bytes, for selected records with gaps, records of a word multiple and not; a file that shrank
// is a UserError naming it.
import { mkdtempSync, rmSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UserError } from '../../src/core/errors.js';
import { readBedRecordsInto, type BedRecords } from '../../src/io/index.js';
import { mulberry32 } from '../../src/core/seededRandom.js';
import { bedBytes, writePlinkFileset, type DosageMatrix } from './genotypeFixtures.js';

const workDir = mkdtempSync(join(tmpdir(), 'snptally-bed-records-'));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

/** A fileset of random dosages (some missing), its .bed bytes and the records of every third SNP but a run at the start. */
function fileset(name: string, numSnp: number, numSample: number): { readonly records: BedRecords; readonly bed: Uint8Array } {
  const random = mulberry32(numSnp * 31 + numSample);
  const dosages: DosageMatrix = Array.from({ length: numSnp }, () => Array.from({ length: numSample }, () => {
    const x = random();
    return x < 0.05 ? null : Math.floor(x * 3);
  }));
  const prefix = join(workDir, name);
  writePlinkFileset(prefix, dosages, numSample);
  const snps = Array.from({ length: numSnp }, (_, s) => s).filter((s) => s < 5 || s % 3 === 0);
  return { records: { bedPath: `${prefix}.bed`, numSample, snpIndices: Uint32Array.from(snps) }, bed: bedBytes(dosages, numSample) };
}

/** Record k of the selection at byte k · stride, from the .bed's bytes. */
function expectedRecords(records: BedRecords, bed: Uint8Array, stride: number): Uint8Array {
  const bytesPerSnp = Math.ceil(records.numSample / 4);
  const out = new Uint8Array(records.snpIndices.length * stride);
  records.snpIndices.forEach((s, k) => out.set(bed.subarray(3 + s * bytesPerSnp, 3 + (s + 1) * bytesPerSnp), k * stride));
  return out;
}

describe.each([
  { name: 'records of a word multiple', numSnp: 300, numSample: 64 },
  { name: 'records of 3 bytes', numSnp: 250, numSample: 10 },
])('.bed records ($name)', ({ name, numSnp, numSample }) => {
  const { records, bed } = fileset(name.replaceAll(' ', '-'), numSnp, numSample);
  const stride = 4 * Math.ceil(Math.ceil(numSample / 4) / 4);

  it('are read on demand into word-aligned places', () => {
    const into = new Uint8Array((records.snpIndices.length - 7) * stride);
    readBedRecordsInto(records, into, { first: 7, count: records.snpIndices.length - 7, stride });
    expect(Array.from(into)).toEqual(Array.from(expectedRecords(records, bed, stride).subarray(7 * stride)));
  });
});

describe('.bed records of a file that shrank', () => {
  it('fail with a UserError naming the file', () => {
    const { records } = fileset('shrunk', 40, 16);
    truncateSync(records.bedPath, 3 + 20 * 4);
    const read = (): void => readBedRecordsInto(records, new Uint8Array(records.snpIndices.length * 4), { first: 0, count: records.snpIndices.length, stride: 4 });
    expect(read).toThrow(UserError);
    expect(read).toThrow(/shrunk\.bed ends at byte/);
  });
});
