// runOneAhead: job k+1 starts before job k finishes, finishes in order; with `firstAlone` the first job finishes
// before the second starts (a top-N run's records-only bar comes from it), and the rest overlap as before; with `alone`
// every job it names finishes before the next starts (a top-N run's ramp of heads).
import { describe, expect, it } from 'vitest';
import { runOneAhead, type LookaheadOptions } from '../../src/engine/pipeline/lookahead.js';

async function* items(count: number): AsyncGenerator<number> {
  for (let k = 0; k < count; k++) yield k;
}

/** The order of events of a run over `count` items. */
async function eventsOf(count: number, options: LookaheadOptions<number>): Promise<string[]> {
  const events: string[] = [];
  await runOneAhead(items(count), async (k) => {
    events.push(`start ${k}`);
    await Promise.resolve();
    return k * 10;
  }, async (k, result) => {
    events.push(`finish ${k}:${result}`);
    await Promise.resolve();
  }, options);
  return events;
}

describe('runOneAhead', () => {
  it('starts the next job before finishing the current one, finishes in order', async () => {
    expect(await eventsOf(3, {})).toEqual(['start 0', 'start 1', 'finish 0:0', 'start 2', 'finish 1:10', 'finish 2:20']);
  });

  it('firstAlone: the first job finishes before the second starts, later jobs one ahead', async () => {
    expect(await eventsOf(4, { firstAlone: true })).toEqual(['start 0', 'finish 0:0', 'start 1', 'start 2', 'finish 1:10', 'start 3', 'finish 2:20', 'finish 3:30']);
    expect(await eventsOf(1, { firstAlone: true })).toEqual(['start 0', 'finish 0:0']);
    expect(await eventsOf(0, { firstAlone: true })).toEqual([]);
  });

  it('alone: each job it names finishes before the next starts, the others one ahead', async () => {
    const heads = { alone: (k: number) => k < 2 };
    expect(await eventsOf(5, heads)).toEqual([
      'start 0', 'finish 0:0', 'start 1', 'finish 1:10', 'start 2', 'start 3', 'finish 2:20', 'start 4', 'finish 3:30', 'finish 4:40',
    ]);
    expect(await eventsOf(4, { alone: (k) => k === 1 })).toEqual([
      'start 0', 'start 1', 'finish 0:0', 'finish 1:10', 'start 2', 'start 3', 'finish 2:20', 'finish 3:30',
    ]);
    expect(await eventsOf(2, heads)).toEqual(['start 0', 'finish 0:0', 'start 1', 'finish 1:10']);
  });
});
