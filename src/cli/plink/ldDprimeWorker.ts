// Entry of ldTableChunks.ts's worker thread: PLINK's D/D′ of batches of 3×3 tables (twoLocusLd.ts
// haplotypeLdOfTables), in the order they come, so that the main thread does every other batch.
import { parentPort } from 'node:worker_threads';
import { haplotypeLdOfTables, type DprimeKind } from './twoLocusLd.js';

/** A batch's tables. */
export interface DprimeRequest {
  readonly counts: Uint32Array;
  readonly numPairs: number;
  readonly kind: DprimeKind;
}

/** Its values and extra column. */
export interface DprimeReply {
  readonly values: Float64Array;
  readonly extras: Float64Array;
}

parentPort?.on('message', (request: DprimeRequest) => {
  const values = new ArrayBuffer(8 * request.numPairs);
  const extras = new ArrayBuffer(8 * request.numPairs);
  const reply: DprimeReply = { values: new Float64Array(values), extras: new Float64Array(extras) };
  haplotypeLdOfTables(request.counts, request.numPairs, request.kind, reply.values, reply.extras);
  parentPort?.postMessage(reply, [values, extras]);
});
