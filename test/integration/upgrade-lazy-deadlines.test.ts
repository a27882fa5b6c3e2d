import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { Client, Connection } from '@temporalio/client';
import { createActivities } from '../../src/worker/activities';
import { verifyChain } from '../../src/common/audit';
import type { GateState } from '../../src/common/gate-state';
import { GateClient } from '../../src/client/gate-client';
import { AuditStore } from '../../src/store/audit-store';
import { openSqlite, type Db } from '../../src/store/db';
import { getGateQuery } from '../../src/workflow/gate/messages';
import { tripDomain } from '../../examples/trip';
import { unpackBundle } from '../replay/bundle-commit';
import { patchIdsOf } from '../replay/history-codec';
import { refundBody } from '../support/gate-fixtures';
import { startTestWorker, testClient } from '../support/temporal';

/**
 * Gates opened on the release before the lazy deadlines (575e613, its bundle checked in)
 * wait with `condition(fn, timeout)`, a timer per wait, cancelled when the wait ends early.
 * This opens such gates in each phase (requested, approved, about to expire), stops that
 * worker, and finishes them on today's code: they replay on the old path, cancel their
 * timers as they did, and end as they would have. A gate opened now takes the new path.
 * Today's client declares the patch baseline in the input (`patch_baseline`), which the old
 * worker ignores: it records its own baseline's marker, and today's code replays on that.
 */
const OLD_RELEASE = '575e613';

let client: Client;
let connection: Connection;
let db: Db;
let activities: Awaited<ReturnType<typeof createActivities>>['activities'];
const taskQueue = `upgrade-deadlines-${randomUUID()}`;

beforeAll(async () => {
  ({ client, connection } = await testClient());
  db = openSqlite(path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'upgrade-deadlines-')), 'gate.db'));
  ({ activities } = await createActivities({ db, domains: [tripDomain] }));
});
afterAll(async () => {
  await connection.close();
  await db.close();
});

async function historyOf(id: string) {
  const events = (await client.workflow.getHandle(id).fetchHistory()).events ?? [];
  return {
    patches: patchIdsOf(events),
    timersCancelled: events.filter((e) => e.timerCanceledEventAttributes).length,
  };
}

it('finishes gates opened on the release before lazy deadlines on the old path, and opens new ones on the new', async () => {
  // As the API runs it: the client writes the events of what it creates, decides and consumes.
  const gates = new GateClient(client, { taskQueue, audit: new AuditStore(db), webhookReceivers: 0 });
  const caller = { agentId: 'agent-1' };
  const approval = (payload_sha256: string) => ({
    decision_id: randomUUID(),
    reviewer_id: 'rev-1',
    decision: 'approve' as const,
    payload_sha256,
  });

  const old = await startTestWorker(activities, taskQueue, unpackBundle(OLD_RELEASE));
  const pending = (await gates.create(refundBody('upgrade-pending'), caller)).request;
  const approved = (await gates.create(refundBody('upgrade-approved'), caller)).request;
  const expiring = (await gates.create(refundBody('upgrade-expiring', { ttl_seconds: 8 }), caller)).request;
  await gates.decide(approved.request_id, approval(approved.payload_sha256));
  for (const r of [pending, expiring])
    expect((await client.workflow.getHandle(r.request_id).query(getGateQuery)).status).toBe('requested');
  await old.stop();

  const current = await startTestWorker(activities, taskQueue);
  try {
    await gates.decide(pending.request_id, approval(pending.payload_sha256));
    for (const r of [pending, approved])
      expect((await gates.consume(r.request_id, 'agent-1')).args).toEqual({ charge: 'ch_1', amount: 4000 });
    const ends = await Promise.all(
      [pending, approved, expiring].map((r) => client.workflow.getHandle(r.request_id).result() as Promise<GateState>),
    );
    expect(ends.map((s) => s.status)).toEqual(['consumed', 'consumed', 'expired']);

    // The old path: the third baseline alone, and each early end of a wait cancelled its timer.
    for (const r of [pending, approved])
      expect(await historyOf(r.request_id)).toEqual({ patches: ['gate-baseline-v3'], timersCancelled: 2 });
    expect(await historyOf(expiring.request_id)).toEqual({ patches: ['gate-baseline-v3'], timersCancelled: 0 });
    for (const r of [pending, approved, expiring])
      expect(verifyChain(await new AuditStore(db).list(r.request_id)).ok).toBe(true);

    // A gate opened on this code: the fourth baseline, declared in its input (no marker), and no timer cancelled.
    const fresh = (await gates.create(refundBody('upgrade-fresh'), caller)).request;
    await gates.decide(fresh.request_id, approval(fresh.payload_sha256));
    await gates.consume(fresh.request_id, 'agent-1');
    await client.workflow.getHandle(fresh.request_id).result();
    expect(await historyOf(fresh.request_id)).toEqual({ patches: [], timersCancelled: 0 });
  } finally {
    await current.stop();
  }
});
