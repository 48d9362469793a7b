// The order in which the kernel set's requests use the device. Requests encode and submit one at a time, in the
// order they come: they share programs, resident operands and scratch buffers, which a request's encoding may grow
// or evict. Collecting results happens outside the turn, so the next request's kernels are queued on the GPU while
// the last one's results come back. Every request is tracked until its result is complete, so that closing the
// kernel set can wait for them.

import type { Pending } from './dispatch.js';

/** One kernel set's request turns and its requests in flight. */
export class RequestTurns {
  /** Settles when the latest request given a turn has left it. */
  private turn: Promise<unknown> = Promise.resolve();
  /** Requests whose results are not complete yet. */
  private readonly inFlight = new Set<Promise<unknown>>();

  /** Runs `work` once every request before it has left its turn; the next one waits for this one to settle. */
  inTurn<R>(work: () => Promise<R>): Promise<R> {
    const result = this.turn.then(work);
    this.turn = result.catch(() => undefined);
    return result;
  }

  /** A request until its result is complete (allSettled waits for it). */
  tracked<R>(work: () => Promise<R>): Promise<R> {
    const result = work();
    this.inFlight.add(result);
    const forget = (): void => {
      this.inFlight.delete(result);
    };
    result.then(forget, forget);
    return result;
  }

  /** A tracked request that submits in its turn and collects after it. */
  submitThenCollect<R>(submit: () => Promise<Pending<R>>): Promise<R> {
    return this.tracked(async () => (await this.inTurn(submit)).collect());
  }

  /** Settles when every request tracked so far has settled. */
  async allSettled(): Promise<void> {
    await Promise.allSettled([...this.inFlight]);
  }
}
