// The LD heatmap of a window of consecutive SNPs, drawn as geneticists know it (Haploview's triangle): pair (a, b)
// is a diamond below the midpoint of SNPs a and b, coloured by r²; SNPs hang from a genomic-position track above.
import { escapeXml, formatTick, openPlotSvg, PLOT_COLOURS, px } from './svgText.js';

/** A SNP of the window, for labels. */
export interface HeatmapSnp {
  readonly id: string;
  /** `CHR:BP`, or null without a sidecar. */
  readonly locus: string | null;
  readonly chrom: string | null;
  readonly pos: number | null;
}

/** What the heatmap draws. */
export interface LdHeatmap {
  readonly snps: readonly HeatmapSnp[];
  /** `values[a · n + b]` for a < b: r², NaN where the run kept no record. */
  readonly values: Float32Array;
  /** Legend text of the cells without a record, e.g. `not recorded (r² ≤ 0.2: below the threshold)`. */
  readonly notRecordedLabel: string;
}

const WIDTH = 1200;
const MARGIN = { left: 30, right: 30, top: 200, bottom: 70 };
/** Height of the position track (genomic line to SNP columns). */
const TRACK = 44;
/** Colour stops of r² from 0 to 1: pale yellow to dark red, so the strong LD blocks stand out. */
const RAMP: ReadonlyArray<readonly [number, number, number]> = [
  [255, 247, 188], [254, 196, 79], [236, 112, 20], [204, 36, 29], [103, 0, 13],
];

/** The colour of r² `value` in [0, 1] on the ramp, as `rgb(…)`. */
export function rampColour(value: number): string {
  const t = Math.min(1, Math.max(0, value)) * (RAMP.length - 1);
  const low = Math.min(RAMP.length - 2, Math.floor(t));
  const f = t - low;
  const channel = (k: number): number => Math.round(RAMP[low][k] + (RAMP[low + 1][k] - RAMP[low][k]) * f);
  return `rgb(${channel(0)},${channel(1)},${channel(2)})`;
}

/** The largest b − a of a kept pair (a, b) of the window: rows below it hold no record and are not drawn. */
export function deepestKeptOffset(values: Float32Array, n: number): number {
  let deepest = 1;
  for (let a = 0; a < n; a++) {
    for (let b = a + 1; b < n; b++) if (!Number.isNaN(values[a * n + b]) && b - a > deepest) deepest = b - a;
  }
  return deepest;
}

/** The `<svg>` of the heatmap (at least 2 SNPs), down to the deepest kept pair and two rows more. */
export function renderLdHeatmapSvg(heatmap: LdHeatmap): string {
  const n = heatmap.snps.length;
  const cell = (WIDTH - MARGIN.left - MARGIN.right) / n;
  const top = MARGIN.top;
  const xOfSnp = (k: number): number => MARGIN.left + (k + 0.5) * cell;
  const depth = Math.min(n - 1, deepestKeptOffset(heatmap.values, n) + 2);
  const bandHeight = ((depth + 1) * cell) / 2;
  const height = top + bandHeight + MARGIN.bottom;
  const parts: string[] = [openPlotSvg(WIDTH, height, 'LD heatmap (r²)')];
  // Cells without a record: one background band (a triangle when it reaches the apex) under the diamonds.
  const deepY = top + (depth * cell) / 2;
  const band = [[xOfSnp(0.5), top], [xOfSnp(n - 1.5), top], [xOfSnp(n - 1), top + cell / 2],
    [xOfSnp(n - 1 - depth / 2) + cell / 2, deepY], [xOfSnp(n - 1 - depth / 2), deepY + cell / 2],
    [xOfSnp(depth / 2), deepY + cell / 2], [xOfSnp(depth / 2) - cell / 2, deepY], [xOfSnp(0), top + cell / 2]];
  parts.push(`<polygon points="${band.map(([x, y]) => `${px(x)},${px(y)}`).join(' ')}" fill="${PLOT_COLOURS.notRecorded}"/>`);
  const half = cell / 2;
  for (let a = 0; a < n; a++) {
    for (let b = a + 1; b < n; b++) {
      const value = heatmap.values[a * n + b];
      if (Number.isNaN(value)) continue;
      const cx = (xOfSnp(a) + xOfSnp(b)) / 2;
      const cy = top + ((b - a) * cell) / 2;
      parts.push(`<polygon points="${px(cx)},${px(cy - half)} ${px(cx + half)},${px(cy)} ${px(cx)},${px(cy + half)} ${px(cx - half)},${px(cy)}" ` +
        `fill="${rampColour(value)}"><title>${escapeXml(heatmap.snps[a].id)} – ${escapeXml(heatmap.snps[b].id)}: r² ${formatTick(value)}</title></polygon>`);
    }
  }
  parts.push(positionTrack(heatmap.snps, xOfSnp, top), snpLabels(heatmap.snps, xOfSnp, top - TRACK - 6));
  parts.push(legend(heatmap.notRecordedLabel, top + bandHeight + 24), '</svg>');
  return parts.join('');
}

/** A line for the window's genomic span, each SNP joined from its position on it to its column. */
function positionTrack(snps: readonly HeatmapSnp[], xOfSnp: (k: number) => number, top: number): string {
  const first = snps[0].pos;
  const last = snps[snps.length - 1].pos;
  const lineY = top - TRACK;
  const left = xOfSnp(0);
  const right = xOfSnp(snps.length - 1);
  const span = first !== null && last !== null && last > first ? last - first : null;
  const lines = snps.map((snp, k) => {
    const onLine = span === null || snp.pos === null ? xOfSnp(k) : left + ((snp.pos - (first as number)) / span) * (right - left);
    return `<line x1="${px(onLine)}" y1="${lineY}" x2="${px(xOfSnp(k))}" y2="${top - 3}" stroke="#888" stroke-width="0.6"/>`;
  }).join('');
  return `<line x1="${px(left)}" y1="${lineY}" x2="${px(right)}" y2="${lineY}" stroke="#333" stroke-width="2"/>${lines}`;
}

/** SNP IDs (and CHR:BP) at the ends and about every twelfth SNP, upright above the track. */
function snpLabels(snps: readonly HeatmapSnp[], xOfSnp: (k: number) => number, baseY: number): string {
  const every = Math.max(1, Math.ceil(snps.length / 12));
  const labelled = new Set<number>([0, snps.length - 1]);
  for (let k = every; k < snps.length - every / 2; k += every) labelled.add(k);
  return [...labelled].sort((x, y) => x - y).map((k) => {
    const snp = snps[k];
    const text = snp.locus === null ? snp.id : `${snp.id} ${snp.locus}`;
    return `<text transform="translate(${px(xOfSnp(k))} ${baseY}) rotate(-90)" font-size="11" dominant-baseline="middle">${escapeXml(text)}</text>`;
  }).join('');
}

/** The colour ramp with r² ticks, and the swatch of cells without a record. */
function legend(notRecordedLabel: string, y: number): string {
  const x0 = MARGIN.left;
  const rampWidth = 300;
  const steps = 50;
  const swatches = Array.from({ length: steps }, (_, s) =>
    `<rect x="${px(x0 + (s * rampWidth) / steps)}" y="${y}" width="${px(rampWidth / steps + 0.5)}" height="14" fill="${rampColour((s + 0.5) / steps)}"/>`).join('');
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((value) =>
    `<text x="${px(x0 + value * rampWidth)}" y="${y + 28}" text-anchor="middle">${value}</text>`).join('');
  return `${swatches}${ticks}<text x="${x0 + rampWidth + 10}" y="${y + 12}">r²</text>` +
    `<rect x="${x0 + rampWidth + 50}" y="${y}" width="22" height="14" fill="${PLOT_COLOURS.notRecorded}" stroke="#bbb"/>` +
    `<text x="${x0 + rampWidth + 80}" y="${y + 12}">${escapeXml(notRecordedLabel)}</text>`;
}
