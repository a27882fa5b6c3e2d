import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { createConversationActivities } from '../../src/activities/conversation';
import type { Message } from '../../src/core/conversation';
import { ConversationStore } from '../../src/store/conversation-store';
import { openDb, openSqlite, type Db } from '../../src/store/db';
import { skipPostgres, startPostgres } from '../support/postgres';

// The continue-as-new offload of a run's conversation, on SQLite and a REAL PostgreSQL.

const messages: Message[] = [
  { role: 'user', content: 'Plan a trip' },
  { role: 'assistant', content: '', tool_calls: [{ id: 'q1', name: 'search_trip_policy', args: { query: 'days' } }] },
  { role: 'tool', tool_call_id: 'q1', outcome: 'success', content: 'A trip lasts 1 to 30 days, ünïcödé included.' },
];
const failureType = (p: Promise<unknown>) =>
  p.then(
    () => 'loaded',
    (e: unknown) => (e instanceof ApplicationFailure ? `${e.type}:${String(e.nonRetryable)}` : String(e)),
  );

const dialects: [string, () => { db: Db; stop(): void }][] = [
  [
    'SQLite',
    () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gate-conv-'));
      return {
        db: openSqlite(path.join(dir, 'gate.db')),
        stop: () => fs.rmSync(dir, { recursive: true, force: true }),
      };
    },
  ],
  ...(skipPostgres
    ? []
    : ([
        [
          'PostgreSQL',
          () => {
            const pg = startPostgres();
            return { db: openDb({ databaseUrl: pg.url, sqliteFile: ':memory:' }), stop: () => pg.stop() };
          },
        ],
      ] as [string, () => { db: Db; stop(): void }][])),
];

describe.each(dialects)('conversation offload store on %s', (_name, open) => {
  let opened: ReturnType<typeof open>;
  let acts: ReturnType<typeof createConversationActivities>;

  beforeAll(async () => {
    opened = open();
    const store = new ConversationStore(opened.db);
    // Workers starting together migrate at the same time.
    await Promise.all([store.migrate(), store.migrate(), store.migrate()]);
    acts = createConversationActivities(store);
  }, 120_000);
  afterAll(async () => {
    await opened?.db.close();
    opened?.stop();
  }, 60_000);

  it('loads what it saved, and a retried save replaces the row with the same one', async () => {
    const ref = await acts.saveConversation({ run_id: 'run_x', execution: 2, messages });
    expect(await acts.saveConversation({ run_id: 'run_x', execution: 2, messages })).toEqual(ref);
    expect(ref).toMatchObject({ run_id: 'run_x', execution: 2, count: 3 });
    expect(await acts.loadConversation(ref)).toEqual(messages);
  });

  it('fails the run, without retries, for a missing or altered conversation', async () => {
    const ref = await acts.saveConversation({ run_id: 'run_y', execution: 2, messages });
    expect(await failureType(acts.loadConversation({ ...ref, execution: 3 }))).toBe('BrokenConversation:true');
    const altered = [...messages.slice(0, 2), { ...messages[2], outcome: 'failure' }];
    await opened.db.run('UPDATE run_conversations SET messages = ? WHERE run_id = ?', [
      JSON.stringify(altered),
      'run_y',
    ]);
    expect(await failureType(acts.loadConversation(ref))).toBe('BrokenConversation:true');
  });
});
