// Case-control PLINK filesets with a planted 2-, 3- or 4-way interaction (issue 27): genotypes in Hardy–Weinberg
// proportions at one MAF, a penetrance f(g) = K·(1 + s·z(g)/max|z|) over the planted SNPs' genotypes g with E[z] = 0
// (so the prevalence is K), and cases and controls drawn from that population until both are full.
//
// z of the `pure` model is Π_t (g_t − 2p): every marginal table of fewer than all planted SNPs is flat (Σ_g P(g)(g − 2p)
// = 0), an interaction without marginal effects; of the `marginal` model Π_t g_t − (2p)^k, which has them. The strength
// s follows from the heritability on the liability scale of the penetrance: h² = Var f(G) / (K(1 − K)).
import { writeFileSync } from 'node:fs';
import { mulberry32 } from '../../src/core/seededRandom.js';

export type PenetranceModel = 'pure' | 'marginal';

export interface EpistasisSimulation {
  readonly numSnp: number;
  readonly numCases: number;
  readonly numControls: number;
  readonly maf: number;
  readonly prevalence: number;
  readonly heritability: number;
  readonly model: PenetranceModel;
  /** 0-based SNP indices of the interaction (2 to 4 of them). */
  readonly planted: readonly number[];
  /** Fraction of calls set missing at random (after the phenotype is drawn). */
  readonly missingRate: number;
  readonly seed: number;
}

/** What was written: the penetrance table over the planted genotypes (first SNP slowest) and its strength. */
export interface SimulationReport {
  readonly planted: readonly number[];
  readonly penetrance: readonly number[];
  readonly strength: number;
  readonly draws: number;
}


/** The penetrance table of a model (3^k entries) and its strength s; throws when no s reaches the heritability. */
export function penetranceTable(sim: Pick<EpistasisSimulation, 'maf' | 'prevalence' | 'heritability' | 'model' | 'planted'>): { table: number[]; strength: number } {
  const k = sim.planted.length;
  const p = sim.maf;
  const genotypeProb = [(1 - p) * (1 - p), 2 * p * (1 - p), p * p];
  const numCell = 3 ** k;
  const z: number[] = [];
  const prob: number[] = [];
  for (let cell = 0; cell < numCell; cell++) {
    let product = 1, centred = 1, probability = 1;
    for (let t = 0, rest = cell; t < k; t++) {
      const g = Math.floor(rest / 3 ** (k - 1 - t)) % 3;
      product *= g;
      centred *= g - 2 * p;
      probability *= genotypeProb[g];
    }
    z.push(sim.model === 'pure' ? centred : product - (2 * p) ** k);
    prob.push(probability);
  }
  const mean = z.reduce((sum, value, cell) => sum + value * prob[cell], 0);
  const centredZ = z.map((value) => value - mean);
  const zMax = Math.max(...centredZ.map(Math.abs));
  const variance = centredZ.reduce((sum, value, cell) => sum + value * value * prob[cell], 0) / (zMax * zMax);
  const K = sim.prevalence;
  const strength = Math.sqrt((sim.heritability * K * (1 - K)) / (K * K * variance));
  // Penetrances K·(1 ± s) stay in [0, 1] for s ≤ min(1, (1 − K)/K); h² = s²·K·variance/(1 − K).
  const maxStrength = Math.min(1, (1 - K) / K);
  if (!(strength <= maxStrength)) {
    const maxHeritability = (maxStrength * maxStrength * K * variance) / (1 - K);
    throw new Error(
      `heritability ${sim.heritability} needs strength ${strength.toFixed(3)}, above ${maxStrength.toFixed(3)} where penetrances leave [0, 1]: ` +
      `this model (MAF ${p}, prevalence ${K}) reaches at most h² ${maxHeritability.toPrecision(3)}`,
    );
  }
  return { table: centredZ.map((value) => K * (1 + (strength * value) / zMax)), strength };
}

function drawGenotype(uniform: () => number, p: number): number {
  return (uniform() < p ? 1 : 0) + (uniform() < p ? 1 : 0);
}

/** Writes `<prefix>.bed/.bim/.fam` (controls first, then cases; .fam column 6 = 1 or 2). */
export function simulateEpistasis(prefix: string, sim: EpistasisSimulation): SimulationReport {
  if (sim.planted.length < 2 || sim.planted.length > 4 || new Set(sim.planted).size !== sim.planted.length ||
    sim.planted.some((s) => !Number.isInteger(s) || s < 0 || s >= sim.numSnp)) {
    throw new Error(`planted SNPs ${sim.planted.join(',')}: 2 to 4 distinct indices below ${sim.numSnp}`);
  }
  const uniform = mulberry32(sim.seed);
  const { table, strength } = penetranceTable(sim);
  const numSample = sim.numControls + sim.numCases;
  const k = sim.planted.length;
  const plantedGenotypes = new Uint8Array(numSample * k);
  let numControls = 0, numCases = 0, draws = 0;
  const drawn = new Uint8Array(k);
  while (numControls < sim.numControls || numCases < sim.numCases) {
    draws++;
    let cell = 0;
    for (let t = 0; t < k; t++) {
      drawn[t] = drawGenotype(uniform, sim.maf);
      cell = 3 * cell + drawn[t];
    }
    const isCase = uniform() < table[cell];
    if (isCase ? numCases >= sim.numCases : numControls >= sim.numControls) continue;
    const sample = isCase ? sim.numControls + numCases++ : numControls++;
    plantedGenotypes.set(drawn, sample * k);
  }
  const bytesPerSnp = Math.ceil(numSample / 4);
  const bed = new Uint8Array(3 + sim.numSnp * bytesPerSnp);
  bed.set([0x6c, 0x1b, 0x01]);
  // .bed codes of allele-1 copies 0, 1, 2 (A1 counted, SPEC §1) and missing.
  const BED_CODE = [0b11, 0b10, 0b00];
  const BED_MISSING = 0b01;
  for (let snp = 0; snp < sim.numSnp; snp++) {
    const plantedAt = sim.planted.indexOf(snp);
    for (let sample = 0; sample < numSample; sample++) {
      const g = plantedAt >= 0 ? plantedGenotypes[sample * k + plantedAt] : drawGenotype(uniform, sim.maf);
      const code = sim.missingRate > 0 && uniform() < sim.missingRate ? BED_MISSING : BED_CODE[g];
      bed[3 + snp * bytesPerSnp + (sample >> 2)] |= code << ((sample & 3) * 2);
    }
  }
  writeFileSync(`${prefix}.bed`, bed);
  writeFileSync(`${prefix}.bim`, Array.from({ length: sim.numSnp }, (_, snp) => `1\trs${snp}\t0\t${1000 * (snp + 1)}\tA\tG\n`).join(''));
  writeFileSync(`${prefix}.fam`, Array.from({ length: numSample }, (_, sample) =>
    `f${sample}\ti${sample}\t0\t0\t${1 + (sample % 2)}\t${sample < sim.numControls ? 1 : 2}\n`).join(''));
  return { planted: sim.planted, penetrance: table, strength, draws };
}
