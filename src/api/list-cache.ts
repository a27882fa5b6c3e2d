/**
 * Answers repeated listings from one visibility query: an answer younger than `freshMs`
 * is served as is; an older one, up to `maxAgeMs`, is served while one refresh runs in
 * the background; past that the caller waits for the refresh. Listings come from Temporal
 * visibility, which is eventually consistent anyway; during a burst of creates its
 * queries wait behind the visibility writes (docs/bursts.md), and every reviewer page
 * polling the same filter would add one more.
 */
export class ListCache<T> {
  private readonly entries = new Map<string, { at: number; value?: T; loading?: Promise<T> }>();

  constructor(private readonly opts: { freshMs: number; maxAgeMs: number; maxEntries?: number; now?: () => number }) {}

  /** The answer for `key`, from the cache or from `load` (one load per key at a time). */
  async get(key: string, load: () => Promise<T>): Promise<T> {
    if (this.opts.freshMs <= 0) return load();
    const now = this.now();
    const e = this.entries.get(key);
    if (e?.value !== undefined) {
      const age = now - e.at;
      if (age < this.opts.freshMs) return e.value;
      if (age < this.opts.maxAgeMs) {
        // A failed background refresh keeps the old answer until maxAgeMs, then callers see the error.
        if (!e.loading) this.refresh(key, load).catch(() => undefined);
        return e.value;
      }
    }
    return e?.loading ?? this.refresh(key, load);
  }

  /**
   * This API changed a gate. `soft` (a create, many at once in a burst): the next listing
   * starts a refresh and is served the old answer meanwhile. Otherwise (a person's decision,
   * a consume, a cancel) the next listing waits for an answer loaded after the change.
   */
  touch(soft: boolean): void {
    for (const [key, e] of this.entries) {
      if (soft) e.at = Math.min(e.at, this.now() - this.opts.freshMs);
      else if (e.value === undefined) this.entries.delete(key);
      else this.entries.set(key, { at: -Infinity, value: e.value }); // an earlier load in flight no longer counts
    }
  }

  private refresh(key: string, load: () => Promise<T>): Promise<T> {
    const started = this.now();
    const loading = load().then(
      (value) => {
        const cur = this.entries.get(key);
        if (cur?.loading === loading) this.entries.set(key, { at: started, value });
        return value;
      },
      (err: unknown) => {
        const cur = this.entries.get(key);
        if (cur?.loading === loading) {
          if (cur.value === undefined) this.entries.delete(key);
          else delete cur.loading;
        }
        throw err;
      },
    );
    const cur = this.entries.get(key);
    this.entries.set(key, {
      at: cur?.at ?? started,
      ...(cur?.value !== undefined ? { value: cur.value } : {}),
      loading,
    });
    this.evict();
    return loading;
  }

  private evict(): void {
    const max = this.opts.maxEntries ?? 1000;
    // Maps iterate in insertion order: the first keys are the oldest filters.
    for (const key of this.entries.keys()) {
      if (this.entries.size <= max) break;
      this.entries.delete(key);
    }
  }

  private now(): number {
    return (this.opts.now ?? Date.now)();
  }
}
