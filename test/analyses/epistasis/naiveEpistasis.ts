// The brute-force reference of case-control epistasis: every tuple's table counted sample by sample from the genotypes
// and phenotypes as written (before any reordering), and K2, MI and IG from their textbook definitions (entropies of
// probabilities, log-gamma as a sum of logs), written independently of src/analyses/epistasis.
export type Score = 'k2' | 'mi' | 'ig';

/** A data set: `genotypes[snp·numSample + s]` ∈ {0, 1, 2, 3 = missing}, `phenotypes[s]` ∈ {1 control, 2 case, other missing}. */
export interface CaseControlData {
  readonly numSnp: number;
  readonly numSample: number;
  readonly genotypes: Uint8Array;
  readonly phenotypes: readonly number[];
}

export interface NaiveTuple {
  readonly snps: number[];
  readonly controls: number[];
  readonly cases: number[];
  readonly score: number;
}

/** A tuple's table counted sample by sample (SNPs in the given order, the first slowest). */
export function tableOf(data: CaseControlData, snps: readonly number[]): { controls: number[]; cases: number[] } {
  const numCell = 3 ** snps.length;
  const controls = new Array<number>(numCell).fill(0);
  const cases = new Array<number>(numCell).fill(0);
  for (let s = 0; s < data.numSample; s++) {
    const phenotype = data.phenotypes[s];
    if (phenotype !== 1 && phenotype !== 2) continue;
    const genotypes = snps.map((snp) => data.genotypes[snp * data.numSample + s]);
    if (genotypes.includes(3)) continue;
    const cell = genotypes.reduce((acc, g) => 3 * acc + g, 0);
    (phenotype === 1 ? controls : cases)[cell]++;
  }
  return { controls, cases };
}

function logFactorial(n: number): number {
  let sum = 0;
  for (let m = 2; m <= n; m++) sum += Math.log(m);
  return sum;
}

function entropy(counts: readonly number[]): number {
  const total = counts.reduce((a, b) => a + b, 0);
  let h = 0;
  for (const n of counts) if (n > 0) h -= (n / total) * Math.log2(n / total);
  return h;
}

/** MI(X; Y) in bits of a table, H(X) + H(Y) − H(X, Y). */
function mutualInformation(controls: readonly number[], cases: readonly number[]): number {
  const total = controls.reduce((a, b) => a + b, 0) + cases.reduce((a, b) => a + b, 0);
  if (total === 0) return 0;
  const x = controls.map((n, c) => n + cases[c]);
  const y = [controls.reduce((a, b) => a + b, 0), cases.reduce((a, b) => a + b, 0)];
  return entropy(x) + entropy(y) - entropy([...controls, ...cases]);
}

/** The table of the SNPs `keep` (positions in the tuple) summed over the others. */
function marginal(table: { controls: number[]; cases: number[] }, order: number, keep: readonly number[]): { controls: number[]; cases: number[] } {
  const controls = new Array<number>(3 ** keep.length).fill(0);
  const cases = new Array<number>(3 ** keep.length).fill(0);
  for (let cell = 0; cell < 3 ** order; cell++) {
    const genotypes = Array.from({ length: order }, (_, t) => Math.floor(cell / 3 ** (order - 1 - t)) % 3);
    const m = keep.reduce((acc, t) => 3 * acc + genotypes[t], 0);
    controls[m] += table.controls[cell];
    cases[m] += table.cases[cell];
  }
  return { controls, cases };
}

export function scoreOf(score: Score, table: { controls: number[]; cases: number[] }, order: number): number {
  if (score === 'k2') {
    return table.controls.reduce((sum, n0, c) => sum + logFactorial(n0 + table.cases[c] + 1) - logFactorial(n0) - logFactorial(table.cases[c]), 0);
  }
  const mi = (keep: readonly number[]): number => { const m = marginal(table, order, keep); return mutualInformation(m.controls, m.cases); };
  const all = mutualInformation(table.controls, table.cases);
  if (score === 'mi') return all;
  if (order === 2) return all - mi([0]) - mi([1]);
  if (order === 3) return all - mi([0, 1]) - mi([0, 2]) - mi([1, 2]) + mi([0]) + mi([1]) + mi([2]);
  // 4-way: the Möbius sum over every non-empty subset T of the tuple, (−1)^(4 − |T|) MI(T).
  let sum = all;
  for (let subset = 1; subset < 15; subset++) {
    const keep = [0, 1, 2, 3].filter((t) => (subset >> t) & 1);
    sum += (keep.length % 2 === 0 ? 1 : -1) * mi(keep);
  }
  return sum;
}

/** Every tuple of `order` SNPs with its table and score, strongest first (K2 smallest, MI/IG largest; ties by tuple). */
export function naiveEpistasis(data: CaseControlData, order: 2 | 3 | 4, score: Score): NaiveTuple[] {
  const tuples: NaiveTuple[] = [];
  const n = data.numSnp;
  const add = (snps: number[]): void => { const table = tableOf(data, snps); tuples.push({ snps, ...table, score: scoreOf(score, table, order) }); };
  for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) {
    if (order === 2) add([i, j]);
    else for (let k = j + 1; k < n; k++) {
      if (order === 3) add([i, j, k]);
      else for (let l = k + 1; l < n; l++) add([i, j, k, l]);
    }
  }
  const sign = score === 'k2' ? 1 : -1;
  return tuples.sort((a, b) => (a.score !== b.score ? sign * (a.score - b.score) : a.snps.join(',') < b.snps.join(',') ? -1 : 1));
}

/** A seeded data set with missing calls (rate `missingRate`) and some samples of missing phenotype (0, -9, NA). */
export function randomCaseControlData(numSnp: number, numSample: number, seed: number, missingRate: number): CaseControlData {
  let state = seed >>> 0;
  const uniform = (): number => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 4294967296;
  };
  const genotypes = new Uint8Array(numSnp * numSample);
  for (let t = 0; t < genotypes.length; t++) genotypes[t] = uniform() < missingRate ? 3 : Math.floor(uniform() * 3);
  const phenotypes = Array.from({ length: numSample }, () => { const u = uniform(); return u < 0.45 ? 1 : u < 0.92 ? 2 : u < 0.95 ? 0 : -9; });
  return { numSnp, numSample, genotypes, phenotypes };
}
