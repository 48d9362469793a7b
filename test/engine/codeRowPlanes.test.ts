// A GPU rank's own block held as codes (engine/blocks/codeRowPlanes.ts): as the rows in memory, or as the .bed records
// they are transposed from when the source names them. Its host planes (for a host finalize that reads them) equal the
// planes built bit by bit from the codes; for records they wait until the rows in memory are final, which the main
// thread marks, so the wait must not hold it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { codeRowPlanes, hostPlanesOf, hostPlanesReady } from '../../src/engine/blocks/codeRowPlanes.js';
import { planesFromCodes } from '../../src/engine/blocks/vectorBlock.js';
import { mulberry32 } from '../../src/core/seededRandom.js';
import { kingPlaneLayout } from '../../src/analyses/king/index.js';
import { specCode, writePlinkFileset, type DosageMatrix } from '../io/genotypeFixtures.js';

const workDir = mkdtempSync(join(tmpdir(), 'snptally-code-rows-'));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

const NUM_SAMPLE = 23;
const NUM_SNP = 70;

/** A fileset of random dosages and its samples' SPEC §1 rows in memory (the transposition's result, made here). */
function memorySource(): { readonly prefix: string; readonly codes: Uint8Array[]; readonly packed: Uint8Array } {
  const random = mulberry32(99);
  const dosages: DosageMatrix = Array.from({ length: NUM_SNP }, () => Array.from({ length: NUM_SAMPLE }, () => (random() < 0.1 ? null : Math.floor(random() * 3))));
  const prefix = join(workDir, 'set');
  writePlinkFileset(prefix, dosages, NUM_SAMPLE);
  const bytesPerRow = Math.ceil(NUM_SNP / 4);
  const packed = new Uint8Array(new SharedArrayBuffer(NUM_SAMPLE * bytesPerRow));
  const codes = Array.from({ length: NUM_SAMPLE }, (_, s) => Uint8Array.from({ length: NUM_SNP }, (_v, snp) => specCode(dosages[snp][s])));
  codes.forEach((row, s) => row.forEach((code, snp) => { packed[s * bytesPerRow + (snp >> 2)] |= code << (2 * (snp & 3)); }));
  return { prefix, codes, packed };
}

describe('codeRowPlanes', () => {
  const { prefix, codes, packed } = memorySource();
  const layout = kingPlaneLayout();
  const shape = { numVectorLocal: NUM_SAMPLE + 3, vectorFirst: 0, numVectorReal: NUM_SAMPLE, fieldFirst: 0, numFieldLocal: NUM_SNP };
  const naive = planesFromCodes(layout, shape, (v, _first, out) => out.set(codes[v]));

  it('holds rows in memory as code rows, whose host planes are the planes built bit by bit', () => {
    const state = new Int32Array(new SharedArrayBuffer(4));
    const planes = codeRowPlanes(layout, shape, { kind: 'memory', packed, state }, NUM_SNP);
    expect(planes.codeRows?.numRowsReal).toBe(NUM_SAMPLE);
    expect(planes.codeRecords ?? null).toBeNull();
    expect(Array.from(hostPlanesOf(planes).words)).toEqual(Array.from(naive.words));
  });

  it('holds whole .bed records as records; their host planes wait, without holding the thread, for the rows to be final', async () => {
    const state = new Int32Array(new SharedArrayBuffer(4));
    const bedRecords = { bedPath: `${prefix}.bed`, numSample: NUM_SAMPLE, snpIndices: Uint32Array.from({ length: NUM_SNP }, (_, s) => s) };
    const planes = codeRowPlanes(layout, shape, { kind: 'memory', packed, state, bedRecords }, NUM_SNP);
    const records = planes.codeRecords;
    if (records === undefined || records === null) throw new Error('not held as records');
    // The records as read: word-aligned, their PLINK codes (the NOT of SPEC's) under the table of NOT codes.
    const stride = 4 * Math.ceil(Math.ceil(NUM_SAMPLE / 4) / 4);
    const bytes = new Uint8Array(NUM_SNP * stride);
    records.readRecords(bytes, 0, NUM_SNP);
    for (let snp = 0; snp < NUM_SNP; snp++) {
      for (let s = 0; s < NUM_SAMPLE; s++) {
        const code = (bytes[snp * stride + (s >> 2)] >> (2 * (s & 3))) & 3;
        expect(records.bitsOfCode[code]).toBe(layout.bitsOfCode[codes[s][snp]]);
      }
    }
    expect(() => hostPlanesOf(planes)).toThrow(/before hostPlanesReady/);
    let ready = false;
    const waiting = hostPlanesReady(planes).then(() => { ready = true; });
    // This thread marks the rows final later: a blocking wait would never see it.
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(ready).toBe(false);
    Atomics.store(state, 0, 1);
    Atomics.notify(state, 0);
    await waiting;
    expect(Array.from(hostPlanesOf(planes).words)).toEqual(Array.from(naive.words));
  });
});
