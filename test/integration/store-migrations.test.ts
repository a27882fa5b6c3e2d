// Every store migrates as its process starts, and `gate stack` starts the API and two
// workers at once against one PostgreSQL: their migrations must take turns
// (`migrateUnderLock`). Each round below gives several processes' worth of connections a
// fresh database and runs every store's migration on all of them at the same moment.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { migrateTripStore } from '../../examples/trip/schema';
import { AuditStore } from '../../src/store/audit-store';
import { ConversationStore } from '../../src/store/conversation-store';
import { columnsOf, openDb, type Db } from '../../src/store/db';
import { KeyStore } from '../../src/store/key-store';
import { skipPostgres, startPostgres } from '../support/postgres';

const PROCESSES = 6;
const ROUNDS = 3;

/** What each process runs at start: the API's stores, the worker's, and the trip domain's. */
function migrateAll(db: Db): Promise<unknown> {
  return Promise.all([
    new AuditStore(db).migrate(),
    new KeyStore(db).migrate(),
    new ConversationStore(db).migrate(),
    migrateTripStore(db),
  ]);
}

const TABLES = ['api_keys', 'audit_events', 'audit_intents', 'run_conversations', 'run_messages', 'trip_submissions'];

/** Each store table's columns, sorted: what a migration leaves. */
async function schemaOf(db: Db): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const t of TABLES) out[t] = [...(await columnsOf(db, t))].sort();
  return out;
}

/** The schema one lone connection's migration leaves, every table there, the append-only trigger working. */
async function expectMigrated(db: Db, reference: Db): Promise<void> {
  const want = await schemaOf(reference);
  for (const t of TABLES) expect(want[t]!.length).toBeGreaterThan(0);
  expect(await schemaOf(db)).toEqual(want);
  // The append-only trigger is in place: an event, once written, cannot be changed.
  const audit = new AuditStore(db);
  await audit.append({
    event_id: 'evt_m1',
    request_id: 'req_m1',
    seq: 1,
    event_type: 'approval.requested',
    actor_type: 'agent',
    actor_id: 'bot',
    payload_sha256: null,
    note: null,
    timestamp: new Date().toISOString(),
    data: {},
    prev_hash: null,
    hash: 'h1',
  });
  await expect(db.run(`UPDATE audit_events SET note = 'changed' WHERE event_id = ?`, ['evt_m1'])).rejects.toThrow(
    /append-only/,
  );
}

if (!skipPostgres)
  describe('store migrations on PostgreSQL, several processes at once', () => {
    let pg: { url: string; stop(): void };
    let admin: Db;
    const databaseUrl = (name: string): string => {
      const url = new URL(pg.url);
      url.pathname = `/${name}`;
      return url.toString();
    };
    let reference: Db;
    beforeAll(async () => {
      pg = startPostgres();
      admin = openDb({ databaseUrl: pg.url, sqliteFile: ':memory:' });
      await admin.run(`CREATE DATABASE migrate_reference_${process.pid}`);
      reference = openDb({ databaseUrl: databaseUrl(`migrate_reference_${process.pid}`), sqliteFile: ':memory:' });
      await migrateAll(reference);
    }, 120_000);
    afterAll(async () => {
      await reference?.close();
      // GATE_TEST_PG_URL may name a server that outlives the test: leave it as it was.
      await admin?.run(`DROP DATABASE IF EXISTS migrate_reference_${process.pid}`);
      await admin?.close();
      pg?.stop();
    }, 60_000);

    it(`${ROUNDS} fresh databases, each migrated by ${PROCESSES} connections at the same moment, without an error`, async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const name = `migrate_${process.pid}_${round}`;
        await admin.run(`CREATE DATABASE ${name}`);
        const dbs = Array.from({ length: PROCESSES }, () =>
          openDb({ databaseUrl: databaseUrl(name), sqliteFile: ':memory:' }),
        );
        try {
          await Promise.all(dbs.map(migrateAll));
          await Promise.all(dbs.map(migrateAll)); // and again, on a migrated database
          await expectMigrated(dbs[0]!, reference);
        } finally {
          await Promise.all(dbs.map((d) => d.close()));
          await admin.run(`DROP DATABASE IF EXISTS ${name}`);
        }
      }
    }, 120_000);
  });

describe('store migrations on one SQLite file, several openers at once (one connection per process, see openSqlite)', () => {
  it('every opener migrates, none fails, and the schema is whole', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gate-migrate-'));
    const dbs = Array.from({ length: PROCESSES }, () => openDb({ sqliteFile: path.join(dir, 'gate.db') }));
    const reference = openDb({ sqliteFile: path.join(dir, 'reference.db') });
    try {
      await migrateAll(reference);
      await Promise.all(dbs.map(migrateAll));
      await expectMigrated(dbs[0]!, reference);
    } finally {
      await Promise.all([...dbs, reference].map((d) => d.close()));
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
