// PLINK's human chromosome codes: `--chr` lists and ranges, and the chromosome names of .bim files and VCFs.
//
// PLINK numbers X, Y, XY and MT as 23–26 and accepts a `chr` prefix, so `X`, `x`, `chrX` and `23` name one
// chromosome; other names (contigs) are compared as written, as `--allow-extra-chr` does.
import { UserError } from '../core/errors.js';

const NAMED_CODES: ReadonlyMap<string, number> = new Map([['X', 23], ['Y', 24], ['XY', 25], ['MT', 26], ['M', 26]]);
/** Largest human chromosome code (MT). */
const MAX_HUMAN_CODE = 26;

/** The canonical name of a chromosome: its number for human codes (`chrX` → `23`), else the name as written. */
export function canonicalChromosome(name: string): string {
  const code = humanChromosomeCode(name);
  return code === null ? name : String(code);
}

/** The number of a human chromosome name (`1`…`26`, `0`, `X`, `chrMT`, …), or null for another name. */
function humanChromosomeCode(name: string): number | null {
  const bare = /^chr/i.test(name) ? name.slice(3) : name;
  if (/^\d+$/.test(bare)) {
    const code = Number(bare);
    return code <= MAX_HUMAN_CODE ? code : null;
  }
  return NAMED_CODES.get(bare.toUpperCase()) ?? null;
}

/**
 * Parses `--chr` (PLINK's syntax): codes separated by commas and/or spaces, ranges `a-b` of human codes, e.g.
 * `1-4, 22, X`. Returns the canonical names of the chromosomes it selects.
 * @throws UserError naming the bad element.
 */
export function parseChromosomeList(text: string): ReadonlySet<string> {
  const selected = new Set<string>();
  const elements = text.split(/[\s,]+/).filter((element) => element !== '');
  if (elements.length === 0) throw new UserError('--chr needs at least one chromosome code');
  for (const element of elements) {
    const dash = element.indexOf('-', 1);
    if (dash < 0) {
      selected.add(canonicalChromosome(checkedName(element)));
      continue;
    }
    const first = humanChromosomeCode(element.slice(0, dash));
    const last = humanChromosomeCode(element.slice(dash + 1));
    if (first === null || last === null || first > last) {
      throw new UserError(
        `--chr: "${element}" is not a range of chromosome codes (a-b with a ≤ b among 0, 1–22, X, Y, XY, MT)`);
    }
    for (let code = first; code <= last; code++) selected.add(String(code));
  }
  return selected;
}

function checkedName(element: string): string {
  if (/^\d+$/.test(element) && humanChromosomeCode(element) === null) {
    throw new UserError(`--chr: ${element} is not a chromosome code (0, 1–22, X, Y, XY, MT, or a contig name)`);
  }
  if (element.startsWith('-')) throw new UserError(`--chr: "${element}" is not a chromosome code`);
  return element;
}
