// One histogram panel as inline SVG: bars on a log-scale count axis (small bins stay visible next to huge ones)
// and the run's threshold marked as a vertical line.
import { escapeXml, formatTick, openPlotSvg, PLOT_COLOURS, px, roundStepAtLeast } from './svgText.js';

/** What one panel shows: equal bins from `binStart`, each `binWidth` wide. */
export interface LogHistogramPanel {
  readonly title: string;
  readonly binStart: number;
  readonly binWidth: number;
  readonly counts: readonly number[];
  /** Shared count scale across the panels of a page, so they compare at a glance. */
  readonly maxCount: number;
  /** Where the run's threshold lies on this panel's values; null: no threshold applies. */
  readonly threshold: number | null;
  /** Drawing width in SVG units (the panel scales to its column's width). */
  readonly width: number;
}

const HEIGHT = 260;
const MARGIN = { left: 62, right: 16, top: 28, bottom: 44 };
/** The count axis starts half a count down, so that a bin of one record still has a visible bar. */
const LOWEST_COUNT = 0.5;

/** The `<svg>` of a panel; the y axis has a tick per power of ten up to the shared maximum. */
export function renderLogHistogramSvg(panel: LogHistogramPanel): string {
  const plotWidth = panel.width - MARGIN.left - MARGIN.right;
  const plotHeight = HEIGHT - MARGIN.top - MARGIN.bottom;
  const axisY = MARGIN.top + plotHeight;
  const numBins = panel.counts.length;
  const topDecade = Math.max(1, Math.ceil(Math.log10(Math.max(panel.maxCount, 1))));
  const logSpan = topDecade - Math.log10(LOWEST_COUNT);
  const yOf = (count: number): number => axisY - ((Math.log10(count) - Math.log10(LOWEST_COUNT)) / logSpan) * plotHeight;
  const valueEnd = panel.binStart + numBins * panel.binWidth;
  const xOf = (value: number): number => MARGIN.left + ((value - panel.binStart) / (valueEnd - panel.binStart)) * plotWidth;
  const barWidth = plotWidth / numBins;
  const bars = panel.counts.map((count, b) => {
    if (count === 0) return '';
    const y = yOf(count);
    const low = panel.binStart + b * panel.binWidth;
    return `<rect x="${px(MARGIN.left + b * barWidth)}" y="${px(y)}" width="${px(Math.max(barWidth - (barWidth > 3 ? 1 : 0), 0.6))}" ` +
      `height="${px(axisY - y)}" fill="${PLOT_COLOURS.histogramBar}"><title>[${formatTick(low)}, ${formatTick(low + panel.binWidth)}): ${count}</title></rect>`;
  }).join('');
  const decadeStep = topDecade > 8 ? 2 : 1;
  const yTicks: string[] = [];
  for (let decade = 0; decade <= topDecade; decade += decadeStep) {
    const y = yOf(10 ** decade);
    yTicks.push(`<line x1="${MARGIN.left - 4}" y1="${px(y)}" x2="${MARGIN.left + plotWidth}" y2="${px(y)}" stroke="#ececec"/>` +
      `<text x="${MARGIN.left - 6}" y="${px(y + 4)}" text-anchor="end">${(10 ** decade).toLocaleString('en-US')}</text>`);
  }
  const step = roundStepAtLeast((valueEnd - panel.binStart) / 8);
  const xTicks: string[] = [];
  for (let tick = Math.ceil(panel.binStart / step) * step; tick <= valueEnd + step * 1e-9; tick += step) {
    const x = xOf(tick);
    xTicks.push(`<line x1="${px(x)}" y1="${axisY}" x2="${px(x)}" y2="${axisY + 4}" stroke="#333"/>` +
      `<text x="${px(x)}" y="${axisY + 17}" text-anchor="middle">${formatTick(Number(tick.toPrecision(12)))}</text>`);
  }
  return openPlotSvg(panel.width, HEIGHT, panel.title) +
    `<text x="${MARGIN.left}" y="17" font-size="14" font-weight="bold">${escapeXml(panel.title)}</text>` +
    yTicks.join('') + bars + thresholdMarker(panel, xOf, axisY) +
    `<line x1="${MARGIN.left}" y1="${axisY}" x2="${MARGIN.left + plotWidth}" y2="${axisY}" stroke="#333"/>` +
    `<line x1="${MARGIN.left}" y1="${MARGIN.top}" x2="${MARGIN.left}" y2="${axisY}" stroke="#333"/>` + xTicks.join('') +
    `<text x="${px(MARGIN.left + plotWidth / 2)}" y="${axisY + 36}" text-anchor="middle" fill="#555">value</text>` +
    `<text transform="translate(15 ${px(MARGIN.top + plotHeight / 2)}) rotate(-90)" text-anchor="middle" fill="#555">count (log scale)</text></svg>`;
}

function thresholdMarker(panel: LogHistogramPanel, xOf: (value: number) => number, axisY: number): string {
  if (panel.threshold === null) return '';
  const x = xOf(panel.threshold);
  const rightHalf = x > MARGIN.left + (panel.width - MARGIN.left - MARGIN.right) / 2;
  return `<line x1="${px(x)}" y1="${MARGIN.top - 4}" x2="${px(x)}" y2="${axisY}" stroke="${PLOT_COLOURS.threshold}" ` +
    `stroke-width="2.5" stroke-dasharray="7 4"/>` +
    `<text x="${px(rightHalf ? x - 6 : x + 6)}" y="${MARGIN.top + 8}" text-anchor="${rightHalf ? 'end' : 'start'}" ` +
    `fill="${PLOT_COLOURS.threshold}">threshold ${formatTick(panel.threshold)}</text>`;
}
