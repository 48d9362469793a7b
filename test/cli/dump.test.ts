// `snptally dump`: TSV of records written by the io writer, for 2-way and 3-way files.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MetricsFileWriter, encodeMetricCoord, metricsFilePath } from '../../src/io/index.js';
import { runCli } from './cliHarness.js';

const workDir = mkdtempSync(join(tmpdir(), 'snptally-dump-'));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

function writeMetrics(path: string, numWay: 2 | 3, records: ReadonlyArray<readonly [number[], number[], number]>): void {
  const writer = MetricsFileWriter.create(path, numWay);
  for (const [vectors, bits, value] of records) {
    const words = new Uint32Array(numWay + 1);
    vectors.forEach((vectorIdx, w) => { words[w] = encodeMetricCoord(vectorIdx, bits[w]); });
    new Float32Array(words.buffer)[numWay] = value;
    writer.appendRecordWords(words, 1);
  }
  writer.finish();
  writer.commit();
}

describe('snptally dump', () => {
  it('prints 2-way records of several files as i j entry value: in file order with --sort file, else sorted by position under a header', () => {
    const stub = join(workDir, 'two');
    writeMetrics(metricsFilePath(stub, 0, 2), 2, [[[0, 1], [0, 1], 0.1], [[2, 47], [1, 1], 1.5]]);
    writeMetrics(metricsFilePath(stub, 1, 2), 2, [[[5, 3], [1, 0], 0]]);
    const outcome = runCli(['dump', '--sort', 'file', '--no-header', metricsFilePath(stub, 0, 2), metricsFilePath(stub, 1, 2)]);
    // Without a run-info file or --way, it says what it assumed (after the records).
    expect(outcome.stderr).toBe(`snptally: no run-info file beside ${metricsFilePath(stub, 0, 2)}: read as 2-way records (give --way to say)\n`);
    expect(outcome.status).toBe(0);
    expect(outcome.stdout).toBe('0\t1\t01\t0.1\n2\t47\t11\t1.5\n5\t3\t10\t0\n');
    // Sorted: each record's vectors ascending (entry bits moved with them), then records by vector, then by value.
    const sorted = runCli(['dump', '--way', '2', metricsFilePath(stub, 1, 2), metricsFilePath(stub, 0, 2)]);
    expect(sorted.status, sorted.stderr).toBe(0);
    expect(sorted.stdout).toBe('i\tj\tentry\tvalue\n0\t1\t01\t0.1\n2\t47\t11\t1.5\n3\t5\t01\t0\n');
    const byValue = runCli(['dump', '--way', '2', '--sort', 'value', '--no-header', metricsFilePath(stub, 1, 2), metricsFilePath(stub, 0, 2)]);
    expect(byValue.stdout).toBe('2\t47\t11\t1.5\n0\t1\t01\t0.1\n3\t5\t01\t0\n');
  });

  it('prints 3-way records with a header (also when asked for), the vectors of each in ascending order', () => {
    const path = join(workDir, 'three_0.bin');
    writeMetrics(path, 3, [[[7, 2, 2147483647], [1, 1, 0], 0.333333343267]]);
    const outcome = runCli(['dump', '--way', '3', '--header', path]);
    expect(outcome.status).toBe(0);
    expect(outcome.stdout).toBe('i\tj\tk\tentry\tvalue\n2\t7\t2147483647\t110\t0.33333334\n');
  });

  it('refuses a file that is not a whole number of records of the given way', () => {
    const path = join(workDir, 'ragged_0.bin');
    writeFileSync(path, new Uint8Array(16));
    const outcome = runCli(['dump', path]);
    expect(outcome.status).toBe(1);
    expect(outcome.stderr).toMatch(/^snptally: metrics file .*ragged_0\.bin has 16 bytes.*--way/);
  });
});
