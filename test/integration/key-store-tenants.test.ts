import type { Db } from '../../src/store/db';
import { KeyStore } from '../../src/store/key-store';
import { onEveryStore } from '../support/postgres';

/** Keys made before tenants existed: the table as it was, one key inserted the old way. */
async function oldShapeStore(db: Db): Promise<string> {
  await db.run(`DROP TABLE IF EXISTS api_keys`);
  await db.run(`CREATE TABLE api_keys (
      kind TEXT NOT NULL CHECK (kind IN ('agent', 'reviewer')), id TEXT NOT NULL, key_sha256 TEXT NOT NULL UNIQUE,
      created_at TEXT NOT NULL, PRIMARY KEY (kind, id))`);
  const { keyHash } = await import('../../src/store/key-store');
  const key = `gk_agent_${'A'.repeat(43)}`;
  await db.run(`INSERT INTO api_keys (kind, id, key_sha256, created_at) VALUES (?, ?, ?, ?)`, [
    'agent',
    'old-bot',
    keyHash(key),
    new Date().toISOString(),
  ]);
  return key;
}

function suite(name: string, open: () => Promise<{ db: Db; stop(): Promise<void> }>): void {
  describe(`key store tenants on ${name}`, () => {
    let db: Db;
    let stop: () => Promise<void>;

    beforeAll(async () => {
      ({ db, stop } = await open());
    }, 120_000);
    afterAll(async () => stop?.(), 60_000);

    it('migrates keys made before tenants into the default tenant, and migrates twice (and at once) harmlessly', async () => {
      const oldKey = await oldShapeStore(db);
      const store = new KeyStore(db);
      await Promise.all([store.migrate(), store.migrate()]);
      await store.migrate();
      expect(await store.authenticate(oldKey)).toEqual({ tenant: 'default', kind: 'agent', id: 'old-bot' });
      expect((await store.list()).map((k) => [k.tenant, k.id])).toEqual([['default', 'old-bot']]);
    });

    it('creates keys in a tenant and authenticates them as that tenant', async () => {
      const store = new KeyStore(db);
      await store.migrate();
      const a = await store.create('agent', 'acme-bot', { tenant: 'acme' });
      const r = await store.create('reviewer', 'acme-rev', { tenant: 'acme' });
      const d = await store.create('agent', 'plain-bot');
      expect(a.tenant).toBe('acme');
      expect(d.tenant).toBe('default');
      expect(await store.authenticate(a.key)).toEqual({ tenant: 'acme', kind: 'agent', id: 'acme-bot' });
      expect(await store.authenticate(r.key)).toEqual({ tenant: 'acme', kind: 'reviewer', id: 'acme-rev' });
      expect(await store.authenticate(d.key)).toEqual({ tenant: 'default', kind: 'agent', id: 'plain-bot' });
      expect((await store.list({ tenant: 'acme' })).map((k) => k.id)).toEqual(['acme-bot', 'acme-rev']);
    });

    it('keeps ids unique across tenants and refuses malformed tenants', async () => {
      const store = new KeyStore(db);
      await store.create('agent', 'shared-name', { tenant: 'one' });
      await expect(store.create('agent', 'shared-name', { tenant: 'two' })).rejects.toThrow(/already exists/);
      await expect(store.create('agent', 'x1', { tenant: "acme' --" })).rejects.toThrow(/tenant/);
      await expect(store.create('agent', 'x2', { tenant: 'Acme' })).rejects.toThrow(/tenant/);
    });
  });
}

onEveryStore(suite);
