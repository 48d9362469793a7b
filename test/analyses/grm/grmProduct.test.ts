// The GRM's cross products: OpenBLAS's dsyrk (native addon) and the plain fallback against a naive sum, over several
// SNP blocks of a sample-major file or rows in memory (a last block that is not a multiple of 4 SNPs), and the code
// tables' values.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { GenotypeCodeCounter, grmCodeValues, grmCrossProducts, plainSymmetricRankUpdate, snpsPerBlock } from '../../../src/analyses/grm/index.js';
import { loadOpenBlas } from '../../../src/mgemm/index.js';

const dir = mkdtempSync(join(tmpdir(), 'snptally-grm-product-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A deterministic generator (LCG), so the data are the same on every run. */
function randomOf(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 4294967296;
  };
}

describe('GRM cross products', () => {
  const numSample = 23;
  const numSnp = 2 * 1024 + 7;
  const random = randomOf(7);
  // SPEC §1 codes per sample and SNP: 00, 01, 11 (A1 copies 0, 1, 2), 10 missing (3 %).
  const codes = Array.from({ length: numSample }, () => Array.from({ length: numSnp }, () => {
    const u = random();
    return u < 0.03 ? 2 : [0, 1, 3][Math.floor(random() * 3)];
  }));
  const bytesPerRow = Math.ceil(numSnp / 4);
  const packed = new Uint8Array(numSample * bytesPerRow);
  codes.forEach((row, i) => row.forEach((code, s) => { packed[i * bytesPerRow + (s >> 2)] |= code << (2 * (s & 3)); }));
  const path = join(dir, 'samples.packed');
  writeFileSync(path, packed);
  const input = { path, numSample, numSnp };
  const values = Float64Array.from({ length: 4 * numSnp }, (_, k) => (k % 4 === 2 ? 0 : random() * 4 - 2));

  /** Σ_s v(i, s)·v(j, s) by the definition. */
  const naive = (i: number, j: number): number => {
    let sum = 0;
    for (let s = 0; s < numSnp; s++) sum += values[4 * s + codes[i][s]] * values[4 * s + codes[j][s]];
    return sum;
  };

  it('splits the SNPs into several blocks', () => {
    expect(snpsPerBlock(numSample, numSnp)).toBe(1024);
    // 32 MiB of float64 values: 32 Mi / (8 · 65536) = 64 SNPs.
    expect(snpsPerBlock(1 << 16, 50000)).toBe(64);
  });

  it('the plain fallback and OpenBLAS give the naive sums (lower triangle)', () => {
    const blas = loadOpenBlas();
    expect(blas.available, blas.available ? '' : blas.reason).toBe(true);
    if (!blas.available) return;
    const plain = grmCrossProducts(input, values, plainSymmetricRankUpdate);
    const viaBlas = grmCrossProducts(input, values, blas.update(2));
    for (let i = 0; i < numSample; i++) {
      for (let j = 0; j <= i; j++) {
        const expected = naive(i, j);
        expect(Math.abs(plain[i * numSample + j] - expected), `plain ${i},${j}`).toBeLessThan(1e-9);
        expect(Math.abs(viaBlas[i * numSample + j] - expected), `OpenBLAS ${i},${j}`).toBeLessThan(1e-9);
      }
    }
  });

  it('rows in memory (the front end\'s transposition) give the file\'s sums, bit for bit, and the naive ones', () => {
    const fromFile = grmCrossProducts(input, values, plainSymmetricRankUpdate);
    const inMemory = grmCrossProducts({ rows: packed, numSample, numSnp }, values, plainSymmetricRankUpdate);
    expect(Buffer.from(inMemory.buffer).equals(Buffer.from(fromFile.buffer))).toBe(true);
    for (let i = 0; i < numSample; i++) {
      for (let j = 0; j <= i; j++) expect(Math.abs(inMemory[i * numSample + j] - naive(i, j)), `${i},${j}`).toBeLessThan(1e-9);
    }
  });

  it('code values: plink2\'s standardization from the founders, 0 for missing, 0 for a monomorphic SNP', () => {
    // Two SNPs, 4 rows: SNP 0 codes 00, 01, 11, 10 (founder A1 copies 0 + 1 + 2 of 6), SNP 1 all 00.
    const rows = Uint8Array.from([0b0000, 0b0001, 0b0011, 0b0010]);
    const counter = new GenotypeCodeCounter(2);
    for (let r = 0; r < 4; r++) counter.add(rows, r);
    counter.flush();
    expect(counter.numMissing()).toBe(1);
    const table = grmCodeValues(counter, counter, { covariance: false }, (s) => `snp ${s}`);
    const q = 3 / 6;
    const sd = Math.sqrt(2 * q * (1 - q));
    expect(Array.from(table.subarray(0, 4))).toEqual([(0 - 2 * q) / sd, (1 - 2 * q) / sd, 0, (2 - 2 * q) / sd]);
    expect(Array.from(table.subarray(4, 8))).toEqual([0, 0, 0, 0]);
    const covariance = grmCodeValues(counter, counter, { covariance: true }, (s) => `snp ${s}`);
    expect(Array.from(covariance.subarray(0, 4))).toEqual([-1, 0, 0, 1]);
  });
});
