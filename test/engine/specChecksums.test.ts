// Every SPEC §5 reference checksum, on both CPU backends, on one rank.
import { describe, expect, it } from 'vitest';
import { runJob } from '../../src/engine/index.js';
import { makeJob, SPEC_CASES } from './jobFixtures.js';

describe('SPEC §5 reference checksums', () => {
  for (const backend of ['ref', 'cpu'] as const) {
    for (const c of SPEC_CASES) {
      it(`${c.name} (${backend})`, async () => {
        const result = await runJob(makeJob({ ...c.job, backend }));
        expect(result.checksum).toBe(c.checksum);
      });
    }
  }
});
