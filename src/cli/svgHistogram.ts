// Renders one histogram as an inline SVG element (bars, axes, tick labels), no scripts or external files.

/** What one histogram panel shows. */
export interface HistogramPanel {
  readonly title: string;
  readonly counts: readonly number[];
  readonly minValue: number;
  readonly maxValue: number;
  /** Shared y scale across panels so they compare at a glance. */
  readonly maxCount: number;
}

const WIDTH = 360;
const HEIGHT = 214;
const MARGIN = { left: 48, right: 10, top: 24, bottom: 46 };

/** Escapes text for HTML and SVG content and attributes. */
export function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** A `<svg>` histogram with x ticks at the range ends and middle, y ticks at 0 and the shared maximum. */
export function renderHistogramSvg(panel: HistogramPanel): string {
  const plotWidth = WIDTH - MARGIN.left - MARGIN.right;
  const plotHeight = HEIGHT - MARGIN.top - MARGIN.bottom;
  const numBins = panel.counts.length;
  const barWidth = plotWidth / numBins;
  const yOf = (count: number): number => MARGIN.top + plotHeight - (panel.maxCount === 0 ? 0 : (count / panel.maxCount) * plotHeight);
  const bars = panel.counts.map((count, b) => {
    if (count === 0) return '';
    const x = MARGIN.left + b * barWidth;
    const y = yOf(count);
    return `<rect x="${x.toFixed(1)}" y="${y.toFixed(1)}" width="${Math.max(barWidth - 1, 0.5).toFixed(1)}" ` +
      `height="${(MARGIN.top + plotHeight - y).toFixed(1)}" fill="#3b6ea8"><title>${count}</title></rect>`;
  }).join('');
  const axisY = MARGIN.top + plotHeight;
  const middle = (panel.minValue + panel.maxValue) / 2;
  const xTicks = [[panel.minValue, MARGIN.left, 'start'], [middle, MARGIN.left + plotWidth / 2, 'middle'],
    [panel.maxValue, MARGIN.left + plotWidth, 'end']] as const;
  const xLabels = xTicks.map(([value, x, anchor]) =>
    `<text x="${x.toFixed(1)}" y="${axisY + 16}" text-anchor="${anchor}">${formatTick(value)}</text>`).join('');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" ` +
    `font-family="sans-serif" font-size="11" role="img" aria-label="${escapeXml(panel.title)}">` +
    `<text x="${MARGIN.left}" y="14" font-size="13" font-weight="bold">${escapeXml(panel.title)}</text>` +
    bars +
    `<line x1="${MARGIN.left}" y1="${axisY}" x2="${MARGIN.left + plotWidth}" y2="${axisY}" stroke="#333"/>` +
    `<line x1="${MARGIN.left}" y1="${MARGIN.top}" x2="${MARGIN.left}" y2="${axisY}" stroke="#333"/>` +
    `<text x="${MARGIN.left - 4}" y="${axisY}" text-anchor="end">0</text>` +
    `<text x="${MARGIN.left - 4}" y="${MARGIN.top + 8}" text-anchor="end">${panel.maxCount}</text>` +
    `${xLabels}<text x="${MARGIN.left + plotWidth / 2}" y="${axisY + 31}" text-anchor="middle" fill="#555">value</text>` +
    `<text transform="translate(14 ${MARGIN.top + plotHeight / 2}) rotate(-90)" text-anchor="middle" fill="#555">count</text></svg>`;
}

function formatTick(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toPrecision(3);
}
