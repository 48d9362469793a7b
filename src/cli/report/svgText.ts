// Small text helpers shared by the report's inline SVG plots: escaping, tick labels, round steps, colours.

/** Escapes text for HTML and SVG content and attributes. */
export function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** A tick label: integers as they are, other values to 3 significant digits without trailing zeros. */
export function formatTick(value: number): string {
  return Number.isInteger(value) ? String(value) : String(Number(value.toPrecision(3)));
}

/** The smallest 1, 2 or 5 × 10^k that is ≥ `rough` (> 0): bin widths and tick steps people read at a glance. */
export function roundStepAtLeast(rough: number): number {
  if (!(rough > 0)) return 1;
  const power = 10 ** Math.floor(Math.log10(rough));
  for (const multiple of [1, 2, 5, 10]) {
    if (multiple * power >= rough * (1 - 1e-12)) return multiple * power;
  }
  return 10 * power;
}

/** A base-pair distance or position for axes: bp, kb or Mb, whichever keeps the figure short. */
export function formatBasePairs(bp: number): string {
  if (Math.abs(bp) >= 1e6) return `${formatTick(bp / 1e6)} Mb`;
  if (Math.abs(bp) >= 1e3) return `${formatTick(bp / 1e3)} kb`;
  return `${formatTick(bp)} bp`;
}

/** `<svg>` opening tag that scales to its container's width (CSS class `plot`), drawn in `width` × `height` units. */
export function openPlotSvg(width: number, height: number, label: string): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" class="plot" viewBox="0 0 ${width} ${height}" ` +
    `font-family="sans-serif" font-size="12" role="img" aria-label="${escapeXml(label)}">`;
}

/** `x` to one decimal: SVG coordinates need no more, and pages stay small. */
export function px(x: number): string {
  return x.toFixed(1);
}

/** Marker colours: each plot draws its data in a colour no other plot uses, so a screenshot can find it. */
export const PLOT_COLOURS = {
  histogramBar: '#3b6ea8',
  threshold: '#d62728',
  decayMean: '#2ca02c',
  decayMedian: '#9467bd',
  decayPair: '#bbbbbb',
  notRecorded: '#e6e6e6',
} as const;
