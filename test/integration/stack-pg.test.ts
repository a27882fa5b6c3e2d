import type { Client, Connection } from '@temporalio/client';
import { createActivities } from '../../src/worker/activities';
import { verifyChain } from '../../src/common/audit';
import { AuditStore } from '../../src/store/audit-store';
import { openDb, type Db } from '../../src/store/db';
import { KeyStore } from '../../src/store/key-store';
import { decidePending, draftAndValidate, startRun, submissionsOf, waitForRun } from '../support/run-harness';
import { skipPostgres, startPostgres } from '../support/postgres';
import { startTestWorker, testClient, type RunningWorker } from '../support/temporal';
import { tripDomain } from '../../examples/trip';

/** The production store: every store of the gate (audit, keys, trip domain) on a real PostgreSQL. */
(skipPostgres ? describe.skip : describe)('the whole gate on PostgreSQL', () => {
  let pg: ReturnType<typeof startPostgres>;
  let db: Db;
  let worker: RunningWorker;
  let client: Client;
  let connection: Connection;

  beforeAll(async () => {
    pg = startPostgres();
    db = openDb({ databaseUrl: pg.url, sqliteFile: ':memory:' });
    const { activities } = await createActivities({ db, domains: [tripDomain] });
    worker = await startTestWorker(activities);
    ({ client, connection } = await testClient());
  }, 120_000);
  afterAll(async () => {
    await worker?.stop();
    await connection?.close();
    await db?.close();
    pg?.stop();
  }, 60_000);

  it('runs an approved trip submission with its audit trail and domain rows in PostgreSQL', async () => {
    const runId = await startRun(client, worker.taskQueue, [
      ...draftAndValidate(800000),
      { content: '', tool_calls: [{ id: 'c3', name: 'submit_trip_request', args: {} }] },
      { content: 'done' },
    ]);
    const requestId = await decidePending(client, runId, { decision: 'approve' });
    const v = await waitForRun(client, runId, (r) => r.status === 'completed');
    expect(v.final_answer).toBe('done');
    expect((await submissionsOf(db, runId)).map((s) => s.budget)).toEqual([800000]);
    const audit = new AuditStore(db);
    const trail = await audit.list(requestId);
    expect(trail.map((e) => e.event_type)).toEqual(
      expect.arrayContaining([
        'approval.requested',
        'approval.approved',
        'snapshot.verified',
        'approval.consumed',
        'tool.succeeded',
      ]),
    );
    expect(verifyChain(trail)).toEqual({ ok: true, count: trail.length });
  });

  it('keeps audit events append-only and key hashes unique in PostgreSQL', async () => {
    const audit = new AuditStore(db);
    await audit.migrate(); // idempotent on a migrated database
    await expect(db.run(`UPDATE audit_events SET note = 'edited'`)).rejects.toThrow(/append-only/);
    await expect(db.run(`DELETE FROM audit_events`)).rejects.toThrow(/append-only/);
    const keys = new KeyStore(db);
    await keys.migrate();
    const k = await keys.create('reviewer', 'pg-alice');
    expect(await keys.authenticate(k.key)).toMatchObject({ id: 'pg-alice', kind: 'reviewer', tenant: 'default' });
    await expect(keys.create('reviewer', 'pg-alice')).rejects.toThrow();
    const rows = await db.query<{ key_sha256: string }>(`SELECT key_sha256 FROM api_keys WHERE id = ?`, ['pg-alice']);
    expect(rows[0]!.key_sha256).not.toContain(k.key);
  });

  it('keeps audit intents until their events are written, in one transaction, in PostgreSQL', async () => {
    const audit = new AuditStore(db);
    await audit.migrate();
    const [first] = await audit.list(
      (await db.query<{ request_id: string }>(`SELECT request_id FROM audit_events LIMIT 1`))[0]!.request_id,
    );
    const ghost = { ...first!, event_id: `evt_pg_intent_${Date.now()}`, request_id: `appr_pg_intent_${Date.now()}` };
    const created = await audit.recordIntent({ request_id: ghost.request_id, event: ghost });
    const updated = await audit.recordIntent({ request_id: ghost.request_id, update_id: 'decide_pg' });
    const mine = async () =>
      (await audit.staleIntents(new Date().toISOString(), 1000)).filter((i) => i.request_id === ghost.request_id);
    const held = await mine();
    expect(held).toHaveLength(2);
    expect(held).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ intent_id: created, update_id: null, event: ghost }),
        expect.objectContaining({ intent_id: updated, update_id: 'decide_pg', event: null }),
      ]),
    );
    await audit.settleIntent(created, [ghost]);
    await audit.dropIntent(updated);
    expect(await mine()).toEqual([]);
    expect((await audit.list(ghost.request_id)).map((e) => e.event_id)).toEqual([ghost.event_id]);
  });
});
