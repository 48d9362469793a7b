// prepare: packed file = the reader's rows (read back by slabs), sidecar sizes/checksum, seeded permutation.
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UserError } from '../../src/core/errors.js';
import {
  checkPreparedFile, openPlinkFileset, plinkPathsOf, prepareGenotypes, readPackedVectorSlab, readSidecar,
  seededVectorOrder, sidecarPathOf,
} from '../../src/io/index.js';
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
