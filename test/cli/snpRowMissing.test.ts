// --distance's missing-call tallies from the SNP rows as they stream (snpRowMissing.ts) against a naive count over the
// sample-major file `prepare --individuals` makes of the same fileset: per sample and per pair, flat (weight 1) and
// PLINK's founder-weighted (its weights computed here from the founders' allele frequencies as plink_calc.c does), on a
// pedigree with non-founders and missing calls, samples not a multiple of 4; and equal to the file path's tallies.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { missingCallsBySnp, missingTallies, talliesOfMissingCalls } from '../../src/cli/plink/distanceMissing.js';
import { missingCallsOfSnpRows } from '../../src/cli/plink/snpRowMissing.js';
import { autosomesOf, openPlinkFileset, plinkPathsOf, prepareGenotypes } from '../../src/io/index.js';
import { writePedigreeFileset } from '../helpers/kingPedigree.js';

const workDir = mkdtempSync(join(tmpdir(), 'snptally-snp-row-missing-'));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

const prefix = join(workDir, 'pedigree');
writePedigreeFileset(prefix, { numFamilies: 3, numUnrelated: 6, numSnp: 403, missingRate: 0.08, seed: 9 });

/** Code of sample s at SNP v of the sample-major rows (SPEC §1). */
function codeOf(rows: Uint8Array, bytesPerSample: number, s: number, v: number): number {
  return (rows[s * bytesPerSample + (v >> 2)] >> (2 * (v & 3))) & 3;
}

/** PLINK 1.9's integer weights of each SNP from the founders' major-allele frequency (or 1 each, flat). */
function naiveWeights(rows: Uint8Array, sizes: { numSample: number; numSnp: number }, founder: Uint8Array | null): number[] {
  const { numSample, numSnp } = sizes;
  const bytesPerSample = Math.ceil(numSnp / 4);
  if (founder === null) return Array.from({ length: numSnp }, () => 1);
  const raw = Array.from({ length: numSnp }, (_, v) => {
    let allele2 = 0, called = 0;
    for (let s = 0; s < numSample; s++) {
      if (founder[s] !== 1) continue;
      const code = codeOf(rows, bytesPerSample, s, v);
      if (code === 0b10) continue;
      called++;
      allele2 += code === 0b00 ? 2 : code === 0b01 ? 1 : 0;
    }
    const frequency = called === 0 ? 0.5 : allele2 / (2 * called);
    const p = frequency < 0.5 ? 1.0 - frequency : frequency;
    return p !== 0 && p !== 1 ? p * (1.0 - p) * (p * p - p + 1) : p;
  });
  const scale = (4294967296.0 - numSnp) / raw.reduce((sum, w) => sum + w, 0);
  return raw.map((w) => Math.trunc(w * scale + 0.5));
}

describe('missing-call tallies from SNP rows', () => {
  it('equal a naive count over the sample-major file, flat and founder-weighted, and the file path\'s tallies', async () => {
    const packed = join(workDir, 'samples.packed');
    const sidecar = await prepareGenotypes(autosomesOf(await openPlinkFileset(plinkPathsOf(prefix)!)), packed, { permuteSeed: null, vectors: 'samples' });
    const rows = new Uint8Array(readFileSync(packed));
    const sizes = { numSample: sidecar.numVector, numSnp: sidecar.numField };
    const bytesPerSample = Math.ceil(sizes.numSnp / 4);
    // Founders: the pedigree's parents and unrelated samples; its children are not.
    const source = autosomesOf(await openPlinkFileset(plinkPathsOf(prefix)!));
    const fam = readFileSync(`${prefix}.fam`, 'utf8').trim().split('\n').map((line) => line.split(/\s+/));
    const founder = Uint8Array.from(fam, (columns) => (columns[2] === '0' && columns[3] === '0' ? 1 : 0));
    expect(founder.includes(0) && founder.includes(1)).toBe(true);
    expect(sizes.numSample % 4).not.toBe(0);
    for (const weighting of [null, founder]) {
      const calls = await missingCallsOfSnpRows(autosomesOf(await openPlinkFileset(plinkPathsOf(prefix)!)), weighting);
      expect(calls.numSnp).toBe(sizes.numSnp);
      const tallies = talliesOfMissingCalls(calls, sizes);
      const weights = naiveWeights(rows, sizes, weighting);
      const missing = (s: number, v: number): boolean => codeOf(rows, bytesPerSample, s, v) === 0b10;
      for (let i = 0; i < sizes.numSample; i++) {
        let perSample = 0;
        for (let v = 0; v < sizes.numSnp; v++) if (missing(i, v)) perSample += weights[v];
        expect(tallies.perSample[i], `sample ${i}`).toBe(perSample);
        for (let j = 0; j < i; j++) {
          let both = 0;
          for (let v = 0; v < sizes.numSnp; v++) if (missing(i, v) && missing(j, v)) both += weights[v];
          expect(tallies.perPair[(i * (i - 1)) / 2 + j], `pair ${i} ${j}`).toBe(both);
        }
      }
      expect(tallies.total).toBe(weights.reduce((sum, w) => sum + w, 0));
      expect(tallies).toEqual(missingTallies({ path: packed, ...sizes }, weighting));
    }
    expect(source.sampleIds.length).toBe(sizes.numSample);
  });
});

describe('missing calls by SNP from per-sample lists', () => {
  it('groups each sample\'s missing SNPs by SNP, samples ascending, as the sample-major file path does', () => {
    const lists = [[0, 7, 9], [], [7, 8], [9], [0, 7]];
    const grouped = missingCallsBySnp({ counts: Uint32Array.from(lists, (list) => list.length), snps: Uint32Array.from(lists.flat()) }, 10);
    const bySnp = Array.from({ length: 10 }, (_, v) => Array.from(grouped.samplesBySnp.subarray(grouped.firstOfSnp[v], grouped.firstOfSnp[v + 1])));
    expect(bySnp).toEqual(Array.from({ length: 10 }, (_, v) => lists.flatMap((list, s) => (list.includes(v) ? [s] : []))));
  });
});
