// Chromosome and position of each vector for LD-window tests: chromosomes of given sizes, positions rising by seeded
// gaps (a Lehmer generator, so that every test sees the same loci).

export interface LociShape {
  /** A chromosome's first position is 1000 plus a seeded 0 … startJitter − 1 (0: exactly 1000). */
  readonly startJitter: number;
  /** Gaps are seeded in 0 … maxGap − 1 bp. */
  readonly maxGap: number;
  /** One gap in four (seeded) is 0: equal positions. */
  readonly equalPositions: boolean;
}

export interface Loci {
  readonly chromosome: string[];
  readonly position: number[];
}

/** Chromosomes "1", "2", … of `sizes` vectors each, positions as `shape` says. */
export function seededLoci(sizes: readonly number[], seed: number, shape: LociShape): Loci {
  let state = seed;
  const next = (): number => (state = (state * 48271) % 2147483647);
  const chromosome: string[] = [];
  const position: number[] = [];
  sizes.forEach((size, c) => {
    let bp = 1000 + (shape.startJitter > 0 ? next() % shape.startJitter : 0);
    for (let v = 0; v < size; v++) {
      chromosome.push(String(c + 1));
      position.push(bp);
      bp += shape.equalPositions && next() % 4 === 0 ? 0 : next() % shape.maxGap;
    }
  });
  return { chromosome, position };
}
