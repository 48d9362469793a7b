// Per-rank metrics files: names, temporary-then-rename writing, discard, existing outputs and read-back.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UserError } from '../../src/core/errors.js';
import {
  MetricsFileWriter,
  countMetricsRecords,
  encodeMetricCoord,
  findExistingOutputs,
  metricsFilePath,
  readMetricsFileChunks,
  readMetricsFileRecords,
} from '../../src/io/index.js';

const workDir = mkdtempSync(join(tmpdir(), 'snptally-metrics-'));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

function freshDir(name: string): string {
  const dir = join(workDir, name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  return dir;
}

describe('metricsFilePath', () => {
  it('pads the rank to the digits of the rank count', () => {
    expect(metricsFilePath('out/run', 0, 1)).toBe('out/run_0.bin');
    expect(metricsFilePath('run', 7, 9)).toBe('run_7.bin');
    expect(metricsFilePath('run', 3, 10)).toBe('run_03.bin');
    expect(metricsFilePath('run', 99, 100)).toBe('run_099.bin');
  });

  it('rejects a rank outside the run', () => {
    expect(() => metricsFilePath('run', 4, 4)).toThrow(RangeError);
  });
});

/** Records as the writer takes them: numWay coordinates, then the value's float32 bits, per record. */
function recordWords(coords: Uint32Array, values: Float32Array, numWay: number): Uint32Array {
  const words = new Uint32Array(values.length * (numWay + 1));
  const asFloats = new Float32Array(words.buffer);
  for (let r = 0; r < values.length; r++) {
    for (let w = 0; w < numWay; w++) words[r * (numWay + 1) + w] = coords[r * numWay + w];
    asFloats[r * (numWay + 1) + numWay] = values[r];
  }
  return words;
}

describe('MetricsFileWriter', () => {
  it('writes little-endian u32 coordinates then a float32 value, only under the final name after commit', () => {
    const dir = freshDir('layout');
    const finalPath = join(dir, 'run_0.bin');
    const writer = MetricsFileWriter.create(finalPath, 2);
    writer.appendRecordWords(recordWords(new Uint32Array([encodeMetricCoord(1, 0), encodeMetricCoord(3, 1)]), new Float32Array([0.5]), 2), 1);
    expect(existsSync(finalPath)).toBe(false);
    writer.finish();
    expect(existsSync(finalPath)).toBe(false);
    expect(existsSync(writer.temporaryPath)).toBe(true);
    expect(findExistingOutputs(join(dir, 'run'))).toEqual([]);
    writer.commit();
    expect(readdirSync(dir)).toEqual(['run_0.bin']);
    const bytes = readFileSync(finalPath);
    expect([...bytes]).toEqual([2, 0, 0, 0, 7, 0, 0, 0, 0x00, 0x00, 0x00, 0x3f]);
  });

  it('appendRecordWords writes each record as little-endian coordinates and float32, across buffer boundaries', () => {
    const dir = freshDir('recordwords');
    const numRecords = 777;
    const coords = new Uint32Array(numRecords * 2).map((_, i) => (i * 2654435761) >>> 0);
    const values = new Float32Array(numRecords).map((_, i) => (i - 300) / 7);
    const words = recordWords(coords, values, 2);
    const writer = MetricsFileWriter.create(join(dir, 'w_0.bin'), 2, { bufferBytes: 36 });
    // Buffered; then the buffer filled and the rest straight from the words (a view at an offset); then straight.
    writer.appendRecordWords(words.subarray(0, 3), 1);
    writer.appendRecordWords(words.subarray(3, 100 * 3), 99);
    writer.appendRecordWords(words.subarray(100 * 3), numRecords - 100);
    expect(writer.numRecordsWritten).toBe(numRecords);
    expect(() => writer.appendRecordWords(words.subarray(0, 5), 2)).toThrow(RangeError);
    writer.finish();
    writer.commit();
    const written = readFileSync(join(dir, 'w_0.bin'));
    expect(written.length).toBe(numRecords * 12);
    const view = new DataView(written.buffer, written.byteOffset, written.byteLength);
    for (let r = 0; r < numRecords; r++) {
      expect(view.getUint32(12 * r, true)).toBe(coords[2 * r]);
      expect(view.getUint32(12 * r + 4, true)).toBe(coords[2 * r + 1]);
      expect(view.getFloat32(12 * r + 8, true)).toBe(values[r]);
    }
  });

  it('flushes across many small buffers and reads every record back in order', () => {
    const dir = freshDir('roundtrip');
    const finalPath = join(dir, 'r_0.bin');
    const writer = MetricsFileWriter.create(finalPath, 3, { bufferBytes: 40 }); // 2 records per flush
    const numRecords = 1001;
    const coords = new Uint32Array(numRecords * 3).map((_, i) => i * 2654435761 >>> 0);
    const values = new Float32Array(numRecords).map((_, i) => i / 7);
    const words = recordWords(coords, values, 3);
    writer.appendRecordWords(words.subarray(0, 300 * 4), 300);
    writer.appendRecordWords(words.subarray(300 * 4), numRecords - 300);
    expect(writer.numRecordsWritten).toBe(numRecords);
    writer.finish();
    writer.commit();
    expect(countMetricsRecords(finalPath, 3)).toBe(numRecords);
    let seen = 0;
    for (const chunk of readMetricsFileChunks(finalPath, 3, 64)) {
      for (let r = 0; r < chunk.numRecords; r++, seen++) {
        expect(Array.from(chunk.coords.subarray(r * 3, r * 3 + 3))).toEqual(Array.from(coords.subarray(seen * 3, seen * 3 + 3)));
        expect(chunk.values[r]).toBe(values[seen]);
      }
    }
    expect(seen).toBe(numRecords);
    const first = readMetricsFileRecords(finalPath, 3).next();
    expect(first.done).toBe(false);
    if (!first.done) expect(first.value.coords).toEqual([coords[0], coords[1], coords[2]]);
  });

  it('discard removes the temporary file and leaves nothing that looks finished', () => {
    const dir = freshDir('discard');
    const writer = MetricsFileWriter.create(join(dir, 'x_0.bin'), 2);
    const record = recordWords(new Uint32Array([0, 2]), new Float32Array([1]), 2);
    writer.appendRecordWords(record, 1);
    writer.discard();
    writer.discard();
    expect(readdirSync(dir)).toEqual([]);
    expect(() => writer.appendRecordWords(record, 1)).toThrow();
  });

  it('reports an output directory that does not exist as a UserError naming it', () => {
    const missingDir = join(workDir, 'no-such-dir');
    expect(() => MetricsFileWriter.create(join(missingDir, 'x_0.bin'), 2)).toThrow(UserError);
    expect(() => MetricsFileWriter.create(join(missingDir, 'x_0.bin'), 2)).toThrow(`directory ${missingDir} does not exist`);
  });

  it('rejects arrays shorter than the record count', () => {
    const dir = freshDir('short-arrays');
    const writer = MetricsFileWriter.create(join(dir, 'x_0.bin'), 2);
    expect(() => writer.appendRecordWords(new Uint32Array(5), 2)).toThrow(RangeError);
    writer.discard();
  });
});

describe('findExistingOutputs', () => {
  it('lists finished files of the stub only, sorted', () => {
    const dir = freshDir('existing');
    for (const name of ['run_1.bin', 'run_0.bin', 'run_0.bin.123-ab.tmp', 'run2_0.bin', 'run_x.bin', 'other.bin']) {
      writeFileSync(join(dir, name), '');
    }
    expect(findExistingOutputs(join(dir, 'run'))).toEqual([join(dir, 'run_0.bin'), join(dir, 'run_1.bin')]);
    expect(findExistingOutputs(join(dir, 'missing'))).toEqual([]);
    expect(findExistingOutputs(join(workDir, 'no-such-dir', 'run'))).toEqual([]);
  });

  it('spells paths like metricsFilePath does, so they compare equal as strings', () => {
    const dir = freshDir('spelling');
    const stub = `${dir}/./run`;
    writeFileSync(metricsFilePath(stub, 1, 2), '');
    expect(findExistingOutputs(stub)).toEqual([metricsFilePath(stub, 1, 2)]);
  });

  it('treats regular-expression characters in the stub literally', () => {
    const dir = freshDir('regexp');
    writeFileSync(join(dir, 'a.b_0.bin'), '');
    writeFileSync(join(dir, 'axb_0.bin'), '');
    expect(findExistingOutputs(join(dir, 'a.b'))).toEqual([join(dir, 'a.b_0.bin')]);
  });
});

describe('countMetricsRecords', () => {
  it('rejects a file that is not a whole number of records, suggesting --way', () => {
    const path = join(workDir, 'ragged.bin');
    writeFileSync(path, new Uint8Array(16));
    expect(countMetricsRecords(path, 3)).toBe(1);
    expect(() => countMetricsRecords(path, 2)).toThrow(/--way/);
  });
});
