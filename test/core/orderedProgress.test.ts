// Out-of-order parts awaited in order: LeadingRun and Watermark against their definitions.
import { describe, expect, it } from 'vitest';
import { LeadingRun, Watermark } from '../../src/core/orderedProgress.js';

describe('LeadingRun', () => {
  it('counts the leading parts that are all done, whatever the order they finish in', () => {
    const order = [3, 0, 2, 5, 1, 4];
    const run = new LeadingRun(order.length);
    const done = new Set<number>();
    for (const part of order) {
      done.add(part);
      let leading = 0;
      while (done.has(leading)) leading++;
      expect(run.markDone(part)).toBe(leading);
      expect(run.leading).toBe(leading);
    }
    expect(run.leading).toBe(6);
  });

  it('refuses a part outside the run', () => {
    expect(() => new LeadingRun(2).markDone(2)).toThrow(RangeError);
    expect(() => new LeadingRun(2).markDone(-1)).toThrow(RangeError);
  });
});

describe('Watermark', () => {
  it('resolves each wait once the value reaches its mark, never before', async () => {
    const mark = new Watermark();
    const resolved: number[] = [];
    const waits = [5, 1, 3, 3].map((m) => mark.whenReached(m).then(() => { resolved.push(m); }));
    mark.advance(2);
    await Promise.resolve();
    expect(resolved).toEqual([1]);
    mark.advance(1);
    mark.advance(4);
    await Promise.resolve();
    expect(resolved).toEqual([1, 3, 3]);
    expect(mark.value).toBe(4);
    mark.advance(5);
    await Promise.all(waits);
    expect(resolved).toEqual([1, 3, 3, 5]);
    await expect(mark.whenReached(0)).resolves.toBeUndefined();
  });

  it('rejects the waits not yet reached, and later ones, with the failure; reached marks still resolve', async () => {
    const mark = new Watermark();
    mark.advance(2);
    const pending = mark.whenReached(3);
    mark.fail(new Error('source failed'));
    await expect(pending).rejects.toThrow('source failed');
    await expect(mark.whenReached(7)).rejects.toThrow('source failed');
    await expect(mark.whenReached(2)).resolves.toBeUndefined();
  });
});
