// A PLINK fileset for LD comparisons with plink1.9: its --dummy genotypes (missing calls included), rewritten onto
// three chromosomes (in the file's order 1, 5, 2) at real-looking, increasing positions, with IDs of several lengths
// (PLINK's SNP column width depends on them); and plink1.9 itself, run on it.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';

/** Runs plink1.9 with `args` (one thread); throws with its output when it fails. */
export function runPlink(args: readonly string[]): void {
  const result = spawnSync('plink1.9', [...args, '--threads', '1'], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`plink1.9 ${args.join(' ')} failed (${result.status}): ${result.stdout}${result.stderr}`);
}

/** The chromosome, position and ID of SNP `s` of `numSnp`: a third on each of chromosomes 1, 5 and 2. */
export function fixtureLocus(s: number, numSnp: number): { chromosome: string; position: number; id: string } {
  const third = Math.ceil(numSnp / 3);
  const chromosome = ['1', '5', '2'][Math.floor(s / third)];
  // Steps of 7–60 kb, so a 1000 kb window holds ~30 SNPs and --ld-window-kb cuts matter.
  const position = 50_000 + (s % third) * 37_000 + ((s * 7919) % 23_000);
  const id = s % 7 === 3 ? `rs${1000 + s}_long_name` : s % 2 === 0 ? `rs${s}` : `snp${s}`;
  return { chromosome, position, id };
}

/**
 * Writes `<prefix>.bed/.bim/.fam`: plink1.9 --dummy of `numSample` × `numSnp` with `missingRate`, its .bim rewritten
 * with fixtureLocus (alleles kept).
 */
export function writeLdFixture(prefix: string, numSample: number, numSnp: number, missingRate: number): void {
  runPlink(['--dummy', String(numSample), String(numSnp), String(missingRate), '--seed', '7', '--make-bed', '--out', prefix]);
  const lines = readFileSync(`${prefix}.bim`, 'utf8').trimEnd().split('\n');
  const rewritten = lines.map((line, s) => {
    const columns = line.split(/\s+/);
    const { chromosome, position, id } = fixtureLocus(s, lines.length);
    return [chromosome, id, '0', String(position), columns[4], columns[5]].join('\t');
  });
  writeFileSync(`${prefix}.bim`, `${rewritten.join('\n')}\n`);
}
