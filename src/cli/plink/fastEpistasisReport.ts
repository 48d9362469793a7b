// `snptally plink … --fast-epistasis [boost]`: PLINK 1.9's case-control pair test over every pair of SNPs, written
// as PLINK writes it: <out>.epi.cc (pairs with p below --epi1, in file order), <out>.epi.cc.summary (per SNP: pairs
// past --epi2, pairs tested, the best partner) and <out>.log. The pair tables come from the prepared, case-control
// ordered packed file (samples missing at either SNP left out, as PLINK does); the statistics are fastEpistasisStats.ts.
import type { PreparedSidecar } from '../../io/index.js';
import { formatPlinkNumber, plinkChromosomeText, plinkSnpColumnWidth } from '../../io/index.js';
import { GenotypeRows, MISSING_GENOTYPE } from '../epistasis/tupleTables.js';
import { boostChisq, chiSquareUpperTail, fastEpistasisP, fastEpistasisZsq, inverseChiSquare, ltqnorm } from './fastEpistasisStats.js';

/** What the test computes and keeps: `boost` or PLINK's default statistic, --epi1 and --epi2. */
export interface FastEpistasisSettings {
  readonly boost: boolean;
  readonly epi1: number;
  readonly epi2: number;
}

/** The two files' text and the number of valid tests. */
export interface FastEpistasisOutput {
  readonly pairsText: string;
  readonly summaryText: string;
  readonly numValidTests: number;
  readonly numSkippedSnps: number;
}

/** PLINK's haploid chromosomes (X, Y, MT as canonical codes), left out of the test. */
const HAPLOID = new Set(['23', '24', '26']);

/** 4 significant digits, %g-like (PLINK's dtoa_g_wxp4: fixed from 1e-4 up to 9999.5, else exponential). */
export function formatG4(x: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (x === 0) return '0';
  const magnitude = Math.abs(x);
  if (magnitude < 9.9995e-5 || magnitude >= 99999.5) {
    const [mantissa, exponent] = x.toExponential(3).split('e');
    const digits = mantissa.includes('.') ? mantissa.replace(/0+$/, '').replace(/\.$/, '') : mantissa;
    const power = Number(exponent);
    return `${digits}e${power < 0 ? '-' : '+'}${String(Math.abs(power)).padStart(2, '0')}`;
  }
  const fixed = x.toPrecision(4);
  return fixed.includes('.') ? fixed.replace(/0+$/, '').replace(/\.$/, '') : fixed;
}

/** Per SNP: the kept genotypes, whether PLINK tests it (not monomorphic, diploid). */
function testedSnps(rows: GenotypeRows, sidecar: PreparedSidecar, boost: boolean): number[] {
  const tested: number[] = [];
  for (let v = 0; v < sidecar.numVector; v++) {
    if (HAPLOID.has(plinkChromosomeText(sidecar.snps.chrom[v]))) continue;
    const seen = [0, 0, 0];
    for (const g of rows.genotypesOf(v)) if (g !== MISSING_GENOTYPE) seen[g] = 1;
    // Default: an allele-monomorphic SNP (no het, one homozygote) is skipped; boost: fewer than two genotypes.
    const polymorphic = boost ? seen[0] + seen[1] + seen[2] >= 2 : seen[1] === 1 || (seen[0] === 1 && seen[2] === 1);
    if (polymorphic) tested.push(v);
  }
  return tested;
}

/** The 18 counts of a pair in PLINK's layout (cases first; genotype index 2 − copies of A1). */
function pairCounts(a: Uint8Array, b: Uint8Array, numControls: number, counts: Uint32Array): void {
  counts.fill(0);
  for (let f = 0; f < a.length; f++) {
    const ga = a[f], gb = b[f];
    if (ga === MISSING_GENOTYPE || gb === MISSING_GENOTYPE) continue;
    counts[(f < numControls ? 9 : 0) + 3 * (2 - ga) + (2 - gb)]++;
  }
}

/** Runs the test over every pair of tested SNPs of the prepared case-control file. */
export function fastEpistasisReport(packedPath: string, sidecar: PreparedSidecar, settings: FastEpistasisSettings): FastEpistasisOutput {
  const numControls = sidecar.caseControl?.numControls ?? 0;
  const rows = new GenotypeRows({ kind: 'file', path: packedPath }, sidecar.numField, true);
  const tested = testedSnps(rows, sidecar, settings.boost);
  const width = plinkSnpColumnWidth(sidecar.snps.id);
  const snpText = (v: number): string => `${plinkChromosomeText(sidecar.snps.chrom[v]).padStart(4)} ${sidecar.snps.id[v].padStart(width)}`;
  // PLINK's thresholds: --epi1 0 means 5e-5 (default statistic, two-sided) or 5e-6 (boost).
  const alpha1sq = settings.boost
    ? [4, 2, 1].map((df) => inverseChiSquare(settings.epi1 === 0 ? 0.000005 : settings.epi1, df))
    : [ltqnorm(settings.epi1 === 0 ? 0.00005 : settings.epi1 * 0.5) ** 2];
  const alpha2sq = settings.boost
    ? [4, 2, 1].map((df) => inverseChiSquare(settings.epi2, df))
    : [ltqnorm(settings.epi2 / 2) ** 2];
  if (settings.boost && alpha1sq[0] === alpha2sq[0]) for (let t = 0; t < 3; t++) alpha2sq[t] = alpha1sq[t] * (1 + 2 ** -44);
  const numTested = tested.length;
  const numSig = new Uint32Array(numTested), numFail = new Uint32Array(numTested);
  const best = new Float64Array(numTested), bestPartner = new Int32Array(numTested).fill(-1);
  const lines: string[] = [`CHR1 ${'SNP1'.padStart(width)} CHR2 ${'SNP2'.padStart(width)}         STAT ${settings.boost ? '  DF ' : ''}           P \n`];
  const counts = new Uint32Array(18);
  for (let x = 0; x < numTested; x++) {
    const a = rows.genotypesOf(tested[x]);
    for (let y = x + 1; y < numTested; y++) {
      pairCounts(a, rows.genotypesOf(tested[y]), numControls, counts);
      const pairText = `${snpText(tested[x])} ${snpText(tested[y])} `;
      let measure: number;
      if (settings.boost) {
        const result = boostChisq(counts, alpha1sq);
        measure = result.measure;
        if (Number.isNaN(measure)) {
          numFail[x]++; numFail[y]++;
          if (alpha1sq[0] === 0) lines.push(`${pairText}         nan    0           NA \n`);
          continue;
        }
        const dfAdj = result.df === 4 ? 0 : result.df === 2 ? 1 : 2;
        if (measure >= alpha2sq[dfAdj]) { numSig[x]++; numSig[y]++; }
        if (result.recorded) {
          // PLINK's chiprob_p fails (−9) on a negative statistic (rounding near 0), printed as max(p, 0): 0.
          const p = result.chisq < 0 ? -9 : chiSquareUpperTail(result.chisq, result.df);
          lines.push(`${pairText}${formatPlinkNumber(result.chisq).padStart(12)}    ${result.df} ${formatG4(p > 0 ? p : 0).padStart(12)} \n`);
        }
      } else {
        measure = fastEpistasisZsq(counts);
        if (!Number.isFinite(measure)) {
          numFail[x]++; numFail[y]++;
          if (alpha1sq[0] === 0) lines.push(`${pairText}${'nan'.padStart(12)} ${'0'.padStart(12)} \n`);
          continue;
        }
        if (measure >= alpha1sq[0]) lines.push(`${pairText}${formatPlinkNumber(measure).padStart(12)} ${formatG4(fastEpistasisP(measure)).padStart(12)} \n`);
        if (measure >= alpha2sq[0]) { numSig[x]++; numSig[y]++; }
      }
      if (measure > best[x]) { best[x] = measure; bestPartner[x] = y; }
      if (measure > best[y]) { best[y] = measure; bestPartner[y] = x; }
    }
  }
  const summary = [` CHR ${'SNP'.padStart(width)}        N_SIG        N_TOT         PROP   BEST_CHISQ BEST_CHR ${'BEST_SNP'.padStart(width)} \n`];
  let numValidTests = 0;
  for (let x = 0; x < numTested; x++) {
    const numTot = numTested - 1 - numFail[x];
    numValidTests += numTot;
    const head = `${snpText(tested[x])}   ${String(numSig[x]).padStart(10)}   ${String(numTot).padStart(10)} ${formatG4(numSig[x] / numTot).padStart(12)} `;
    const partner = bestPartner[x] >= 0 ? tested[bestPartner[x]] : -1;
    summary.push(numTot > 0 && partner >= 0
      ? `${head}${formatG4(best[x]).padStart(12)} ${snpText(partner)} \n`
      : `${head}          NA   NA${' '.repeat(width - 1)}NA \n`);
  }
  return { pairsText: lines.join(''), summaryText: summary.join(''), numValidTests: numValidTests / 2, numSkippedSnps: sidecar.numVector - numTested };
}
