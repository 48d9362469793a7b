// Lines of text files, plain and gzip-compressed: batches of byte ranges (readLineBatches) and strings (readTextLines,
// forEachTextLine(In): a small plain file read whole, or streamed) agree with splitting the whole text, across read
// chunks, with CRLF endings, empty lines, lines longer than a read chunk and a last line without a newline.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { forEachTextLine, forEachTextLineIn, readLineBatches, readTextLines } from '../../src/io/textLines.js';

const workDir = mkdtempSync(join(tmpdir(), 'snptally-lines-'));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

/** The text's lines as a plain split would give them: on \n, a trailing \r dropped, no line after a final \n. */
function expectedLines(text: string): string[] {
  const lines = text.split('\n').map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line));
  if (text.endsWith('\n')) lines.pop();
  return lines;
}

async function batchedLines(path: string): Promise<Array<{ text: string; lineNumber: number }>> {
  const out: Array<{ text: string; lineNumber: number }> = [];
  for await (const batch of readLineBatches(path)) {
    for (let k = 0; k < batch.starts.length; k++) {
      out.push({ text: batch.bytes.toString('utf8', batch.starts[k], batch.ends[k]), lineNumber: batch.firstLineNumber + k });
    }
  }
  return out;
}

// Lines of every length around the 1 MiB read chunk, one 2.5 MiB line, CRLF and LF, empty lines, UTF-8.
const long = 'x'.repeat((5 << 20) / 2);
const texts: Array<[string, string]> = [
  ['short lines, final newline', 'a\nbb\n\nccc\n'],
  ['no final newline, CRLF', 'a\r\nbb\r\n\r\nlast'],
  ['UTF-8 and a lone \\r inside a line', 'naïve\tα\r\nx\ry\n'],
  ['UTF-8 on several lines, lines that are only \\r', 'ü€\r\n\r\n\r\n€ü\nend\r'],
  ['lines across read chunks', Array.from({ length: 30000 }, (_, i) => `line ${i} ${'z'.repeat(i % 97)}`).join('\n')],
  ['a line longer than two read chunks', `first\n${long}\r\nafter\n${long}`],
];

describe('readLineBatches, readTextLines, forEachTextLine and forEachTextLineIn', () => {
  for (const [name, text] of texts) {
    for (const compressed of [false, true]) {
      it(`${name}${compressed ? ' (gzip)' : ''}`, async () => {
        const path = join(workDir, `t${compressed ? '.gz' : '.txt'}`);
        writeFileSync(path, compressed ? gzipSync(text) : text);
        const expected = expectedLines(text).map((line, i) => ({ text: line, lineNumber: i + 1 }));
        expect(await batchedLines(path)).toEqual(expected);
        const asText: Array<{ text: string; lineNumber: number }> = [];
        for await (const line of readTextLines(path)) asText.push({ text: line.text, lineNumber: line.lineNumber });
        expect(asText).toEqual(expected);
        // A plain file read whole (the default) and streamed (wholeReadMaxBytes 0); gzip is always streamed.
        for (const options of [{}, { wholeReadMaxBytes: 0 }]) {
          const eachLine: Array<{ text: string; lineNumber: number }> = [];
          await forEachTextLine(path, (line, lineNumber) => eachLine.push({ text: line, lineNumber }), options);
          expect(eachLine).toEqual(expected);
          const inBatchText: Array<{ text: string; lineNumber: number }> = [];
          await forEachTextLineIn(path, (batchText, start, end, lineNumber) => inBatchText.push({ text: batchText.slice(start, end), lineNumber }), options);
          expect(inBatchText).toEqual(expected);
        }
      });
    }
  }

  it('refuses a line held past maxLineBytes (one longer than a read chunk), naming it after the lines handed on', async () => {
    const path = join(workDir, 'overlong.txt');
    writeFileSync(path, `a\nb\n${'y'.repeat(3 << 20)}\nc\n`);
    const read = async (): Promise<void> => {
      for await (const batch of readLineBatches(path, { maxLineBytes: 1000 })) void batch;
    };
    await expect(read()).rejects.toThrow(/overlong\.txt line 3 is longer than 1000 bytes/);
  });

  it('yields nothing for an empty file', async () => {
    const path = join(workDir, 'empty.txt');
    writeFileSync(path, '');
    expect(await batchedLines(path)).toEqual([]);
    const lines: string[] = [];
    await forEachTextLine(path, (line) => lines.push(line));
    await forEachTextLineIn(path, (text, start, end) => lines.push(text.slice(start, end)));
    expect(lines).toEqual([]);
  });
});
