// `--metric king` on a sample-major prepared pedigree: the checksum of every pair's counts equals the one computed here
// from a naive count over the packed file, and the square .king.bin equals the naive kinship, bit for bit, on the
// ref, cpu and webgpu backends (host finalize) and over several decompositions (npv, npf, npr, phases); records above a
// kinship threshold are the pairs the naive kinship puts above it, with their exact counts. Also the transposition of
// `prepare --individuals` against the SNP-major file, chunk by chunk.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChecksumAccumulator, entryUid2, formatChecksum } from '../../src/core/checksum.js';
import { KING_COUNT_SCALE, kingKinship } from '../../src/analyses/index.js';
import { readMetricsFileRecords, readSidecar, transposeToSampleMajor } from '../../src/io/index.js';
import { runCli } from '../cli/cliHarness.js';
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

  it('prepare --individuals transposes the SNP-major file, chunk by chunk, pad fields zero', () => {
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
    // Small chunks (4 and 12 SNPs) give the same bytes.
    for (const snpsPerChunk of [4, 12]) {
      const again = join(dir, `chunks-${snpsPerChunk}.packed`);
      transposeToSampleMajor(snpMajor, again, again, { numSnp, numSample, snpsPerChunk });
      expect(Buffer.from(readFileSync(again)).equals(Buffer.from(sampleMajor))).toBe(true);
    }
  });
});
