import { chainEvent, verifyChain, type AuditEvent } from '../../src/core/audit';
import { AuditStore } from '../../src/store/audit-store';
import { openSqlite } from '../../src/store/db';

const fields = (i: number) => ({ event_id: `evt_${i}`, request_id: 'appr_1', event_type: 'approval.requested', actor_type: 'agent' as const, actor_id: 'agent-1', payload_sha256: 'a'.repeat(64), note: null, timestamp: '2026-01-01T00:00:00.000Z', data: { i } });

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
    await expect(db.run(`UPDATE audit_events SET note = 'x'`)).rejects.toThrow(/append-only/);
    await expect(db.run(`DELETE FROM audit_events`)).rejects.toThrow(/append-only/);
    await db.close();
  });
});
