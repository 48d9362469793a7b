// The report checked as a person sees it: headless Chromium renders the page of a r² run and the screenshot's pixels
// must show each plot — histogram bars, threshold line, heatmap colours, decay curve — full width, one below another.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PNG, type DecodedPng } from 'pngjs';
import { afterAll, describe, expect, it } from 'vitest';
import { rampColour } from '../../../src/cli/report/ldHeatmapSvg.js';
import { PLOT_COLOURS } from '../../../src/cli/report/svgText.js';
import { runCli } from '../cliHarness.js';
import { writeLdFixture } from './ldFixture.js';

const workDir = mkdtempSync(join(tmpdir(), 'snptally-report-shot-'));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));
const PAGE_WIDTH = 1400;
const PAGE_HEIGHT = 2000;

/** Renders `htmlPath` with Debian's chromium; fails, naming the fix, when it is not installed (CI installs it). */
function screenshot(htmlPath: string, pngPath: string): DecodedPng {
  const chromium = spawnSync('chromium', ['--headless', '--disable-gpu', '--no-sandbox', '--force-color-profile=srgb', '--hide-scrollbars',
    `--screenshot=${pngPath}`, `--window-size=${PAGE_WIDTH},${PAGE_HEIGHT}`, `file://${htmlPath}`], { encoding: 'utf8', timeout: 60_000 });
  if (chromium.error !== undefined) {
    throw new Error(`cannot run chromium (${chromium.error.message}): install it with scripts/install-system-packages.sh (as root)`);
  }
  expect(chromium.status, chromium.stderr).toBe(0);
  return PNG.sync.read(readFileSync(pngPath));
}

/** Where pixels matching a colour test lie: their count and bounding box. */
interface PixelBox { count: number; left: number; right: number; top: number; bottom: number }

function findPixels(image: DecodedPng, matches: (r: number, g: number, b: number) => boolean): PixelBox {
  const box = { count: 0, left: Infinity, right: -Infinity, top: Infinity, bottom: -Infinity };
  for (let y = 0; y < image.height; y++) {
    for (let x = 0; x < image.width; x++) {
      const at = 4 * (y * image.width + x);
      if (!matches(image.data[at], image.data[at + 1], image.data[at + 2])) continue;
      box.count++;
      box.left = Math.min(box.left, x); box.right = Math.max(box.right, x);
      box.top = Math.min(box.top, y); box.bottom = Math.max(box.bottom, y);
    }
  }
  return box;
}

const exactly = (hex: string) => {
  const [r0, g0, b0] = [1, 3, 5].map((at) => parseInt(hex.slice(at, at + 2), 16));
  return (r: number, g: number, b: number): boolean => r === r0 && g === g0 && b === b0;
};
/** The heatmap's ramp colours (pale yellow to dark red), sampled finely enough to hold every colour a cell can take. */
const RAMP_COLOURS = new Set(Array.from({ length: 4001 }, (_, k) => {
  const [r, g, b] = (rampColour(k / 4000).match(/\d+/g) ?? []).map(Number);
  return (r << 16) | (g << 8) | b;
}));

describe('report screenshot (headless chromium)', () => {
  it('shows the histogram, threshold, LD heatmap and LD decay, each across most of the page width', () => {
    const prefix = join(workDir, 'set');
    writeLdFixture(prefix, { numSnp: 300, numSample: 200, chromosomeOneSnps: 180, seed: 5 });
    const stub = join(workDir, 'ld');
    for (const args of [['run', '--metric', 'r2', '--bfile', prefix, '--threshold', '0.1', '--histograms', join(workDir, 'h.tsv'), '--out', stub],
      ['report', stub, '--out', join(workDir, 'page.html')]]) {
      const outcome = runCli(args);
      expect(outcome.status, outcome.stderr).toBe(0);
    }
    const image = screenshot(join(workDir, 'page.html'), join(workDir, 'page.png'));
    expect([image.width, image.height]).toEqual([PAGE_WIDTH, PAGE_HEIGHT]);
    const bars = findPixels(image, exactly(PLOT_COLOURS.histogramBar));
    const threshold = findPixels(image, exactly(PLOT_COLOURS.threshold));
    const mean = findPixels(image, exactly(PLOT_COLOURS.decayMean));
    const median = findPixels(image, exactly(PLOT_COLOURS.decayMedian));
    const notRecorded = findPixels(image, exactly(PLOT_COLOURS.notRecorded));
    const heatmapColours = new Set<number>();
    const heatmap = findPixels(image, (r, g, b) => {
      const colour = (r << 16) | (g << 8) | b;
      if (!RAMP_COLOURS.has(colour)) return false;
      heatmapColours.add(colour);
      return true;
    });
    for (const [name, box, least] of [['histogram bars', bars, 20_000], ['threshold line', threshold, 100], ['decay means', mean, 500],
      ['decay medians', median, 200], ['cells without record', notRecorded, 5_000], ['heatmap cells', heatmap, 30_000]] as const) {
      expect(box.count, `${name}: pixels of their colour`).toBeGreaterThanOrEqual(least);
    }
    for (const [name, box] of [['histogram', bars], ['heatmap', heatmap], ['decay curve', mean]] as const) {
      expect(box.right - box.left, `${name}: width on the page`).toBeGreaterThan(0.8 * PAGE_WIDTH);
    }
    expect(heatmapColours.size, 'distinct heatmap colours').toBeGreaterThan(200);
    // Threshold on the histogram (its label a little above the tallest bar); histogram above the heatmap above the decay plot.
    expect(threshold.top).toBeGreaterThanOrEqual(bars.top - 60);
    expect(threshold.bottom).toBeLessThanOrEqual(bars.bottom + 5);
    expect(bars.bottom).toBeLessThan(heatmap.top);
    expect(heatmap.bottom).toBeLessThan(mean.top);
    expect(mean.bottom).toBeLessThan(PAGE_HEIGHT);
  });
});
