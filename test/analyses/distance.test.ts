// `--metric distance` and `--metric sqdist` on a sample-major prepared pedigree with missing calls: the checksum of
// every pair's IBS counts equals the one computed here from a naive count over the packed file, and the square
// .dist.bin / .sqdist.bin equal the naive Σ|g_i − g_j| and Σ(g_i − g_j)² over the SNPs both called, bit for bit, on the
// ref, cpu and webgpu backends (host finalize) and over several decompositions (npv, npf, npr, phases); records above
// a distance threshold are the pairs the naive distance puts above it, with their exact counts.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChecksumAccumulator, entryUid2, formatChecksum } from '../../src/core/checksum.js';
import { IBS_COUNT_SCALE, IBS_ENTRY } from '../../src/analyses/distance/index.js';
import { readMetricsFileRecords, readSidecar } from '../../src/io/index.js';
import { runCli } from '../cli/cliHarness.js';
import { writePedigreeFileset } from '../helpers/kingPedigree.js';
import { webgpuGate } from '../helpers/webgpuGate.js';

const dir = mkdtempSync(join(tmpdir(), 'snptally-distance-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Dosage (copies of allele 1) of SPEC §1 codes 00, 01, 11; null for the missing code 10. */
const DOSAGE_OF_CODE = [0, 1, null, 2] as const;

/** Naive [ibs0, ibs1] of pair (i, j): SNPs both called where the dosages differ by 2, by 1. */
function naiveIbs(packed: Uint8Array, numSnp: number, i: number, j: number): [number, number] {
  const bytes = Math.ceil(numSnp / 4);
  let ibs0 = 0, ibs1 = 0;
  for (let s = 0; s < numSnp; s++) {
    const x = DOSAGE_OF_CODE[(packed[i * bytes + (s >> 2)] >> (2 * (s & 3))) & 3];
    const y = DOSAGE_OF_CODE[(packed[j * bytes + (s >> 2)] >> (2 * (s & 3))) & 3];
    if (x === null || y === null) continue;
    if (Math.abs(x - y) === 2) ibs0++;
    else if (Math.abs(x - y) === 1) ibs1++;
  }
  return [ibs0, ibs1];
}

describe('--metric distance and --metric sqdist', () => {
  const packedPath = join(dir, 'pedigree.packed');
  let numSample = 0;
  let expectedChecksum = '';
  const expectedSquare = { distance: new Float64Array(0), sqdist: new Float64Array(0) };
  beforeAll(() => {
    writePedigreeFileset(join(dir, 'pedigree'), { numFamilies: 3, numUnrelated: 11, numSnp: 1203, missingRate: 0.03, seed: 11 });
    const prepared = runCli(['prepare', '--bfile', join(dir, 'pedigree'), '--individuals', '--out', packedPath]);
    expect(prepared.status, prepared.stderr).toBe(0);
    const sidecar = readSidecar(`${packedPath}.json`);
    numSample = sidecar.numVector;
    const packed = new Uint8Array(readFileSync(packedPath));
    const checksum = new ChecksumAccumulator();
    expectedSquare.distance = new Float64Array(numSample * numSample);
    expectedSquare.sqdist = new Float64Array(numSample * numSample);
    for (let i = 0; i < numSample; i++) {
      for (let j = i + 1; j < numSample; j++) {
        const [ibs0, ibs1] = naiveIbs(packed, sidecar.numField, i, j);
        const entries = [ibs0, ibs1 + 2 * ibs0, ibs1 + 2 * ibs0, ibs1];
        entries.forEach((count, e) => checksum.add(entryUid2(numSample, i, e >> 1, j, e & 1), count * IBS_COUNT_SCALE));
        for (const [metric, value] of [['distance', ibs1 + 2 * ibs0], ['sqdist', ibs1 + 4 * ibs0]] as const) {
          expectedSquare[metric][i * numSample + j] = value;
          expectedSquare[metric][j * numSample + i] = value;
        }
      }
    }
    expectedChecksum = formatChecksum(checksum.sum());
  });

  const decompositions: readonly (readonly string[])[] = [
    [], ['--npv', '3'], ['--npv', '2', '--npr', '2'], ['--npv', '4', '--phases', '2'], ['--npf', '2', '--npv', '2'],
  ];
  for (const backend of ['ref', 'cpu', 'webgpu'] as const) {
    decompositions.forEach((decomposition, d) => {
      for (const metric of ['distance', 'sqdist'] as const) {
        it(`${metric} ${backend} ${decomposition.join(' ') || 'npv 1'}: checksum of the counts and the square matrix are the naive ones`, async () => {
          if (backend === 'webgpu' && !(await webgpuGate()).available) return;
          const stub = join(dir, `${metric}-${backend}-${d}`);
          const outcome = runCli(['run', '--metric', metric, '--input', packedPath, '--backend', backend, ...decomposition,
            '--matrix', 'square', '--matrix-format', 'bin', '--out', stub, '--json']);
          expect(outcome.status, outcome.stderr).toBe(0);
          expect((JSON.parse(outcome.stdout) as { checksum: string }).checksum).toBe(expectedChecksum);
          const bytes = readFileSync(`${stub}.${metric === 'distance' ? 'dist' : 'sqdist'}.bin`);
          expect(Buffer.from(expectedSquare[metric].buffer).equals(bytes)).toBe(true);
        });
      }
    });
  }

  it('records above a distance threshold: the pairs whose naive sqdist exceeds it, with their exact counts', () => {
    const stub = join(dir, 'records');
    // The naive median: about half the pairs are recorded.
    const sorted: number[] = [];
    for (let i = 0; i < numSample; i++) for (let j = i + 1; j < numSample; j++) sorted.push(expectedSquare.sqdist[i * numSample + j]);
    sorted.sort((x, y) => x - y);
    const threshold = sorted[sorted.length >> 1] + 0.5;
    const outcome = runCli(['run', '--metric', 'sqdist', '--input', packedPath, '--threshold', String(threshold), '--npv', '2', '--out', stub, '--json']);
    expect(outcome.status, outcome.stderr).toBe(0);
    expect((JSON.parse(outcome.stdout) as { checksum: string }).checksum).toBe(expectedChecksum);
    const pairs = new Map<string, number[]>();
    for (const rank of [0, 1]) {
      for (const record of readMetricsFileRecords(`${stub}_${rank}.bin`, 2)) {
        const [i, j] = [record.coords[0] >> 1, record.coords[1] >> 1];
        const key = `${Math.min(i, j)},${Math.max(i, j)}`;
        const entries = pairs.get(key) ?? [0, 0, 0, 0];
        entries[2 * (record.coords[0] & 1) + (record.coords[1] & 1)] = record.value / IBS_COUNT_SCALE;
        pairs.set(key, entries);
      }
    }
    const expected = new Set<string>();
    for (let i = 0; i < numSample; i++) for (let j = i + 1; j < numSample; j++) if (expectedSquare.sqdist[i * numSample + j] > threshold) expected.add(`${i},${j}`);
    expect(expected.size).toBeGreaterThan(10);
    expect(expected.size).toBeLessThan((numSample * (numSample - 1)) / 2);
    expect([...pairs.keys()].sort()).toEqual([...expected].sort());
    for (const [key, entries] of pairs) {
      const [i, j] = key.split(',').map(Number);
      expect(entries[IBS_ENTRY.ibs1] + 4 * entries[IBS_ENTRY.ibs0]).toBe(expectedSquare.sqdist[i * numSample + j]);
      expect(entries[IBS_ENTRY.distance01]).toBe(expectedSquare.distance[i * numSample + j]);
    }
  });
});
