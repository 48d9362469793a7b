#!/usr/bin/env node
// Simulates a cohort with real linkage disequilibrium and writes it as a VCF, for the walk-through.
//
// Each chromosome's haplotypes are mosaics of a few founder haplotypes (the Li–Stephens copying model): a sample's
// haplotype copies one founder and switches to another with a probability that grows with the distance to the
// previous SNP, so nearby SNPs are in strong LD and LD decays over a few hundred kb, as in human data. Genotypes are
// two haplotypes; a small fraction of calls is set missing. Deterministic for a given --seed.
//
// Usage: node examples/simulate-cohort.mjs --out cohort.vcf [--samples 600] [--snps-per-chr 1500] [--chromosomes 3]
//          [--founders 6] [--missing 0.01] [--seed 7]
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { parseArgs } from 'node:util';

const { values: args } = parseArgs({
  options: {
    out: { type: 'string' },
    samples: { type: 'string', default: '600' },
    'snps-per-chr': { type: 'string', default: '1500' },
    chromosomes: { type: 'string', default: '3' },
    founders: { type: 'string', default: '6' },
    missing: { type: 'string', default: '0.01' },
    seed: { type: 'string', default: '7' },
  },
});
if (args.out === undefined) {
  console.error('simulate-cohort: --out FILE.vcf is required');
  process.exit(1);
}
const numSamples = positiveInteger('samples');
const snpsPerChromosome = positiveInteger('snps-per-chr');
const numChromosomes = positiveInteger('chromosomes');
const numFounders = positiveInteger('founders');
const missingRate = Number(args.missing);
if (!(missingRate >= 0 && missingRate < 1)) fail('--missing must be in [0, 1)');

/** Switch probability per bp: ~1 switch per 300 kb, so r² falls to background within about a megabase. */
const SWITCH_PER_BP = 1 / 300_000;
/** Chance that a copied allele is flipped (new mutations, genotyping error): keeps LD below 1 between neighbours. */
const FLIP_RATE = 0.01;

const random = mulberry32(Number(args.seed));

function positiveInteger(name) {
  const value = Number(args[name]);
  if (!Number.isInteger(value) || value < 1) fail(`--${name} must be a positive integer, got ${args[name]}`);
  return value;
}

function fail(message) {
  console.error(`simulate-cohort: ${message}`);
  process.exit(1);
}

/** A small, seedable PRNG (the same one the tests use), so the example data never changes. */
function mulberry32(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** SNP positions of one chromosome: gaps of 1–20 kb, so 1,500 SNPs span ~15 Mb. */
function positionsOf() {
  const positions = [];
  let bp = 10_000 + Math.floor(random() * 50_000);
  for (let s = 0; s < snpsPerChromosome; s++) {
    positions.push(bp);
    bp += 1_000 + Math.floor(random() * 19_000);
  }
  return positions;
}

/** Founder alleles (0/1) per SNP, with a minor-allele frequency drawn per SNP between 0.05 and 0.5. */
function foundersOf() {
  return Array.from({ length: snpsPerChromosome }, () => {
    const frequency = 0.05 + 0.45 * random();
    return Uint8Array.from({ length: numFounders }, () => (random() < frequency ? 1 : 0));
  });
}

/** One haplotype per sample copy: alleles along the chromosome, copied from founders with switches. */
function haplotypeOf(positions, founders) {
  const alleles = new Uint8Array(snpsPerChromosome);
  let founder = Math.floor(random() * numFounders);
  for (let s = 0; s < snpsPerChromosome; s++) {
    if (s > 0 && random() < 1 - Math.exp(-SWITCH_PER_BP * (positions[s] - positions[s - 1]))) {
      founder = Math.floor(random() * numFounders);
    }
    const allele = founders[s][founder];
    alleles[s] = random() < FLIP_RATE ? 1 - allele : allele;
  }
  return alleles;
}

const out = createWriteStream(args.out);
/** Writes `text`, waiting for the stream to drain when its buffer is full. */
async function write(text) {
  if (!out.write(text)) await once(out, 'drain');
}
await write('##fileformat=VCFv4.2\n##source=snptally examples/simulate-cohort.mjs\n');
await write('##FORMAT=<ID=GT,Number=1,Type=String,Description="Genotype">\n');
const sampleIds = Array.from({ length: numSamples }, (_, i) => `S${String(i + 1).padStart(4, '0')}`);
await write(`#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\tFORMAT\t${sampleIds.join('\t')}\n`);
for (let chromosome = 1; chromosome <= numChromosomes; chromosome++) {
  const positions = positionsOf();
  const founders = foundersOf();
  // Haplotypes by sample copy, then written SNP by SNP.
  const haplotypes = Array.from({ length: 2 * numSamples }, () => haplotypeOf(positions, founders));
  for (let s = 0; s < snpsPerChromosome; s++) {
    const calls = new Array(numSamples);
    for (let i = 0; i < numSamples; i++) {
      calls[i] = random() < missingRate ? './.' : `${haplotypes[2 * i][s]}/${haplotypes[2 * i + 1][s]}`;
    }
    await write(`${chromosome}\t${positions[s]}\trs${chromosome}_${positions[s]}\tA\tG\t.\tPASS\t.\tGT\t${calls.join('\t')}\n`);
  }
}
await new Promise((resolve, reject) => out.end((error) => (error ? reject(error) : resolve())));
console.log(`simulate-cohort: ${numSamples} samples × ${numChromosomes * snpsPerChromosome} SNPs on ${numChromosomes} chromosomes → ${args.out}`);
