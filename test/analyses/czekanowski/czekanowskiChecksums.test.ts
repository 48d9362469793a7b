// SPEC §8's reference checksums through the engine: ref, cpu and webgpu kernel sets, npv 1–5, npr 1–2, phases and
// stages (whole and one run per phase/stage, summed), 1 and 2 threads; the analytic problems verify every value.
import { describe, expect, it } from 'vitest';
import { webgpuGate } from '../../helpers/webgpuGate.js';
import { runJob, type DecompositionSpec } from '../../../src/engine/index.js';
import { SPEC8_CHECKSUMS } from './naiveReference.test.js';
import { czekanowskiJob } from './czekanowskiJobs.js';
import { MIN_PLUS_REF_NAME, MIN_PLUS_WEBGPU_NAME, minPlusWasmName } from '../../../src/mgemm/index.js';

const gate = await webgpuGate();
/** webgpu where an adapter exists (CI: lavapipe, where every rank opens a device and compiles its programs). */
const BACKENDS = gate.available ? (['ref', 'cpu', 'webgpu'] as const) : (['ref', 'cpu'] as const);

const DECOMPOSITIONS: readonly (Partial<DecompositionSpec> & { numThreads?: number })[] = [
  {}, { numProcVector: 2 }, { numProcVector: 3 }, { numProcVector: 4 }, { numProcVector: 5 },
  { numProcVector: 2, numProcRepl: 2 }, { numProcVector: 3, numProcRepl: 2, numThreads: 2 },
  { numProcVector: 3, numPhase: 2 }, { numProcVector: 4, numStage: 3 },
];

/** Runs every phase and stage of `d` as a run of its own and sums the checksums (SPEC §5 is a plain sum). */
async function summedChecksum(job: Parameters<typeof czekanowskiJob>[0], d: Partial<DecompositionSpec>): Promise<string> {
  let s = 0n;
  for (let p = 0; p < (d.numPhase ?? 1); p++) {
    for (let t = 0; t < (d.numStage ?? 1); t++) {
      const r = await runJob(czekanowskiJob({ ...job, decomposition: { ...d, phaseMin: p, phaseMax: p, stageMin: t, stageMax: t } }));
      const [hi, mid, lo] = r.checksum.split('-').map(BigInt);
      s += (hi << 120n) + (mid << 60n) + lo;
    }
  }
  const m = (1n << 60n) - 1n;
  return `${s >> 120n}-${(s >> 60n) & m}-${s & m}`;
}

describe('Czekanowski: SPEC §8 checksums through the engine', () => {
  for (const c of SPEC8_CHECKSUMS) {
    const source = { kind: c.values };
    for (const backend of BACKENDS) {
      for (const { numThreads, ...d } of DECOMPOSITIONS) {
        if (c.numWay === 2 && d.numStage !== undefined) continue;
        it(`${c.numWay}-way ${c.values} ${c.precision}, ${backend}, ${JSON.stringify(d)}${numThreads ? ` ${numThreads} threads` : ''}`, async () => {
          const job = { numWay: c.numWay, numVector: c.numVector, numField: 100, source, precision: c.precision, backend, numThreads };
          const result = await runJob(czekanowskiJob({ ...job, decomposition: d, verify: c.values === 'analytic' }));
          expect(result.checksum).toBe(c.checksum);
          // `cpu` runs the wasm SIMD kernels here (the JS blocked ones only where wasm SIMD is missing).
          const kernelSets = { ref: MIN_PLUS_REF_NAME, cpu: minPlusWasmName(c.precision), webgpu: MIN_PLUS_WEBGPU_NAME };
          expect(result.rankDevices[0].kernelSet).toBe(kernelSets[backend]);
          const numTuples = c.numWay === 2 ? (c.numVector * (c.numVector - 1)) / 2 : (c.numVector * (c.numVector - 1) * (c.numVector - 2)) / 6;
          expect(result.entries).toBe(numTuples);
          if (c.values === 'analytic') expect(result.verifiedValues).toBe(numTuples);
        });
      }
    }
    it(`${c.numWay}-way ${c.values} ${c.precision}: one run per phase and stage sums to the checksum`, async () => {
      const d = c.numWay === 2 ? { numProcVector: 3, numPhase: 2 } : { numProcVector: 2, numPhase: 2, numStage: 2 };
      expect(await summedChecksum({ numWay: c.numWay, numVector: c.numVector, numField: 100, source, precision: c.precision }, d)).toBe(c.checksum);
    });
  }
});
