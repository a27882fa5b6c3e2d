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
 * The gate reads its clock here (`now`), and after a timer has fired it tells a deadline
 * passed by its timer alone (patch gate-timer-clock). A fired timer's continuation can run
 * with the clock of the task before it: a query task that fetched the history after the
 * timer fired runs the firing first on a worker that holds no copy of the gate (a crashed
 * worker's successor; test/integration/stale-clock.test.ts). Its commands then go out with
 * the next task, whose clock is the one a replay sees. Read from the clock, "has the next
 * deadline passed?" could answer no live and yes on replay (a nondeterminism error), the
 * next timer was armed too long, and events were dated early. So after a fire the gate's
 * clock is at least the fired timer's deadline, and a wait whose deadline has passed arms
 * a 1 ms timer instead of returning at once: the same command whatever the clock says.
 * (Before any fire, the gate's own tasks' clocks are the ones a replay sees.)
 *
 * Workflow code: deterministic (the workflow clock, timers in the order of the waits).
 */
export class Deadlines {
  /** Bounded: a wait arms a timer only when none of those running fires by its deadline. */
  private readonly armed: Armed[] = [];
  /** Timers fired so far: a wait wakes when this moves. */
  private fires = 0;
  /**
   * The latest deadline a fired timer was armed for (the server's clock has passed it); 0
   * until a timer fires under the patch, and from then on a deadline is passed when a timer says so.
   */
  private passedAt = 0;

  /**
   * `keepsClock`: whether the patch gate-timer-clock holds (gates of 0.3.0 read the bare
   * workflow clock). Asked when a timer fires and by `armAhead`, never on a reading of the
   * clock, so a gate that no timer woke and that does not escalate records no marker.
   */
  constructor(private readonly keepsClock: () => boolean) {}

  /** The gate's clock (epoch ms): the workflow clock, or a fired timer's deadline when that is later. */
  now(): number {
    return Math.max(Date.now(), this.passedAt);
  }

  /**
   * Whether `deadline` has passed without a wait: by the clock until a timer has fired under
   * the patch, never after (a wait for it arms a 1 ms timer then).
   */
  passed(deadline: number): boolean {
    return this.passedAt === 0 && deadline <= this.now();
  }

  /**
   * Arms the timer of a deadline the gate waits for after earlier ones (its TTL, after the
   * escalation's), while its clock is that of its own task: the wait reuses this timer, so
   * the deadline never hangs on a later task's clock. Only with the patch gate-timer-clock.
   */
  armAhead(deadline: number): void {
    const left = deadline - this.now();
    if (left > 0 && !this.armed.some((t) => !t.fired && t.at <= deadline) && this.keepsClock())
      this.arm(deadline, left);
  }

  /**
   * Waits until `done()` holds (true) or `deadline` (epoch ms) has passed; at the deadline
   * it answers `done()` once more, so a wait whose condition holds at its deadline counts as
   * done, as one woken by it would.
   */
  async until(done: () => boolean, deadline: number): Promise<boolean> {
    for (;;) {
      if (done()) return true;
      // A timer armed for this deadline (or a later one) fired: the deadline has passed on
      // the server's clock, whatever rounding the workflow clock carries.
      if (this.passed(deadline) || this.armed.some((t) => t.fired && t.at >= deadline)) return done();
      if (!this.armed.some((t) => !t.fired && t.at <= deadline)) this.arm(deadline, Math.max(1, deadline - this.now()));
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
      if (this.keepsClock()) this.passedAt = Math.max(this.passedAt, at);
    });
  }
}
