// Engine output against the naive field-by-field reference: every value of every written record,
// the checksum, thresholds, dense and sparse, CCC and DUO, 2-way and 3-way, odd sizes.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { randomProblemCode } from '../../src/core/syntheticProblems.js';
import { runJob } from '../../src/engine/index.js';
import { readMetricsFileRecords } from '../../src/io/index.js';
import { naiveMetrics } from '../helpers/naiveMetrics.js';
import { makeJob } from './jobFixtures.js';

const dir = mkdtempSync(join(tmpdir(), 'snptally-naive-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const cases = [
  { metric: 'ccc', numWay: 2, sparse: false, numVector: 23, numField: 131, threshold: null },
  { metric: 'ccc', numWay: 2, sparse: true, numVector: 17, numField: 65, threshold: 0.3 },
  { metric: 'duo', numWay: 2, sparse: false, numVector: 19, numField: 33, threshold: null },
  { metric: 'duo', numWay: 2, sparse: true, numVector: 9, numField: 257, threshold: 0.5 },
  { metric: 'ccc', numWay: 3, sparse: false, numVector: 11, numField: 97, threshold: null },
  { metric: 'ccc', numWay: 3, sparse: true, numVector: 10, numField: 45, threshold: 0.1 },
  { metric: 'duo', numWay: 3, sparse: true, numVector: 8, numField: 31, threshold: null },
  { metric: 'duo', numWay: 3, sparse: false, numVector: 7, numField: 200, threshold: 0 },
] as const;

describe('engine equals the naive reference', () => {
  let n = 0;
  for (const c of cases) {
    for (const backend of ['ref', 'cpu'] as const) {
      const name = `${c.metric} ${c.numWay}-way ${c.sparse ? 'sparse' : 'dense'} nv ${c.numVector} nf ${c.numField} t ${c.threshold} (${backend})`;
      it(name, async () => {
        const stub = join(dir, `run${n++}`);
        const decomposition = { numProcVector: 2, numProcField: 2 };
        const job = makeJob({ ...c, backend, outputStub: stub, decomposition });
        const result = await runJob(job);
        const naive = naiveMetrics(job.metricSpec, c.numVector, c.numField,
          (v, f) => randomProblemCode(v, f, c.numField), { keepValues: true, threshold: c.threshold });
        expect(result.checksum).toBe(naive.checksum);
        expect(result.entries).toBe(naive.entries);
        expect(result.zeros).toBe(naive.zeros);
        const seen = new Set<string>();
        for (const file of result.outputFiles) {
          for (const record of readMetricsFileRecords(file, c.numWay)) {
            // Coordinates are 2·G + E; naive keys list vectors ascending with their entry bits.
            const pairs = record.coords.map((x) => [x >> 1, x & 1] as const).sort((a, b) => a[0] - b[0]);
            const key = `${pairs.map((p) => p[0]).join(',')},${pairs.map((p) => p[1]).join('')}`;
            expect(seen.has(key)).toBe(false);
            seen.add(key);
            const want = naive.values.get(key);
            expect(want, key).toBeDefined();
            expect(record.value).toBe(Math.fround(want as number));
          }
        }
        expect(seen.size).toBe(naive.values.size);
      });
    }
  }
});
