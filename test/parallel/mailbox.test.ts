// Tag matching: arrivals and receives meet per key in FIFO order, whichever comes first; a closed mailbox fails receives.
import { describe, expect, it } from 'vitest';
import { Mailbox } from '../../src/parallel/mailbox.js';

describe('Mailbox', () => {
  it('matches per key in order, with receives before or after arrival', async () => {
    const mailbox = new Mailbox();
    const first = mailbox.take('a');
    const second = mailbox.take('a');
    mailbox.deliver('b', Uint8Array.of(9));
    mailbox.deliver('a', Uint8Array.of(1));
    mailbox.deliver('a', Uint8Array.of(2));
    mailbox.deliver('a', Uint8Array.of(3));
    expect(Array.from(await first)).toEqual([1]);
    expect(Array.from(await second)).toEqual([2]);
    expect(mailbox.numPending).toBe(2);
    expect(Array.from(await mailbox.take('a'))).toEqual([3]);
    expect(Array.from(await mailbox.take('b'))).toEqual([9]);
    expect(mailbox.numPending).toBe(0);
  });

  it('fails every waiting receive and every later one once closed, with the first reason', async () => {
    const mailbox = new Mailbox();
    const waiting = [mailbox.take('a'), mailbox.take('a'), mailbox.take('b')];
    mailbox.close(new Error('stopped: rank 1 failed'));
    mailbox.close(new Error('a second reason'));
    for (const receive of waiting) await expect(receive).rejects.toThrow('stopped: rank 1 failed');
    mailbox.deliver('a', Uint8Array.of(1));
    await expect(mailbox.take('a')).rejects.toThrow('stopped: rank 1 failed');
  });
});
