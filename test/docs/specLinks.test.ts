// README's section references point into the repository's specification: every `SPEC §N` outside code is a link to
// docs/SPEC.md, and every such link names a heading that docs/SPEC.md has (GitHub's anchors).
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

/** GitHub's anchor of a Markdown heading: lower case, punctuation dropped, spaces to hyphens. */
function headingAnchor(heading: string): string {
  return heading.toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, '').replace(/ /g, '-');
}

/** README's prose: fenced blocks and inline code spans removed. */
function proseOf(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```$/gm, '').replace(/`[^`\n]*`/g, '');
}

describe('README links to docs/SPEC.md', () => {
  const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
  const spec = readFileSync(join(repoRoot, 'docs/SPEC.md'), 'utf8');
  const anchors = new Map([...spec.matchAll(/^## (\d+)\. .*$/gm)].map((m) => [m[1], headingAnchor(m[0].slice(3))]));

  it('has the numbered sections README cites', () => {
    expect([...anchors.keys()]).toEqual(['1', '2', '3', '4', '5', '6', '7', '8', '9']);
    expect(anchors.get('5')).toBe('5-checksum-comet-compatible-exact-order-independent');
  });

  it('links every SPEC §N to its section', () => {
    const prose = proseOf(readme);
    const cited = [...prose.matchAll(/SPEC §(\d+)/g)];
    expect(cited.length).toBeGreaterThan(10);
    const linked = [...prose.matchAll(/\[SPEC §(\d+)\]\(docs\/SPEC\.md#([^)]+)\)/g)];
    expect(linked.map((m) => m[2])).toEqual(linked.map((m) => anchors.get(m[1])));
    expect(linked).toHaveLength(cited.length);
  });
});
