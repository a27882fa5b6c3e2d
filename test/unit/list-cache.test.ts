import { ListCache } from '../../src/api/list-cache';

/** A load the test resolves by hand, counting its calls. */
function loads() {
  const pending: Array<{ resolve: (v: string) => void; reject: (e: Error) => void }> = [];
  let calls = 0;
  const load = () =>
    new Promise<string>((resolve, reject) => {
      calls++;
      pending.push({ resolve, reject });
    });
  return { load, pending, calls: () => calls };
}

function setup(freshMs = 1000, maxAgeMs = 10_000) {
  let t = 0;
  const cache = new ListCache<string>({ freshMs, maxAgeMs, now: () => t, maxEntries: 3 });
  return { cache, advance: (ms: number) => (t += ms) };
}

it('serves a fresh answer without loading again, and one load for callers that arrive together', async () => {
  const { cache } = setup();
  const l = loads();
  const a = cache.get('k', l.load);
  const b = cache.get('k', l.load);
  l.pending[0]!.resolve('v1');
  expect(await a).toBe('v1');
  expect(await b).toBe('v1');
  expect(await cache.get('k', l.load)).toBe('v1');
  expect(l.calls()).toBe(1);
});

it('serves a stale answer at once while one refresh runs, then the refreshed one', async () => {
  const { cache, advance } = setup();
  const l = loads();
  const first = cache.get('k', l.load);
  l.pending[0]!.resolve('v1');
  await first;
  advance(1500);
  expect(await cache.get('k', l.load)).toBe('v1'); // stale, served
  expect(await cache.get('k', l.load)).toBe('v1'); // the refresh is running: no second one
  expect(l.calls()).toBe(2);
  l.pending[1]!.resolve('v2');
  await new Promise((r) => setImmediate(r));
  expect(await cache.get('k', l.load)).toBe('v2');
  expect(l.calls()).toBe(2);
});

it('waits for a fresh answer once the old one is past its maximum age', async () => {
  const { cache, advance } = setup();
  const l = loads();
  const first = cache.get('k', l.load);
  l.pending[0]!.resolve('v1');
  await first;
  advance(10_000);
  let settled: string | undefined;
  const next = cache.get('k', l.load).then((v) => (settled = v));
  await new Promise((r) => setImmediate(r));
  expect(settled).toBeUndefined();
  l.pending[1]!.resolve('v2');
  await next;
  expect(settled).toBe('v2');
});

it('a failed first load reaches its callers and is not cached; a failed refresh keeps the old answer', async () => {
  const { cache, advance } = setup();
  const l = loads();
  const first = cache.get('k', l.load);
  l.pending[0]!.reject(new Error('visibility down'));
  await expect(first).rejects.toThrow('visibility down');
  const second = cache.get('k', l.load);
  l.pending[1]!.resolve('v1');
  expect(await second).toBe('v1');
  advance(2000);
  expect(await cache.get('k', l.load)).toBe('v1');
  l.pending[2]!.reject(new Error('visibility down'));
  await new Promise((r) => setImmediate(r));
  expect(await cache.get('k', l.load)).toBe('v1'); // still within the maximum age; a new refresh starts
  expect(l.calls()).toBe(4);
});

it('a soft touch makes every answer stale: the next listing gets it and starts a refresh', async () => {
  const { cache } = setup();
  const l = loads();
  const first = cache.get('k', l.load);
  l.pending[0]!.resolve('v1');
  await first;
  cache.touch(true);
  expect(await cache.get('k', l.load)).toBe('v1');
  expect(l.calls()).toBe(2);
});

it('a hard touch makes the next listing wait for a load started after it, even with one in flight', async () => {
  const { cache, advance } = setup();
  const l = loads();
  const first = cache.get('k', l.load);
  l.pending[0]!.resolve('v1');
  await first;
  advance(1500);
  expect(await cache.get('k', l.load)).toBe('v1'); // starts refresh #2
  cache.touch(false);
  const next = cache.get('k', l.load); // must not take refresh #2, begun before the change
  expect(l.calls()).toBe(3);
  l.pending[1]!.resolve('before the change');
  l.pending[2]!.resolve('after the change');
  expect(await next).toBe('after the change');
  expect(await cache.get('k', l.load)).toBe('after the change');
});

it('keeps answers per key, and at most maxEntries keys', async () => {
  const { cache } = setup();
  for (const k of ['a', 'b', 'c', 'd']) {
    const p = cache.get(k, async () => `v-${k}`);
    expect(await p).toBe(`v-${k}`);
  }
  let loaded = 0;
  expect(await cache.get('a', async () => (loaded++, 'v-a2'))).toBe('v-a2'); // evicted, loaded again
  expect(await cache.get('d', async () => (loaded++, 'v-d2'))).toBe('v-d'); // still cached
  expect(loaded).toBe(1);
});

it('caches nothing when freshMs is 0', async () => {
  const cache = new ListCache<string>({ freshMs: 0, maxAgeMs: 0 });
  let n = 0;
  await cache.get('k', async () => String(n++));
  expect(await cache.get('k', async () => String(n++))).toBe('1');
});
