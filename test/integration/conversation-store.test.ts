import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { createConversationActivities, resolveConversation } from '../../src/worker/activities/conversation';
import { chainOver } from '../../src/common/conversation-log';
import type { Message } from '../../src/common/conversation';
import { ConversationStore } from '../../src/store/conversation-store';
import { openDb, openSqlite, type Db } from '../../src/store/db';
import { skipPostgres, startPostgres } from '../support/postgres';

// A run's conversation in the store (the continue-as-new offload, and the conversation log
// that model calls name by ref), on SQLite and a REAL PostgreSQL.

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

  it('keeps a run’s conversation log by seq: writes again replace, reads stop at a gap or the byte budget', async () => {
    const store = new ConversationStore(opened.db);
    await acts.storeMessages({ run_id: 'run_log', from: 0, messages });
    await acts.storeMessages({ run_id: 'run_log', from: 0, messages }); // an activity retry
    expect(await store.messages('run_log', 0, 3)).toEqual(messages.map((m) => JSON.stringify(m)));
    const log = { run_id: 'run_log', count: 3, head: chainOver(messages) };
    expect(await acts.loadMessages({ log, from: 0, max_bytes: 1 << 20 })).toEqual(messages);
    // A page holds at least one message, then stops before the budget.
    expect(await acts.loadMessages({ log, from: 1, max_bytes: 1 })).toEqual([messages[1]]);
    // A rewritten message replaces its row; rows past what a reader asks for are not read.
    const rewritten = { ...messages[1]!, content: 'changed' } as Message;
    await store.putMessages('run_log', 1, [rewritten]);
    expect(await store.messages('run_log', 0, 2)).toEqual([JSON.stringify(messages[0]), JSON.stringify(rewritten)]);
    // Another run's rows are its own; a gap ends the read.
    await store.putMessages('run_gap', 0, [messages[0]!]);
    await store.putMessages('run_gap', 2, [messages[2]!]);
    expect(await store.messages('run_gap', 0, 3)).toHaveLength(1);
    expect(await store.messages('run_other', 0, 3)).toEqual([]);
  });

  it('resolves a model call’s conversation: writes the tail, checks the stored prefix against its chain', async () => {
    const store = new ConversationStore(opened.db);
    const prefix = { run_id: 'run_call', count: 0, head: chainOver([]) };
    expect(await resolveConversation(store, { prefix, tail: messages.slice(0, 2) })).toEqual(messages.slice(0, 2));
    const next = { run_id: 'run_call', count: 2, head: chainOver(messages.slice(0, 2)) };
    expect(await resolveConversation(store, { prefix: next, tail: messages.slice(2) })).toEqual(messages);
    // A prefix the store does not hold, or holds otherwise, fails the run without retries.
    expect(await failureType(resolveConversation(store, { prefix: { ...next, count: 5 }, tail: [] }))).toBe(
      'BrokenConversation:true',
    );
    await store.putMessages('run_call', 0, [{ role: 'user', content: 'another goal' }]);
    expect(await failureType(resolveConversation(store, { prefix: next, tail: [] }))).toBe('BrokenConversation:true');
  });
});
