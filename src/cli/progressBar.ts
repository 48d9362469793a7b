// A progress bar with rate and ETA on stderr, shown only where a person is watching.
import cliProgress from 'cli-progress';
import type { ProgressListener } from './engineApi.js';

/** A progress display: pass `onProgress` to the engine, call `stop` when the run ends (either way). */
export interface ProgressDisplay {
  readonly onProgress: ProgressListener | undefined;
  /** Prints a header line before the work starts (what the run expects of the machine). */
  readonly header: ((line: string) => void) | undefined;
  stop(): void;
}

/**
 * A bar on stderr when `enabled` (the caller decides: stderr is a TTY and output is not JSON), otherwise
 * a display that does nothing. The bar starts on the first report, when the total is known.
 */
export function createProgressDisplay(enabled: boolean): ProgressDisplay {
  if (!enabled) return { onProgress: undefined, header: undefined, stop: () => undefined };
  const bar = new cliProgress.SingleBar({
    stream: process.stderr,
    format: 'snptally {bar} {percentage}% | {rate} comparisons/s | ETA {eta_formatted}',
    // The cursor stays visible: an interrupted run (Ctrl-C) would otherwise leave it hidden.
    hideCursor: false,
    clearOnComplete: true,
    etaBuffer: 50,
  }, cliProgress.Presets.shades_classic);
  // The rate counts from the creation of the display (just before the run starts), not from the first
  // report: the engine may report only after a large share of the work is done.
  const createdAt = performance.now();
  let started = false;
  return {
    header: (line: string) => process.stderr.write(`snptally: ${line}\n`),
    onProgress: (done: number, total: number) => {
      const seconds = (performance.now() - createdAt) / 1000;
      const rate = seconds > 0 ? (done / seconds).toExponential(2) : '-';
      if (!started) {
        started = true;
        bar.start(total, done, { rate });
        return;
      }
      bar.setTotal(total);
      bar.update(done, { rate });
    },
    stop: () => {
      if (started) bar.stop();
    },
  };
}
