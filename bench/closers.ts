/**
 * What a section opened, closed in reverse order in its `finally`, also when it failed
 * halfway through opening (a worker started, the next one not).
 */
export class Closers {
  private readonly stack: (() => Promise<unknown>)[] = [];

  /** Registers `thing.stop()` (or `stop(thing)`) and returns `thing`. */
  add<T extends { stop(): Promise<unknown> }>(thing: T): T;
  add<T>(thing: T, stop: (t: T) => Promise<unknown>): T;
  add<T>(thing: T, stop?: (t: T) => Promise<unknown>): T {
    this.stack.push(() => (stop ? stop(thing) : (thing as { stop(): Promise<unknown> }).stop()));
    return thing;
  }

  /** Closes everything, last opened first; a failing close does not keep the others open. */
  async close(): Promise<void> {
    while (this.stack.length > 0) await this.stack.pop()!().catch(() => undefined);
  }
}
