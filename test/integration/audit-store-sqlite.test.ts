import { chainEvent, verifyChain, type AuditEvent } from '../../src/common/audit';
import { AuditStore } from '../../src/store/audit-store';
import { openSqlite } from '../../src/store/db';

const fields = (i: number) => ({
  event_id: `evt_${i}`,
  request_id: 'appr_1',
  event_type: 'approval.requested',
  actor_type: 'agent' as const,
  actor_id: 'agent-1',
  payload_sha256: 'a'.repeat(64),
  note: null,
  timestamp: '2026-01-01T00:00:00.000Z',
  data: { i },
});

describe('audit store on SQLite', () => {
  it('appends once per event id, returns the chain in order, and refuses updates and deletes', async () => {
    const db = openSqlite(':memory:');
    const store = new AuditStore(db);
    await store.migrate();
    await store.migrate();
    const events: AuditEvent[] = [];
    for (let i = 0; i < 3; i++) events.push(chainEvent(events[i - 1], fields(i)));
    for (const e of [...events].reverse()) await store.append(e);
    await store.append(events[1]!); // an activity retry
    const back = await store.list('appr_1');
    expect(back).toEqual(events);
    expect(verifyChain(back)).toEqual({ ok: true, count: 3 });
    // Compare messages, not classes: better-sqlite3's native addon keeps the SqliteError class
    // of the first jest module registry that loaded it, so `instanceof Error` fails in later files.
    const refusal = (sql: string) =>
      db.run(sql).then(
        () => 'changed',
        (e: { message?: string }) => String(e?.message),
      );
    expect(await refusal(`UPDATE audit_events SET note = 'x'`)).toMatch(/append-only/);
    expect(await refusal(`DELETE FROM audit_events`)).toMatch(/append-only/);
    await db.close();
  });

  it('appends a batch larger than one insert in one call, skipping events already stored', async () => {
    const db = openSqlite(':memory:');
    const store = new AuditStore(db);
    await store.migrate();
    const events: AuditEvent[] = [];
    for (let i = 0; i < 450; i++) events.push(chainEvent(events[i - 1], fields(i)));
    await store.appendMany(events.slice(0, 10)); // a first attempt that got through before a crash
    await store.appendMany(events); // the retried batch: 450 rows, more than one INSERT's worth
    const back = await store.list('appr_1');
    expect(back).toEqual(events);
    expect(verifyChain(back)).toEqual({ ok: true, count: 450 });
    await db.close();
  });
});
