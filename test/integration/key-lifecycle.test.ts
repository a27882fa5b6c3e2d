import type { Db } from '../../src/store/db';
import { KeyStore, LAST_USED_RESOLUTION_MS } from '../../src/store/key-store';
import { AuditStore } from '../../src/store/audit-store';
import { recordKeyEvent, keyTrailId } from '../../src/store/key-events';
import { verifyChain } from '../../src/common/audit';
import { onEveryStore } from '../support/postgres';

// Key lifecycle on both stores: roles, expiry, rotation with a grace period, revocation,
// last-used bookkeeping. A clock the test moves stands in for waiting.

function suite(name: string, open: () => Promise<{ db: Db; stop(): Promise<void> }>): void {
  describe(`key lifecycle on ${name}`, () => {
    let db: Db;
    let stop: () => Promise<void>;
    let now = Date.parse('2030-01-01T00:00:00.000Z');
    const clock = () => now;
    let store: KeyStore;

    beforeAll(async () => {
      ({ db, stop } = await open());
      store = new KeyStore(db, clock);
      await store.migrate();
      await store.migrate(); // twice: harmless
    }, 120_000);
    afterAll(async () => stop?.(), 60_000);

    it('carries a reviewer key’s roles into its principal', async () => {
      const k = await store.create('reviewer', 'fin-bot', { roles: ['finance', 'audit', 'finance'] });
      expect(await store.authenticate(k.key)).toEqual({
        tenant: 'default',
        kind: 'reviewer',
        id: 'fin-bot',
        roles: ['audit', 'finance'],
      });
      await expect(store.create('reviewer', 'bad-roles', { roles: ['has space'] })).rejects.toThrow(
        /^role "has space"/,
      );
    });

    it('refuses a revoked key at once, keeps it listed, and lets the id get a new key', async () => {
      const k = await store.create('agent', 'rev-me');
      expect(await store.check(k.key)).toMatchObject({ principal: { id: 'rev-me' } });
      const info = await store.revoke('agent', 'rev-me');
      expect(info).toMatchObject({ status: 'revoked', revoked_at: new Date(now).toISOString() });
      expect(await store.check(k.key)).toEqual({ refused: 'revoked', since: info.revoked_at });
      await expect(store.revoke('agent', 'rev-me')).rejects.toThrow(/no live key/);
      const again = await store.create('agent', 'rev-me');
      expect(await store.authenticate(again.key)).toMatchObject({ id: 'rev-me' });
      expect(await store.check(k.key)).toEqual({ refused: 'unknown' });
    });

    it('stops a key at its expiry and refuses an expiry in the past', async () => {
      const at = new Date(now + 3600_000).toISOString();
      const k = await store.create('agent', 'short-lived', { expiresAt: at });
      expect(k.expires_at).toBe(at);
      expect(await store.authenticate(k.key)).toMatchObject({ id: 'short-lived' });
      now += 3600_000;
      expect(await store.check(k.key)).toEqual({ refused: 'expired', since: at });
      expect((await store.find('short-lived'))[0]!.status).toBe('expired');
      await expect(store.create('agent', 'past', { expiresAt: '2000-01-01T00:00:00Z' })).rejects.toThrow(
        /not a time in the future/,
      );
      await expect(store.rotate('agent', 'short-lived', { graceSeconds: 60 })).rejects.toThrow(/no live key/);
    });

    it('rotates: both keys work during the grace period, then only the new one', async () => {
      const old = await store.create('agent', 'rotating', { expiresAt: new Date(now + 86_400_000).toISOString() });
      const r = await store.rotate('agent', 'rotating', { graceSeconds: 600 });
      expect(r.key).not.toBe(old.key);
      expect(r.previous_key_until).toBe(new Date(now + 600_000).toISOString());
      expect(r.expires_at).toBe(old.expires_at); // rotation changes the secret, not the expiry
      expect(await store.authenticate(old.key)).toMatchObject({ id: 'rotating' });
      expect(await store.authenticate(r.key)).toMatchObject({ id: 'rotating' });
      expect((await store.find('rotating'))[0]).toMatchObject({
        status: 'active',
        previous_key_until: r.previous_key_until,
      });
      now += 600_000;
      expect(await store.check(old.key)).toEqual({ refused: 'rotated', since: r.previous_key_until });
      expect(await store.authenticate(r.key)).toMatchObject({ id: 'rotating' });
      expect((await store.find('rotating'))[0]!.previous_key_until).toBeUndefined();
    });

    it('keeps only the current and the newest key live across two rotations, and a grace of 0 stops the old key now', async () => {
      const k0 = await store.create('agent', 'twice');
      const k1 = await store.rotate('agent', 'twice', { graceSeconds: 3600 });
      const k2 = await store.rotate('agent', 'twice', { graceSeconds: 3600 });
      expect(await store.check(k0.key)).toEqual({ refused: 'unknown' });
      expect(await store.authenticate(k1.key)).toMatchObject({ id: 'twice' });
      expect(await store.authenticate(k2.key)).toMatchObject({ id: 'twice' });
      const k3 = await store.rotate('agent', 'twice', { graceSeconds: 0 });
      expect(await store.check(k2.key)).toMatchObject({ refused: 'rotated' });
      expect(await store.authenticate(k3.key)).toMatchObject({ id: 'twice' });
    });

    it('revoking during a grace period stops the old key too', async () => {
      const k0 = await store.create('agent', 'grace-revoke');
      const k1 = await store.rotate('agent', 'grace-revoke', { graceSeconds: 3600 });
      await store.revoke('agent', 'grace-revoke');
      expect(await store.check(k0.key)).toEqual({ refused: 'unknown' });
      expect(await store.check(k1.key)).toMatchObject({ refused: 'revoked' });
    });

    it('writes last_used_at at most once a minute per key', async () => {
      const k = await store.create('agent', 'busy-bot');
      const lastUsed = async () => (await store.find('busy-bot'))[0]!.last_used_at;
      expect(await lastUsed()).toBeUndefined();
      const t0 = new Date(now).toISOString();
      await store.authenticate(k.key);
      expect(await lastUsed()).toBe(t0);
      now += LAST_USED_RESOLUTION_MS - 1000;
      for (let i = 0; i < 20; i++) await store.authenticate(k.key);
      expect(await lastUsed()).toBe(t0);
      now += 1000;
      await store.authenticate(k.key);
      expect(await lastUsed()).toBe(new Date(now).toISOString());
    });

    it('replaces roles and records key events in a verifiable chain per key', async () => {
      const audit = new AuditStore(db);
      await audit.migrate();
      const k = await store.create('reviewer', 'chained', { roles: ['ops'] });
      const op = { actor_type: 'human' as const, actor_id: 'operator:test' };
      await recordKeyEvent(audit, k, 'key.created', op, { roles: ['ops'] });
      const after = await store.setRoles('reviewer', 'chained', ['finance']);
      expect(after.roles).toEqual(['finance']);
      await Promise.all([
        recordKeyEvent(audit, k, 'key.roles_changed', op, { to: ['finance'] }),
        recordKeyEvent(audit, k, 'key.rotated', op),
      ]);
      const trail = await audit.list(keyTrailId(k));
      expect(trail.map((e) => e.event_type).sort()).toEqual(['key.created', 'key.roles_changed', 'key.rotated']);
      expect(verifyChain(trail)).toEqual({ ok: true, count: 3 });
      expect(trail[0]!.data).toMatchObject({ kind: 'reviewer', id: 'chained', tenant: 'default' });
    });

    it('lists every key with its status, never a key or its hash', async () => {
      const list = await store.list();
      expect(list.length).toBeGreaterThan(5);
      for (const k of list) {
        expect(Object.keys(k)).not.toEqual(expect.arrayContaining(['key']));
        expect(JSON.stringify(k)).not.toMatch(/gk_|[0-9a-f]{64}/);
      }
      expect(list.find((k) => k.id === 'short-lived')?.status).toBe('expired');
    });
  });
}

onEveryStore(suite);
