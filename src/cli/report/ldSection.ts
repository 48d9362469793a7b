// The report's LD section for r² runs: the heatmap of the region with the most kept pairs and the LD-decay plot,
// each with a line saying what it shows, or one line saying why it is not drawn.
import type { SnpNaming } from '../snpNaming.js';
import { renderLdDecaySvg, decayBinRows, DECAY_TABLE_HEAD } from './ldDecaySvg.js';
import { deepestKeptOffset, renderLdHeatmapSvg, type HeatmapSnp } from './ldHeatmapSvg.js';
import { MAX_HEATMAP_SNPS, readLdPlotData, type LdWindowValues } from './ldPairs.js';
import type { RecordedSelection } from './recordedRun.js';
import { escapeXml, formatBasePairs, formatTick } from './svgText.js';

/** The LD section's HTML for the kept pairs of a r² run (metrics `files`, `numSnp` SNPs). */
export function renderLdSection(files: readonly string[], naming: SnpNaming, numSnp: number, selection: RecordedSelection): string {
  const data = readLdPlotData(files, naming, numSnp);
  const kept = keptPairsPhrase(selection);
  const heatmap = typeof data.window === 'string'
    ? notDrawn('LD heatmap', data.window)
    : `<p class="note">${escapeXml(describeWindow(data.window, naming))} Colour: r² of ${escapeXml(kept)}; ` +
      `grey: no record (${escapeXml(notRecordedMeaning(selection))}).</p>\n${renderLdHeatmapSvg({
        snps: windowSnps(data.window, naming), values: data.window.values, notRecordedLabel: `no record: ${notRecordedMeaning(selection)}`,
      })}`;
  const decay = typeof data.decay === 'string'
    ? notDrawn('LD decay', data.decay)
    : `<p class="note">r² of ${escapeXml(kept)} with both SNPs on one chromosome (${data.decay.numPairs} pairs), against their ` +
      `distance, in bins of ${escapeXml(formatBasePairs(data.decay.binWidthBp))}${selection.threshold.kind === 'none' && selection.top === null ? ''
        : '; pairs that were not kept are not in the files, so the means and medians are of kept pairs only'}.</p>\n` +
      `${renderLdDecaySvg(data.decay)}\n<details><summary>bins as a table</summary><table class="decay">` +
      `<tr>${DECAY_TABLE_HEAD.map((cell) => `<th>${escapeXml(cell)}</th>`).join('')}</tr>` +
      decayBinRows(data.decay).map((row) => `<tr>${row.map((cell) => `<td class="num">${cell}</td>`).join('')}</tr>`).join('') +
      '</table></details>';
  return `<h2>LD heatmap</h2>\n${heatmap}\n<h2>LD decay</h2>\n${decay}`;
}

function notDrawn(what: string, reason: string): string {
  return `<p class="note not-drawn">${escapeXml(what)} not drawn: ${escapeXml(reason)}.</p>`;
}

function keptPairsPhrase(selection: RecordedSelection): string {
  if (selection.top !== null) return `the ${selection.top} strongest pairs kept (run --top)`;
  const { threshold } = selection;
  return threshold.kind === 'single' ? `the pairs kept (r² > ${formatTick(threshold.value)})` : 'the pairs kept';
}

function notRecordedMeaning(selection: RecordedSelection): string {
  const outside = selection.windowed ? ', or outside the LD window' : '';
  if (selection.top !== null) return `not among the ${selection.top} strongest${outside}`;
  const { threshold } = selection;
  return threshold.kind === 'single' ? `r² ≤ ${formatTick(threshold.value)}, below the threshold${outside}`
    : `not kept: below the threshold, or r² undefined${outside}`;
}

function describeWindow(window: LdWindowValues, naming: SnpNaming): string {
  const { start, end, numPairs } = window.region;
  const first = `${naming.snpId(start)}${lociOf(naming, start)}`;
  const last = `${naming.snpId(end - 1)}${lociOf(naming, end - 1)}`;
  const snps = naming.preparedSidecar?.snps;
  const span = snps === undefined ? '' : `, ${formatBasePairs(Math.abs(snps.pos[end - 1] - snps.pos[start]))}`;
  const numSnp = end - start;
  const deepest = deepestKeptOffset(window.values, numSnp);
  const cut = deepest + 2 < numSnp - 1 ? ` Drawn down to pairs ${deepest + 2} SNPs apart: no pair further apart was kept.` : '';
  return `${numSnp} consecutive SNPs, ${first} to ${last}${span}: of the windows of up to ${MAX_HEATMAP_SNPS} SNPs on one ` +
    `chromosome, the first with the most kept pairs (${numPairs}).${cut}`;
}

function lociOf(naming: SnpNaming, snpIdx: number): string {
  const snps = naming.preparedSidecar?.snps;
  return snps === undefined ? '' : ` (${snps.chrom[snpIdx]}:${snps.pos[snpIdx]})`;
}

function windowSnps(window: LdWindowValues, naming: SnpNaming): HeatmapSnp[] {
  const snps = naming.preparedSidecar?.snps;
  return Array.from({ length: window.region.end - window.region.start }, (_, k) => {
    const snpIdx = window.region.start + k;
    return {
      id: naming.snpId(snpIdx),
      locus: snps === undefined ? null : `${snps.chrom[snpIdx]}:${snps.pos[snpIdx]}`,
      chrom: snps === undefined ? null : snps.chrom[snpIdx],
      pos: snps === undefined ? null : snps.pos[snpIdx],
    };
  });
}
