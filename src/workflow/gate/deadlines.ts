import { CancellationScope, condition, sleep } from '@temporalio/workflow';

/** A durable timer this execution started: the deadline it was armed for, and whether it fired. */
interface Armed {
  at: number;
  fired: boolean;
}

/**
 * The waits of one gate execution with a deadline (the decision's TTL, the consume
 * deadline, the escalation notice), on durable timers that are never cancelled.
 *
 * `condition(fn, timeout)` starts a timer for every wait and cancels it when `fn` holds
 * first: a gate that was approved and consumed recorded two `TimerStarted` and two
 * `TimerCanceled` events, each a timer task or a change to it on the server. Here a
 * timer outlives the wait that armed it. A later wait reuses a running timer that fires
 * no later than its own deadline: it wakes when that timer fires, finds its deadline not
 * reached, and arms a timer for the rest. Only a wait that must wake earlier than every
 * running timer arms a new one. Timers left running when the gate ends cost nothing more:
 * Temporal drops the timers of a closed workflow. So no wait cancels a timer, and an
 * approval whose consume window ends no earlier than the TTL starts none (the consume
 * wait wakes on the TTL's timer if it is still open then). The price is paid only when a
 * timer fires while the gate still waits for something later (a consume after the TTL has
 * passed): one workflow task that re-arms, where a cancel and a start would have been
 * recorded at the approval instead.
 *
 * Workflow code: deterministic (the workflow clock, timers in the order of the waits).
 */
export class Deadlines {
  /** Bounded: a wait arms a timer only when none of those running fires by its deadline. */
  private readonly armed: Armed[] = [];
  /** Timers fired so far: a wait wakes when this moves. */
  private fires = 0;

  /**
   * Waits until `done()` holds (true) or the workflow clock reaches `deadline` (epoch ms);
   * at the deadline it answers `done()` once more, so a wait whose condition holds at its
   * deadline counts as done, as one woken by it would.
   */
  async until(done: () => boolean, deadline: number): Promise<boolean> {
    for (;;) {
      if (done()) return true;
      const left = deadline - Date.now();
      // A timer armed for this deadline (or a later one) fired: the deadline has passed on
      // the server's clock, whatever rounding the workflow clock carries.
      if (left <= 0 || this.armed.some((t) => t.fired && t.at >= deadline)) return done();
      if (!this.armed.some((t) => !t.fired && t.at <= deadline)) this.arm(deadline, left);
      const seen = this.fires;
      await condition(() => done() || this.fires !== seen);
    }
  }

  private arm(at: number, ms: number): void {
    const timer: Armed = { at, fired: false };
    this.armed.push(timer);
    // Non-cancellable: nothing cancels it, not even the gate's own cancellation (a wait sees that itself).
    void CancellationScope.nonCancellable(() => sleep(ms)).then(() => {
      timer.fired = true;
      this.fires++;
    });
  }
}
