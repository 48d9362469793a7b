// The LD-decay plot: r² of kept same-chromosome pairs against their distance, a sample of pairs as grey dots and
// each distance bin's mean (line with dots) and median (dashed line with squares).
import type { LdDecayData } from './ldPairs.js';
import { formatBasePairs, openPlotSvg, PLOT_COLOURS, px, roundStepAtLeast } from './svgText.js';

const WIDTH = 1200;
const HEIGHT = 420;
const MARGIN = { left: 62, right: 20, top: 36, bottom: 48 };

/** The `<svg>` of the decay plot (at least one bin). */
export function renderLdDecaySvg(decay: LdDecayData): string {
  const plotWidth = WIDTH - MARGIN.left - MARGIN.right;
  const plotHeight = HEIGHT - MARGIN.top - MARGIN.bottom;
  const axisY = MARGIN.top + plotHeight;
  const maxDistance = decay.bins[decay.bins.length - 1].endBp;
  const xOf = (bp: number): number => MARGIN.left + (bp / maxDistance) * plotWidth;
  const yOf = (r2: number): number => axisY - Math.min(1, Math.max(0, r2)) * plotHeight;
  const dots = decay.dots.map(([bp, r2]) => `<circle cx="${px(xOf(bp))}" cy="${px(yOf(r2))}" r="1.6" fill="${PLOT_COLOURS.decayPair}"/>`).join('');
  const middle = (bin: { startBp: number; endBp: number }): number => xOf((bin.startBp + bin.endBp) / 2);
  const meanPath = decay.bins.map((bin) => `${px(middle(bin))},${px(yOf(bin.mean))}`).join(' ');
  const medianPath = decay.bins.map((bin) => `${px(middle(bin))},${px(yOf(bin.median))}`).join(' ');
  const meanMarks = decay.bins.map((bin) => `<circle cx="${px(middle(bin))}" cy="${px(yOf(bin.mean))}" r="4.5" fill="${PLOT_COLOURS.decayMean}">` +
    `<title>${formatBasePairs(bin.startBp)}–${formatBasePairs(bin.endBp)}: mean r² ${bin.mean.toFixed(4)} over ${bin.numPairs} pairs</title></circle>`).join('');
  const medianMarks = decay.bins.map((bin) => `<rect x="${px(middle(bin) - 4)}" y="${px(yOf(bin.median) - 4)}" width="8" height="8" fill="${PLOT_COLOURS.decayMedian}">` +
    `<title>${formatBasePairs(bin.startBp)}–${formatBasePairs(bin.endBp)}: median r² ${bin.median.toFixed(4)}</title></rect>`).join('');
  const yTicks = [0, 0.2, 0.4, 0.6, 0.8, 1].map((r2) => `<line x1="${MARGIN.left - 4}" y1="${px(yOf(r2))}" x2="${MARGIN.left + plotWidth}" ` +
    `y2="${px(yOf(r2))}" stroke="#ececec"/><text x="${MARGIN.left - 7}" y="${px(yOf(r2) + 4)}" text-anchor="end">${r2}</text>`).join('');
  const step = roundStepAtLeast(maxDistance / 10);
  const xTicks: string[] = [];
  for (let bp = 0; bp <= maxDistance * (1 + 1e-9); bp += step) {
    xTicks.push(`<line x1="${px(xOf(bp))}" y1="${axisY}" x2="${px(xOf(bp))}" y2="${axisY + 4}" stroke="#333"/>` +
      `<text x="${px(xOf(bp))}" y="${axisY + 17}" text-anchor="middle">${bp === 0 ? '0' : formatBasePairs(Number(bp.toPrecision(12)))}</text>`);
  }
  const legendX = MARGIN.left + plotWidth - 330;
  const legend = `<circle cx="${legendX}" cy="16" r="4.5" fill="${PLOT_COLOURS.decayMean}"/><text x="${legendX + 9}" y="20">mean r² per bin</text>` +
    `<rect x="${legendX + 126}" y="12" width="8" height="8" fill="${PLOT_COLOURS.decayMedian}"/><text x="${legendX + 139}" y="20">median</text>` +
    `<circle cx="${legendX + 206}" cy="16" r="2" fill="${PLOT_COLOURS.decayPair}"/><text x="${legendX + 213}" y="20">kept pairs${decay.dots.length < decay.numPairs ? ' (sample)' : ''}</text>`;
  return openPlotSvg(WIDTH, HEIGHT, 'LD decay: r² against distance') + yTicks + dots +
    `<polyline points="${medianPath}" fill="none" stroke="${PLOT_COLOURS.decayMedian}" stroke-width="2" stroke-dasharray="6 4"/>` +
    `<polyline points="${meanPath}" fill="none" stroke="${PLOT_COLOURS.decayMean}" stroke-width="2.5"/>` + medianMarks + meanMarks +
    `<line x1="${MARGIN.left}" y1="${axisY}" x2="${MARGIN.left + plotWidth}" y2="${axisY}" stroke="#333"/>` +
    `<line x1="${MARGIN.left}" y1="${MARGIN.top}" x2="${MARGIN.left}" y2="${axisY}" stroke="#333"/>` + xTicks.join('') + legend +
    `<text x="${px(MARGIN.left + plotWidth / 2)}" y="${axisY + 38}" text-anchor="middle" fill="#555">distance between the SNPs of a pair (same chromosome)</text>` +
    `<text transform="translate(16 ${px(MARGIN.top + plotHeight / 2)}) rotate(-90)" text-anchor="middle" fill="#555">r²</text></svg>`;
}

/** Header and rows of the bins' table: distance range in bp, pairs, mean and median r² (4 decimals). */
export const DECAY_TABLE_HEAD = ['from (bp)', 'to (bp)', 'pairs', 'mean r²', 'median r²'] as const;
export function decayBinRows(decay: LdDecayData): string[][] {
  return decay.bins.map((bin) => [String(bin.startBp), String(bin.endBp), String(bin.numPairs), bin.mean.toFixed(4), bin.median.toFixed(4)]);
}
