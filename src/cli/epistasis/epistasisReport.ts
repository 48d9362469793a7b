// What `snptally epistasis` prints: a summary and one block per tuple (rank, score, SNPs with chromosome:position,
// the table of genotype combinations in controls and cases), or the same as one JSON object.
import type { EpistasisScore } from '../../core/types.js';
import type { EpistasisOrder } from '../../analyses/epistasis/index.js';
import type { PreparedSidecar } from '../../io/index.js';
import type { EpistasisSearchResult } from './epistasisSearch.js';

/** Everything a report shows. */
export interface EpistasisReportInput {
  readonly input: string;
  readonly order: EpistasisOrder;
  readonly score: EpistasisScore;
  readonly sidecar: PreparedSidecar;
  readonly result: EpistasisSearchResult;
  readonly numTuples: number;
}

function snpOf(sidecar: PreparedSidecar, vectorIdx: number): { id: string; chrom: string; pos: number } {
  const snpIdx = sidecar.vectorOrder === null ? vectorIdx : sidecar.vectorOrder.snpOfVector[vectorIdx];
  return { id: sidecar.snps.id[snpIdx], chrom: sidecar.snps.chrom[snpIdx], pos: sidecar.snps.pos[snpIdx] };
}

/** Genotype labels of a table cell, first SNP first: `0/1/2` per SNP (copies of allele 1). */
function cellLabel(cell: number, order: number): string {
  const genotypes: number[] = [];
  for (let t = order - 1, rest = cell; t >= 0; t--, rest = Math.floor(rest / 3)) genotypes[t] = rest % 3;
  return genotypes.join('');
}

/** The JSON object of `--json`. */
export function epistasisJson(report: EpistasisReportInput): object {
  const { sidecar, result } = report;
  return {
    input: report.input, order: report.order, score: report.score, numSnps: sidecar.numVector,
    numControls: sidecar.caseControl?.numControls, numCases: sidecar.caseControl?.numCases,
    numTuples: report.numTuples, seconds: result.run.seconds, tupleSamplesPerSecond: result.run.comparisonsPerSecond,
    // The engine from loaded input to results (GEMMs, finalize, records): what a kernel benchmark compares.
    computeSeconds: result.run.computeSeconds, computeTupleSamplesPerSecond: result.run.computeComparisonsPerSecond,
    deviceFinalizedPairs: result.run.deviceFinalizedPairs, deviceFinalizedTriples: result.run.deviceFinalizedTriples,
    deviceFinalizedQuads: result.run.deviceFinalizedQuads,
    deviceRecordsReadBack: result.run.deviceRecordsReadBack,
    backend: result.run.backend, kernelSets: result.run.rankDevices.map((device) => device.kernelSet),
    candidates: result.numCandidates, engineRuns: result.numEngineRuns,
    top: result.hits.map((hit, rank) => ({
      rank: rank + 1, score: hit.score, snps: hit.vectors.map((v) => snpOf(sidecar, v)), vectors: hit.vectors,
      controls: hit.table.controls, cases: hit.table.cases,
    })),
  };
}

/** The text report. */
export function formatEpistasisText(report: EpistasisReportInput): string {
  const { sidecar, result, order } = report;
  const caseControl = sidecar.caseControl;
  const lines = [
    `epistasis ${order}-way ${report.score} of ${report.input}: ${sidecar.numVector} SNPs, ${caseControl?.numControls} controls, ` +
    `${caseControl?.numCases} cases (${caseControl?.phenotypes})`,
    `${report.numTuples} tuples in ${result.run.seconds.toFixed(2)} s (${result.run.comparisonsPerSecond.toExponential(3)} tuples·samples/s, ` +
    `${result.run.rankDevices.map((device) => device.kernelSet).join(', ')})`,
  ];
  result.hits.forEach((hit, rank) => {
    const snps = hit.vectors.map((v) => { const snp = snpOf(sidecar, v); return `${snp.id} (${snp.chrom}:${snp.pos})`; });
    lines.push('', `#${rank + 1}  ${report.score} ${hit.score.toPrecision(10)}  ${snps.join('  ')}`);
    lines.push(`  genotypes ${Array.from({ length: 3 ** order }, (_, c) => cellLabel(c, order).padStart(5)).join('')}`);
    lines.push(`  controls  ${hit.table.controls.map((n) => String(n).padStart(5)).join('')}`);
    lines.push(`  cases     ${hit.table.cases.map((n) => String(n).padStart(5)).join('')}`);
  });
  return `${lines.join('\n')}\n`;
}
