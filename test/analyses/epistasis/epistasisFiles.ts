// Writes a CaseControlData as a PLINK fileset (.fam column 6 the phenotype) and prepares it for the epistasis search;
// the decompositions the search tests run under.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { EpistasisSearchOptions } from '../../../src/cli/epistasis/epistasisSearch.js';
import { prepareGenotypeFile } from '../../../src/cli/genotypePreparation.js';
import { SELECT_ALL, type PreparedSidecar } from '../../../src/io/index.js';
import type { CaseControlData } from './naiveEpistasis.js';

/** .bed codes of 0, 1, 2 copies of A1 and missing (SPEC §1 inverted). */
const BED_CODE = [0b11, 0b10, 0b00, 0b01];

export function writeCaseControlFileset(prefix: string, data: CaseControlData): void {
  const bytesPerSnp = Math.ceil(data.numSample / 4);
  const bed = new Uint8Array(3 + data.numSnp * bytesPerSnp);
  bed.set([0x6c, 0x1b, 0x01]);
  for (let snp = 0; snp < data.numSnp; snp++) for (let s = 0; s < data.numSample; s++) {
    bed[3 + snp * bytesPerSnp + (s >> 2)] |= BED_CODE[data.genotypes[snp * data.numSample + s]] << ((s & 3) * 2);
  }
  writeFileSync(`${prefix}.bed`, bed);
  writeFileSync(`${prefix}.bim`, Array.from({ length: data.numSnp }, (_, v) => `2\tsnp${v}\t0\t${100 + v}\tA\tG\n`).join(''));
  writeFileSync(`${prefix}.fam`, data.phenotypes.map((p, s) => `F${s} I${s} 0 0 0 ${p === 0 && s % 2 === 1 ? 'NA' : p}\n`).join(''));
}

export async function prepareCaseControl(prefix: string, packedPath: string): Promise<PreparedSidecar> {
  return prepareGenotypeFile(prefix, packedPath, { onBadSite: 'error', permuteSeed: null, selection: SELECT_ALL, caseControl: { pheno: null, phenoName: null } });
}

/** A prepared case-control file and its sidecar, as the search takes them. */
export type SearchFiles = { readonly packedPath: string; readonly sidecar: PreparedSidecar };

/** `data` written as `<dir>/<name>.bed/.bim/.fam` and prepared with `--case-control` as `<dir>/<name>.packed`. */
export async function preparedCaseControl(dir: string, name: string, data: CaseControlData): Promise<SearchFiles> {
  const prefix = join(dir, name);
  writeCaseControlFileset(prefix, data);
  const packedPath = `${prefix}.packed`;
  return { packedPath, sidecar: await prepareCaseControl(prefix, packedPath) };
}

export type Decomposition = EpistasisSearchOptions['decomposition'];

/** One rank, phase and stage, but for `parts` (the last phase and stage follow their counts). */
export function decomposition(parts: Partial<Decomposition>): Decomposition {
  const merged = {
    numProcVector: 1, numProcField: 1, numProcRepl: 1, numPhase: 1, phaseMin: 0, phaseMax: 0, numStage: 1, stageMin: 0, stageMax: 0,
    halfDiagonal: 'lower-rows' as const, ...parts,
  };
  return { ...merged, phaseMax: merged.numPhase - 1, stageMax: merged.numStage - 1 };
}
