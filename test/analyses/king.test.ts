// `--metric king` on a sample-major prepared pedigree: the checksum of every pair's counts equals the one computed here
// from a naive count over the packed file, and the square .king.bin equals the naive kinship, bit for bit, on the
// ref, cpu and webgpu backends and over several decompositions (npv, npf, npr, phases); records above a kinship
// threshold are the pairs the naive kinship puts above it, with their exact counts. The GPU's own finalize
// (kingPairProgram.ts) on a raw file of ragged size with missing calls, −inf and NaN kinships and a threshold equal to
// a pair's kinship: checksum, rank files and matrices (bin, bin4, text) the same bytes as ref's and cpu's, every pair
// finalized on the device. Also the transposition of `prepare --individuals` against the SNP-major file, chunk by chunk.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChecksumAccumulator, entryUid2, formatChecksum } from '../../src/core/checksum.js';
import { KING_COUNT_SCALE, kingKinship } from '../../src/analyses/king/index.js';
import { readMetricsFileRecords, readSidecar, transposeToSampleMajor } from '../../src/io/index.js';
import { runCli } from '../cli/cliHarness.js';
import { mulberry32 } from '../../src/core/seededRandom.js';
import { writePedigreeFileset } from '../helpers/kingPedigree.js';
import { webgpuGate } from '../helpers/webgpuGate.js';

const dir = mkdtempSync(join(tmpdir(), 'snptally-king-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Code of field f of vector v of a packed file (SPEC §1). */
function codeAt(packed: Uint8Array, bytesPerVector: number, v: number, f: number): number {
  return (packed[v * bytesPerVector + (f >> 2)] >> (2 * (f & 3))) & 3;
}

/** Naive counts of pair (i, j): [hethet, i het & j hom, i hom & j het, opposite homozygotes] over SNPs both called. */
function naiveCounts(packed: Uint8Array, sizes: { numSample: number; numSnp: number }, i: number, j: number): number[] {
  const bytes = Math.ceil(sizes.numSnp / 4);
  const counts = [0, 0, 0, 0];
  for (let s = 0; s < sizes.numSnp; s++) {
    const x = codeAt(packed, bytes, i, s);
    const y = codeAt(packed, bytes, j, s);
    if (x === 2 || y === 2) continue;
    const hetX = x === 1, hetY = y === 1;
    if (hetX && hetY) counts[0]++;
    else if (hetX) counts[1]++;
    else if (hetY) counts[2]++;
    else if (x !== y) counts[3]++;
  }
  return counts;
}

describe('--metric king', () => {
  const packedPath = join(dir, 'pedigree.packed');
  let numSample = 0, numSnp = 0;
  let expectedChecksum = '';
  let expectedSquare: Float64Array;
  beforeAll(() => {
    writePedigreeFileset(join(dir, 'pedigree'), { numFamilies: 3, numUnrelated: 11, numSnp: 1203, missingRate: 0.02, seed: 7 });
    const prepared = runCli(['prepare', '--bfile', join(dir, 'pedigree'), '--individuals', '--out', packedPath]);
    expect(prepared.status, prepared.stderr).toBe(0);
    const sidecar = readSidecar(`${packedPath}.json`);
    [numSample, numSnp] = [sidecar.numVector, sidecar.numField];
    const packed = new Uint8Array(readFileSync(packedPath));
    const checksum = new ChecksumAccumulator();
    expectedSquare = new Float64Array(numSample * numSample).fill(0.5);
    for (let i = 0; i < numSample; i++) {
      for (let j = i + 1; j < numSample; j++) {
        const counts = naiveCounts(packed, { numSample, numSnp }, i, j);
        counts.forEach((count, e) => checksum.add(entryUid2(numSample, i, e >> 1, j, e & 1), count * KING_COUNT_SCALE));
        const kinship = kingKinship(counts[0], counts[3], counts[1], counts[2]);
        expectedSquare[i * numSample + j] = kinship;
        expectedSquare[j * numSample + i] = kinship;
      }
    }
    expectedChecksum = formatChecksum(checksum.sum());
  });

  const decompositions: readonly (readonly string[])[] = [
    [], ['--npv', '3'], ['--npv', '2', '--npr', '2'], ['--npv', '4', '--phases', '2'], ['--npf', '2', '--npv', '2'],
  ];
  for (const backend of ['ref', 'cpu', 'webgpu'] as const) {
    decompositions.forEach((decomposition, d) => {
      it(`${backend} ${decomposition.join(' ') || 'npv 1'}: checksum of the counts and the square matrix are the naive ones`, async () => {
        if (backend === 'webgpu' && !(await webgpuGate()).available) return;
        const stub = join(dir, `${backend}-${d}`);
        const outcome = runCli(['run', '--metric', 'king', '--input', packedPath, '--backend', backend, ...decomposition,
          '--matrix', 'square', '--matrix-format', 'bin', '--out', stub, '--json']);
        expect(outcome.status, outcome.stderr).toBe(0);
        expect((JSON.parse(outcome.stdout) as { checksum: string }).checksum).toBe(expectedChecksum);
        const bytes = readFileSync(`${stub}.king.bin`);
        expect(Buffer.from(expectedSquare.buffer).equals(bytes)).toBe(true);
      });
    });
  }

  it('records above a kinship threshold: the pairs whose naive kinship exceeds it, with their exact counts', () => {
    const stub = join(dir, 'records');
    const outcome = runCli(['run', '--metric', 'king', '--input', packedPath, '--threshold', '0.1', '--npv', '2', '--out', stub, '--json']);
    expect(outcome.status, outcome.stderr).toBe(0);
    expect((JSON.parse(outcome.stdout) as { checksum: string }).checksum).toBe(expectedChecksum);
    const pairs = new Set<string>();
    for (const rank of [0, 1]) {
      for (const record of readMetricsFileRecords(`${stub}_${rank}.bin`, 2)) {
        const [i, j] = [record.coords[0] >> 1, record.coords[1] >> 1];
        pairs.add(`${Math.min(i, j)},${Math.max(i, j)}`);
        expect(Number.isInteger(record.value / KING_COUNT_SCALE)).toBe(true);
      }
    }
    const expected = new Set<string>();
    for (let i = 0; i < numSample; i++) for (let j = i + 1; j < numSample; j++) if (expectedSquare[i * numSample + j] > 0.1) expected.add(`${i},${j}`);
    expect(expected.size).toBeGreaterThan(10);
    expect([...pairs].sort()).toEqual([...expected].sort());
  });

  it('prepare --individuals transposes the SNP-major file, chunk by chunk, pad fields zero', async () => {
    const snpMajor = join(dir, 'snp-major.packed');
    expect(runCli(['prepare', '--bfile', join(dir, 'pedigree'), '--out', snpMajor]).status).toBe(0);
    const sampleMajor = new Uint8Array(readFileSync(packedPath));
    const sidecar = readSidecar(`${packedPath}.json`);
    expect(sidecar.vectors).toBe('samples');
    expect(sidecar.sampleNames?.[0]).toEqual({ fid: 'fam0', iid: 'father' });
    // The X SNP is kept here (no --autosome): every SNP of the fileset is a field.
    expect(sidecar.numField).toBe(1203);
    const rows = new Uint8Array(readFileSync(snpMajor));
    const bytesPerSnp = Math.ceil(numSample / 4);
    const bytesPerSample = Math.ceil(numSnp / 4);
    for (let v = 0; v < numSnp; v++) {
      for (let s = 0; s < numSample; s++) expect(codeAt(sampleMajor, bytesPerSample, s, v)).toBe(codeAt(rows, bytesPerSnp, v, s));
    }
    for (let s = 0; s < numSample; s++) expect(sampleMajor[s * bytesPerSample + bytesPerSample - 1] >> (2 * (numSnp & 3))).toBe(0);
    // Small chunks (4 and 12 SNPs), on this thread or cut into sample ranges on 2 and 3 worker threads, give the same bytes.
    for (const [snpsPerChunk, threads] of [[4, 1], [12, 1], [12, 2], [8, 3]]) {
      const again = join(dir, `chunks-${snpsPerChunk}-${threads}.packed`);
      const sha256 = await transposeToSampleMajor(snpMajor, again, again, { numSnp, numSample, snpsPerChunk, threads });
      expect(Buffer.from(readFileSync(again)).equals(Buffer.from(sampleMajor)), `${snpsPerChunk} SNPs, ${threads} threads`).toBe(true);
      expect(sha256).toBe(sidecar.packedSha256);
    }
  });
});

describe('--metric king finalized on the GPU: the same checksum, records and matrices as ref and cpu', () => {
  // Ragged sizes; vectors 0–11 random (3 % missing), 12–23 copies of 0–11 with a third of their fields redrawn (positive
  // kinships), 24 homozygous only (−inf against most), 25 its copy (NaN: no count at all), 26 missing everywhere (NaN).
  const numSample = 29, numSnp = 301;
  const bytesPerVector = Math.ceil(numSnp / 4);
  const path = join(dir, 'raw.packed');
  const numPairs = (numSample * (numSample - 1)) / 2;
  let expectedChecksum = '';
  let kinships: Float64Array;
  const kinshipOf = (i: number, j: number): number => kinships[Math.min(i, j) * numSample + Math.max(i, j)];
  let tieThreshold = 0;
  beforeAll(() => {
    const random = mulberry32(2026);
    const codes: number[][] = [];
    const randomCode = (): number => (random() < 0.03 ? 2 : [0, 1, 3][Math.floor(random() * 3)]);
    for (let v = 0; v < numSample; v++) {
      const row = Array.from({ length: numSnp }, (_, f) => {
        if (v >= 12 && v < 24) return random() < 1 / 3 ? randomCode() : codes[v - 12][f];
        if (v === 24) return random() < 0.5 ? 0 : 3;
        if (v === 25) return codes[24][f];
        if (v === 26) return 2;
        return randomCode();
      });
      codes.push(row);
    }
    const packed = new Uint8Array(numSample * bytesPerVector);
    codes.forEach((row, v) => row.forEach((code, f) => { packed[v * bytesPerVector + (f >> 2)] |= code << (2 * (f & 3)); }));
    writeFileSync(path, packed);
    const checksum = new ChecksumAccumulator();
    kinships = new Float64Array(numSample * numSample);
    for (let i = 0; i < numSample; i++) {
      for (let j = i + 1; j < numSample; j++) {
        const counts = naiveCounts(packed, { numSample, numSnp }, i, j);
        counts.forEach((count, e) => checksum.add(entryUid2(numSample, i, e >> 1, j, e & 1), count * KING_COUNT_SCALE));
        kinships[i * numSample + j] = kingKinship(counts[0], counts[3], counts[1], counts[2]);
      }
    }
    expectedChecksum = formatChecksum(checksum.sum());
    // The fixture has what it is for: −inf, NaN, and related pairs above the thresholds used.
    const values = Array.from({ length: numSample }, (_, i) => Array.from({ length: numSample - i - 1 }, (_, k) => kinshipOf(i, i + 1 + k))).flat();
    expect(values.filter((k) => k === -Infinity).length).toBeGreaterThan(10);
    // NaN: the 28 pairs of vector 26, and (24, 25).
    expect(values.filter((k) => Number.isNaN(k)).length).toBe(numSample);
    const related = values.filter((k) => k > 0.1).sort((a, b) => a - b);
    expect(related.length).toBeGreaterThan(5);
    tieThreshold = related[2];
  });

  /** Runs `--metric king` on the raw file; returns its checksum and device-finalized pairs. */
  function runKing(backend: string, args: readonly string[]): { checksum: string; deviceFinalizedPairs: number } {
    const outcome = runCli(['run', '--metric', 'king', '--input', path, '--vectors', String(numSample), '--fields', String(numSnp),
      '--backend', backend, ...args, '--json']);
    expect(outcome.status, outcome.stderr).toBe(0);
    return JSON.parse(outcome.stdout) as { checksum: string; deviceFinalizedPairs: number };
  }

  const recordCases: readonly { readonly threshold: 'none' | '0.1' | 'tie'; readonly decomposition: readonly string[]; readonly numRanks: number }[] = [
    { threshold: 'none', decomposition: [], numRanks: 1 },
    { threshold: '0.1', decomposition: ['--npv', '3'], numRanks: 3 },
    { threshold: 'tie', decomposition: ['--npv', '2', '--npr', '2'], numRanks: 4 },
    { threshold: '0.1', decomposition: ['--npv', '4', '--phases', '2'], numRanks: 4 },
  ];
  recordCases.forEach(({ threshold, decomposition, numRanks }, c) => {
    it(`records, threshold ${threshold}, ${decomposition.join(' ') || 'npv 1'}`, async () => {
      if (!(await webgpuGate()).available) return;
      const t = threshold === 'none' ? null : threshold === 'tie' ? tieThreshold : Number(threshold);
      const args = [...decomposition, ...(t === null ? [] : ['--threshold', String(t)])];
      const files = (backend: string): Buffer[] => {
        const stub = join(dir, `raw-records-${c}-${backend}`);
        const result = runKing(backend, [...args, '--out', stub]);
        expect(result.checksum).toBe(expectedChecksum);
        if (backend === 'webgpu') expect(result.deviceFinalizedPairs).toBe(numPairs);
        else expect(result.deviceFinalizedPairs).toBe(0);
        return Array.from({ length: numRanks }, (_, rank) => readFileSync(`${stub}_${rank}.bin`));
      };
      const gpu = files('webgpu');
      for (const backend of ['ref', 'cpu']) {
        files(backend).forEach((bytes, rank) => expect(gpu[rank].equals(bytes), `${backend} rank ${rank}`).toBe(true));
      }
      // The recorded pairs are those whose naive kinship is not ≤ the threshold (NaN included), each with 4 records.
      const recorded = new Map<string, number>();
      gpu.forEach((_, rank) => {
        for (const record of readMetricsFileRecords(`${join(dir, `raw-records-${c}-webgpu`)}_${rank}.bin`, 2)) {
          const [i, j] = [record.coords[0] >> 1, record.coords[1] >> 1];
          const key = `${Math.min(i, j)},${Math.max(i, j)}`;
          recorded.set(key, (recorded.get(key) ?? 0) + 1);
        }
      });
      const expected: string[] = [];
      for (let i = 0; i < numSample; i++) for (let j = i + 1; j < numSample; j++) if (t === null || !(kinshipOf(i, j) <= t)) expected.push(`${i},${j}`);
      expect([...recorded.keys()].sort()).toEqual(expected.sort());
      expect([...recorded.values()].every((n) => n === 4)).toBe(true);
    });
  });

  const matrixCases: readonly (readonly string[])[] = [
    ['--matrix', 'square', '--matrix-format', 'bin'],
    ['--matrix', 'triangle', '--matrix-format', 'bin4', '--npv', '3'],
    ['--matrix', 'square0', '--matrix-format', 'text', '--npv', '2', '--phases', '2'],
  ];
  matrixCases.forEach((args, c) => {
    it(`matrix ${args.join(' ')}`, async () => {
      if (!(await webgpuGate()).available) return;
      const extension = args.includes('text') ? 'king' : 'king.bin';
      const matrix = (backend: string): Buffer => {
        const stub = join(dir, `raw-matrix-${c}-${backend}`);
        const result = runKing(backend, [...args, '--out', stub]);
        expect(result.checksum).toBe(expectedChecksum);
        expect(result.deviceFinalizedPairs).toBe(backend === 'webgpu' ? numPairs : 0);
        return readFileSync(`${stub}.${extension}`);
      };
      const gpu = matrix('webgpu');
      expect(gpu.equals(matrix('cpu')), 'cpu').toBe(true);
      expect(gpu.equals(matrix('ref')), 'ref').toBe(true);
      if (c === 0) {
        const square = new Float64Array(gpu.buffer, gpu.byteOffset, numSample * numSample);
        for (let i = 0; i < numSample; i++) {
          for (let j = 0; j < numSample; j++) expect(square[i * numSample + j], `${i},${j}`).toEqual(i === j ? 0.5 : kinshipOf(i, j));
        }
      }
    });
  });
});
