// prepare: packed file = the reader's rows (read back by slabs), sidecar sizes/checksum, seeded permutation; the
// sample-major transposition on this thread and on worker threads against each sample's codes read naively.
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UserError } from '../../src/core/errors.js';
import {
  checkPreparedFile, commitStagedFiles, openPlinkFileset, plinkPathsOf, prepareGenotypes, readPackedVectorSlab, readSidecar,
  seededVectorOrder, sidecarPathOf, stageSidecarFile, transposeToSampleMajor,
} from '../../src/io/index.js';
import { mulberry32 } from '../../src/core/seededRandom.js';
import { patternedDosages, specCode, writePlinkFileset } from './genotypeFixtures.js';

const workDir = mkdtempSync(join(tmpdir(), 'snptally-prepare-'));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

const numSnp = 23;
const numSample = 13;
const dosages = patternedDosages(numSnp, numSample, 6);
const prefix = join(workDir, 'set');
writePlinkFileset(prefix, dosages, numSample);

async function prepare(name: string, permuteSeed: number | null): Promise<string> {
  const packedPath = join(workDir, name);
  await prepareGenotypes(await openPlinkFileset(plinkPathsOf(prefix)!), packedPath, { permuteSeed });
  return packedPath;
}

/** Fields of vector v of a slab (fieldCount fields per vector), decoded one by one. */
function slabCodes(slab: Uint8Array, fieldCount: number, vectorIdx: number): number[] {
  const bytesPerVector = Math.ceil(fieldCount / 4);
  return Array.from({ length: fieldCount }, (_, f) => (slab[vectorIdx * bytesPerVector + (f >> 2)] >> ((f & 3) * 2)) & 3);
}

describe('prepareGenotypes', () => {
  it('writes every SNP in source order, readable by field slabs, with a matching sidecar', async () => {
    const packedPath = await prepare('plain.packed', null);
    const sidecar = readSidecar(sidecarPathOf(packedPath));
    expect(sidecar.numVector).toBe(numSnp);
    expect(sidecar.numField).toBe(numSample);
    expect(sidecar.vectorOrder).toBeNull();
    expect(sidecar.snps.id).toEqual(dosages.map((_, s) => `rs${s}`));
    expect(sidecar.numMissingCalls).toBe(dosages.flat().filter((dosage) => dosage === null).length);
    expect(sidecar.packedSha256).toBe(createHash('sha256').update(readFileSync(packedPath)).digest('hex'));
    const slab = readPackedVectorSlab(packedPath, numSample, 5, 10, 3, 7);
    for (let v = 0; v < 10; v++) expect(slabCodes(slab, 7, v)).toEqual(dosages[5 + v].slice(3, 10).map(specCode));
    expect(() => checkPreparedFile(packedPath, sidecar)).not.toThrow();
  });

  it('shuffles vectors by the seed and records which SNP each vector holds', async () => {
    const packedPath = await prepare('shuffled.packed', 12345);
    const sidecar = readSidecar(sidecarPathOf(packedPath));
    const order = sidecar.vectorOrder!;
    expect(order.seed).toBe(12345);
    expect([...order.snpOfVector].sort((a, b) => a - b)).toEqual(Array.from({ length: numSnp }, (_, s) => s));
    expect(order.snpOfVector).not.toEqual(Array.from({ length: numSnp }, (_, s) => s));
    const all = readPackedVectorSlab(packedPath, numSample, 0, numSnp, 0, numSample);
    for (let v = 0; v < numSnp; v++) expect(slabCodes(all, numSample, v)).toEqual(dosages[order.snpOfVector[v]].map(specCode));
    expect(sidecar.packedSha256).toBe(createHash('sha256').update(readFileSync(packedPath)).digest('hex'));
  });

  it('gives the same order for the same seed and another for another seed', () => {
    expect(seededVectorOrder(1000, 7)).toEqual(seededVectorOrder(1000, 7));
    expect(seededVectorOrder(1000, 7)).not.toEqual(seededVectorOrder(1000, 8));
  });

  it('reads back a sidecar this process staged without parsing it, and the file once it changed', async () => {
    const packedPath = await prepare('staged.packed', null);
    const written = readSidecar(sidecarPathOf(packedPath));
    const keptPath = join(workDir, 'staged.input.json');
    commitStagedFiles([stageSidecarFile(keptPath, written)]);
    const back = readSidecar(keptPath);
    expect(back).toBe(written);
    // Rewritten by someone else (another size and time): read from disk, with what the file now says.
    const edited = JSON.parse(readFileSync(keptPath, 'utf8')) as { numMissingCalls: number };
    edited.numMissingCalls += 1000;
    writeFileSync(keptPath, `${JSON.stringify(edited)}\n`);
    const reread = readSidecar(keptPath);
    expect(reread).not.toBe(written);
    expect(reread.numMissingCalls).toBe(written.numMissingCalls + 1000);
  });

  it('detects a packed file that changed after prepare', async () => {
    const packedPath = await prepare('changed.packed', null);
    const sidecar = readSidecar(sidecarPathOf(packedPath));
    const bytes = readFileSync(packedPath);
    bytes[7] ^= 1;
    writeFileSync(packedPath, bytes);
    expect(() => checkPreparedFile(packedPath, sidecar)).toThrow(UserError);
    expect(() => checkPreparedFile(packedPath, sidecar)).toThrow(/changed\.packed does not match the SHA-256 in its sidecar/);
    writeFileSync(packedPath, bytes.subarray(1));
    expect(() => checkPreparedFile(packedPath, sidecar)).toThrow(/has 91 bytes but its sidecar says 92/);
  });

  it('transposes to sample-major on 1, 2 and 5 threads (sample ranges of whole 64-byte blocks): each sample\'s codes', async () => {
    // 1,001 samples (251 bytes per SNP row: 4 blocks, a ragged last byte), 37 SNPs in chunks of 12.
    const [numSnpT, numSampleT] = [37, 1001];
    const bytesPerSnp = Math.ceil(numSampleT / 4);
    const random = mulberry32(9);
    const codes = Array.from({ length: numSnpT }, () => Array.from({ length: numSampleT }, () => Math.floor(random() * 4)));
    const rows = new Uint8Array(numSnpT * bytesPerSnp);
    codes.forEach((row, v) => row.forEach((code, s) => { rows[v * bytesPerSnp + (s >> 2)] |= code << (2 * (s & 3)); }));
    const snpMajor = join(workDir, 'wide.packed');
    writeFileSync(snpMajor, rows);
    const bytesPerSample = Math.ceil(numSnpT / 4);
    for (const threads of [1, 2, 5]) {
      const out = join(workDir, `wide-${threads}.samples`);
      const sha256 = await transposeToSampleMajor(snpMajor, out, out, { numSnp: numSnpT, numSample: numSampleT, snpsPerChunk: 12, threads });
      const bytes = readFileSync(out);
      expect(sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
      expect(bytes.length).toBe(numSampleT * bytesPerSample);
      for (let s = 0; s < numSampleT; s++) {
        const got = Array.from({ length: numSnpT }, (_, v) => (bytes[s * bytesPerSample + (v >> 2)] >> (2 * (v & 3))) & 3);
        expect(got, `${threads} threads, sample ${s}`).toEqual(codes.map((row) => row[s]));
        // Pad fields of a sample's last byte are zero.
        expect(bytes[s * bytesPerSample + bytesPerSample - 1] >> (2 * (numSnpT & 3))).toBe(0);
      }
    }
  });

  it('sample-major from the rows as they come (a .bed counts them) and through the SNP-major file: the same files', async () => {
    const streamed = join(workDir, 'streamed.samples');
    const source = await openPlinkFileset(plinkPathsOf(prefix)!);
    expect(source.numSnpKnown).toBe(numSnp);
    await prepareGenotypes(source, streamed, { permuteSeed: null, vectors: 'samples' });
    // The same source without its row count: transposed from the SNP-major file.
    const uncounted = join(workDir, 'uncounted.samples');
    const again = await openPlinkFileset(plinkPathsOf(prefix)!);
    await prepareGenotypes({ ...again, numSnpKnown: null, snps: null }, uncounted, { permuteSeed: null, vectors: 'samples' });
    const bytes = readFileSync(streamed);
    expect(bytes.equals(readFileSync(uncounted))).toBe(true);
    const sidecar = readSidecar(sidecarPathOf(streamed));
    expect(sidecar).toEqual(readSidecar(sidecarPathOf(uncounted)));
    expect(sidecar.packedSha256).toBe(createHash('sha256').update(bytes).digest('hex'));
    const all = readPackedVectorSlab(streamed, numSnp, 0, numSample, 0, numSnp);
    for (let sample = 0; sample < numSample; sample++) expect(slabCodes(all, numSnp, sample)).toEqual(dosages.map((row) => specCode(row[sample])));
  });

  it('refuses a sidecar whose columns disagree with its sizes', async () => {
    const packedPath = await prepare('sidecar.packed', 3);
    const sidecarPath = sidecarPathOf(packedPath);
    const parsed = JSON.parse(readFileSync(sidecarPath, 'utf8'));
    parsed.vectorOrder.snpOfVector[0] = parsed.vectorOrder.snpOfVector[1];
    writeFileSync(sidecarPath, JSON.stringify(parsed));
    expect(() => readSidecar(sidecarPath)).toThrow(/vectorOrder\.snpOfVector is not a permutation/);
    parsed.snps.id.pop();
    writeFileSync(sidecarPath, JSON.stringify(parsed));
    expect(() => readSidecar(sidecarPath)).toThrow(/snps\.chrom is not a column of 22 values/);
  });
});
