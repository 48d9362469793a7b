// The fuzz test's inputs and their mutations: a seeded random source, base files of every kind a command reads, and
// damage done to one of them (truncation, flipped bytes, junk lines, huge counts, a link to /dev/zero, emptiness).
import { readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { mulberry32 } from '../../src/core/seededRandom.js';

/** A seeded generator (mulberry32), so that every run of the test makes the same cases. */
export const seededRandom: (seed: number) => () => number = mulberry32;

/** The base files, by the kind of input they are (names inside a case directory). */
export const TARGET_FILES = {
  vcf: 'in.vcf', bed: 'd.bed', bim: 'd.bim', fam: 'd.fam', packed: 'p.packed', sidecar: 'p.packed.json',
  metrics: 'o_0.bin', runInfo: 'o.run.json', raw: 'raw.bin',
} as const;
export type TargetKind = keyof typeof TARGET_FILES;
export const TARGET_KINDS = Object.keys(TARGET_FILES) as TargetKind[];

export const MUTATIONS = ['truncate', 'flipBytes', 'junkLines', 'hugeCount', 'devZero', 'empty'] as const;
export type Mutation = (typeof MUTATIONS)[number];

const JUNK_LINES = ['junk', '\t\t\t', '#CHROM\tPOS', '1\t2\t3\t4\t5\t6\t7\t8\t9\t10', '\u0000\u0001\u00ff', 'ä'.repeat(40), '-1 -2 -3'];
const HUGE_NUMBERS = ['99999999999', '4294967296', '9007199254740993', '1e308', '-5', '2147483648'];

/** Picks one of `items`. */
export function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)];
}

/** Applies `mutation` to the file `path` (a copy in the case's directory); returns a short description. */
export function mutateFile(path: string, mutation: Mutation, random: () => number): string {
  if (mutation === 'devZero') {
    rmSync(path, { force: true });
    symlinkSync('/dev/zero', path);
    return 'link to /dev/zero';
  }
  if (mutation === 'empty') {
    writeFileSync(path, '');
    return 'empty';
  }
  const bytes = Buffer.from(readFileSync(path));
  if (mutation === 'truncate') {
    const length = Math.floor(random() * bytes.length);
    writeFileSync(path, bytes.subarray(0, length));
    return `truncated to ${length}`;
  }
  if (mutation === 'flipBytes') {
    const numFlips = 1 + Math.floor(random() * 4);
    for (let f = 0; f < numFlips && bytes.length > 0; f++) bytes[Math.floor(random() * bytes.length)] ^= 1 << Math.floor(random() * 8);
    writeFileSync(path, bytes);
    return `${numFlips} bits flipped`;
  }
  const text = bytes.toString('latin1');
  if (mutation === 'junkLines') {
    const lines = text.split('\n');
    const at = Math.floor(random() * (lines.length + 1));
    lines.splice(at, 0, pick(random, JUNK_LINES));
    writeFileSync(path, Buffer.from(lines.join('\n'), 'latin1'));
    return `junk line at ${at}`;
  }
  // hugeCount: a number in the file becomes a huge (or negative) one.
  const numbers = [...text.matchAll(/\d+/g)];
  if (numbers.length === 0) {
    writeFileSync(path, Buffer.concat([bytes, Buffer.from(pick(random, HUGE_NUMBERS))]));
    return 'huge number appended';
  }
  const chosen = pick(random, numbers);
  const huge = pick(random, HUGE_NUMBERS);
  const index = chosen.index ?? 0;
  writeFileSync(path, Buffer.from(text.slice(0, index) + huge + text.slice(index + chosen[0].length), 'latin1'));
  return `number ${chosen[0]} → ${huge}`;
}

/** The command lines that read a target of `kind` (paths inside `dir`; outputs are new names there). */
export function commandsReading(kind: TargetKind, dir: string): string[][] {
  const at = (name: string): string => join(dir, name);
  const run = ['run', '--threads', '1', '--backend', 'cpu'];
  switch (kind) {
    case 'vcf':
      return [['prepare', at('in.vcf'), '--out', at('q.packed')], [...run, '--input', at('in.vcf'), '--sparse', '--output', at('r')]];
    case 'bed': case 'bim': case 'fam':
      return [['prepare', at('d'), '--out', at('q.packed'), '--permute', '7'], [...run, '--input', at('d.bed'), '--sparse']];
    case 'packed': case 'sidecar':
      return [[...run, '--input', at('p.packed'), '--sparse', '--output', at('r')], ['dump', at('o_0.bin'), '--sidecar', at('p.packed.json')]];
    case 'raw':
      return [[...run, '--input', at('raw.bin'), '--vectors', '10', '--fields', '16', '--output', at('r')]];
    case 'metrics': case 'runInfo':
      return [['dump', at('o_0.bin')], ['top', at('o_0.bin'), '-k', '5'], ['merge', at('o_0.bin'), '--out', at('m.bin')],
        ['report', at('o'), '--out', at('page.html'), '--bins', '7']];
  }
}
