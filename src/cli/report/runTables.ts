// The report's tables: the run's parameters (only those of its metric), its result and throughput, its input, and
// the strongest tuples with SNP IDs and loci.
import { formatFloat32 } from '../formatFloat32.js';
import type { LoadedRunInfo } from '../runInfoFile.js';
import type { NamedRecord, SnpNaming } from '../snpNaming.js';
import { escapeXml } from './svgText.js';

/** A run field shown in a table: its key in run.json, its label, and the metrics it applies to (all when absent). */
interface FieldRow {
  readonly key: string;
  readonly label: string;
  readonly metrics?: readonly string[];
}

const COMET_METRICS = ['ccc', 'duo'];
const PARAMETER_ROWS: readonly FieldRow[] = [
  { key: 'metric', label: 'metric' }, { key: 'numWay', label: 'way' },
  { key: 'sparse', label: 'sparse (missing calls skipped)', metrics: COMET_METRICS },
  { key: 'numVector', label: 'vectors (SNPs)' }, { key: 'numField', label: 'fields (samples)' },
  { key: 'threshold', label: 'threshold' }, { key: 'top', label: 'kept: the strongest' },
  { key: 'histogram', label: 'histogram of all values' }, { key: 'window', label: 'LD window' },
  { key: 'cccParam', label: 'p', metrics: COMET_METRICS }, { key: 'multiplier', label: 'multiplier', metrics: COMET_METRICS },
  { key: 'singlePrecisionOutput', label: 'float32 output values' }, { key: 'backend', label: 'backend' },
  { key: 'numThreads', label: 'threads' }, { key: 'numRanks', label: 'ranks' }, { key: 'decomposition', label: 'decomposition' },
  { key: 'inputPath', label: 'input' },
];
const RESULT_ROWS: readonly FieldRow[] = [
  { key: 'checksum', label: 'checksum (SPEC §5)' }, { key: 'entries', label: 'entries written' }, { key: 'zeros', label: 'of them zero' },
  { key: 'comparisons', label: 'comparisons (tuples × fields)' }, { key: 'seconds', label: 'run time (s)' },
  { key: 'comparisonsPerSecond', label: 'throughput (comparisons/s)' }, { key: 'inputSeconds', label: 'input load or generation (s)' },
  { key: 'computeSeconds', label: 'compute (s)' }, { key: 'computeComparisonsPerSecond', label: 'compute throughput (comparisons/s)' },
];

/** The parameters that apply to the run's metric and were recorded (a null `top`, `histogram` or `window` is left out). */
export function parameterTable(info: LoadedRunInfo): string {
  return keyValueTable(info.run, PARAMETER_ROWS.filter((row) => row.metrics === undefined || row.metrics.includes(info.metric))
    .filter((row) => !((row.key === 'top' || row.key === 'histogram' || row.key === 'window') && info.run[row.key] == null)));
}

/** Result and throughput. */
export function resultTable(info: LoadedRunInfo): string {
  return keyValueTable(info.run, RESULT_ROWS);
}

function keyValueTable(run: Readonly<Record<string, unknown>>, rows: readonly FieldRow[]): string {
  const body = rows.filter(({ key }) => key in run).map(({ key, label }) =>
    `<tr><th>${escapeXml(label)}</th><td class="num">${escapeXml(formatValue(key, run[key]))}</td></tr>`).join('');
  return `<table>${body}</table>`;
}

/** Where the SNPs came from (the sidecar), or a line saying they are shown by index. */
export function inputTable(naming: SnpNaming): string {
  const sidecar = naming.preparedSidecar;
  if (sidecar === null) return '<p class="note">no sidecar: vectors are shown by index</p>';
  const rows: Array<[string, string]> = [
    ['input', `${sidecar.source.kind} ${sidecar.source.path}`],
    ['missing calls', String(sidecar.numMissingCalls)],
    ['sites skipped', String(sidecar.skippedSites.count)],
    ['vector order', sidecar.vectorOrder === null ? 'as in the input' : `shuffled, seed ${sidecar.vectorOrder.seed} (mapped back)`],
  ];
  return `<h2>Input</h2><table>${rows.map(([label, value]) =>
    `<tr><th>${escapeXml(label)}</th><td>${escapeXml(value)}</td></tr>`).join('')}</table>`;
}

/** The strongest tuples: SNP IDs, loci (with a sidecar), entry bits (not for r², one value per pair), value. */
export function topTable(info: LoadedRunInfo, naming: SnpNaming, top: readonly NamedRecord[]): string {
  const letters = info.numWay === 2 ? ['i', 'j'] : ['i', 'j', 'k'];
  const showEntry = info.metric !== 'r2';
  const head = ['#', ...letters.map((letter) => `SNP ${letter}`), ...(naming.hasNames ? letters.map((letter) => `locus ${letter}`) : []),
    ...(showEntry ? ['entry'] : []), info.metric === 'r2' ? 'r²' : 'value'];
  const rows = top.map((record, rank) => {
    const ids = record.snpIndices.map((snpIdx) => `<td>${escapeXml(naming.snpId(snpIdx))}</td>`).join('');
    const loci = naming.hasNames
      ? record.snpIndices.map((snpIdx) => `<td>${escapeXml(naming.snpLocus(snpIdx) ?? '')}</td>`).join('') : '';
    return `<tr><td class="num">${rank + 1}</td>${ids}${loci}${showEntry ? `<td>${record.entry}</td>` : ''}` +
      `<td class="num">${formatFloat32(record.value)}</td></tr>`;
  }).join('\n');
  return `<table><tr>${head.map((cell) => `<th>${escapeXml(cell)}</th>`).join('')}</tr>\n${rows}</table>`;
}

function formatValue(key: string, value: unknown): string {
  if (value === null || value === undefined) return 'none';
  if (key === 'decomposition' && typeof value === 'object') {
    const d = value as Record<string, number | string | undefined>;
    const split = d.halfDiagonal === undefined || d.halfDiagonal === 'lower-rows' ? '' : `, half-diagonal ${d.halfDiagonal}`;
    return `npv ${d.numProcVector} npf ${d.numProcField} npr ${d.numProcRepl}, phases ${d.phaseMin}-${d.phaseMax} of ${d.numPhase}${split}`;
  }
  if (key === 'threshold' && typeof value === 'object') {
    const threshold = value as Record<string, unknown>;
    return 'value' in threshold ? String(threshold.value) : JSON.stringify(value);
  }
  if (key === 'histogram' && typeof value === 'object') return String((value as Record<string, unknown>).file);
  if (key === 'window' && typeof value === 'object') return describeRecordedWindow(value as Record<string, unknown>);
  if (typeof value === 'number') {
    if (key === 'comparisonsPerSecond' || key === 'computeComparisonsPerSecond') return value.toExponential(3);
    if (key === 'seconds' || key === 'inputSeconds' || key === 'computeSeconds') return value.toFixed(3);
    if (key === 'cccParam') return value.toPrecision(6);
    return String(value);
  }
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** run.json's `window` ({ldWindow, ldWindowKb, interChr}) in words, e.g. `500 kb, 99999 variants, same chromosome`. */
export function describeRecordedWindow(window: Readonly<Record<string, unknown>>): string {
  const limits = [
    ...(typeof window.ldWindowKb === 'number' ? [`${window.ldWindowKb} kb`] : []),
    ...(typeof window.ldWindow === 'number' ? [`${window.ldWindow} variants`] : []),
  ];
  const chromosomes = window.interChr === true ? 'and every pair of two chromosomes' : 'same chromosome';
  return limits.length === 0 ? chromosomes : `${limits.join(', ')}, ${chromosomes}`;
}
