// The contract's per-vector sums (vectorSums) on the device: the matrix is uploaded (and stays resident for the
// requests that follow), one workgroup per row sums its count planes (and mask plane) with the vector-sums program,
// and only two words per row come back.

import type { VectorSums, VectorSumsRequest } from '../../contract.js';
import { checkVectorSumsRequest } from '../../requestChecks.js';
import type { ResidentPlanes } from './operands/residentPlanes.js';
import type { ProgramLibrary } from './programs/programLibrary.js';
import { foldWorkgroups, settled, type Dispatch, type Pending, type WebgpuRunner } from './runtime/webgpuRunner.js';

/** What the vector sums use of the kernel set. */
export interface VectorSumsHost {
  readonly runner: WebgpuRunner;
  readonly resident: ResidentPlanes;
  readonly programs: ProgramLibrary;
  /** A named scratch buffer of at least numBytes, shared by all requests. */
  scratchBuffer(name: string, numBytes: number): GPUBuffer;
}

/** Submits the sums of a request; collect() gives each row's sum and count. */
export async function submitVectorSums(host: VectorSumsHost, request: VectorSumsRequest): Promise<Pending<VectorSums>> {
  checkVectorSumsRequest(request, { codeRows: true });
  const { planes, countPlanes, maskPlane } = request;
  const n = planes.numVectors;
  if (n === 0 || planes.wordsPerPlane === 0) return settled({ sums: new Float64Array(n), counts: new Float64Array(n) });
  const program = host.programs.vectorSums(planes.numPlanes, request);
  const chunks = await host.resident.chunksOf(planes, [planes], request.rowsReady);
  const output = host.scratchBuffer('vectorSums', 8 * n);
  const maxPerDimension = host.runner.capabilities.maxComputeWorkgroupsPerDimension;
  const dispatches: Dispatch[] = chunks.map((chunk) => {
    const workgroups = foldWorkgroups(chunk.numRows, maxPerDimension);
    return {
      program, storage: [chunk.buffer, output], workgroups,
      uniforms: { numRows: chunk.numRows, outRowFirst: chunk.firstRow, vec4PerPlane: planes.wordsPerPlane / 4, numWorkgroupsX: workgroups[0] },
    };
  });
  const pending = await host.runner.submitWithReadBack(dispatches, [{ buffer: output, numBytes: 8 * n }]);
  return {
    collect: async () => {
      const [words] = await pending.collect();
      const sums = new Float64Array(n);
      const counts = new Float64Array(n);
      for (let r = 0; r < n; r++) {
        sums[r] = words[2 * r];
        counts[r] = words[2 * r + 1];
      }
      return { sums, counts };
    },
  };
}
