import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Client, Connection } from '@temporalio/client';
import { createActivities } from '../../src/worker/activities';
import { createModel } from '../../src/worker/models';
import { openSqlite, type Db } from '../../src/store/db';
import { startRun, waitForRun } from '../support/run-harness';
import { startTestWorker, testClient, type RunningWorker } from '../support/temporal';
import { tripDomain } from '../../examples/trip';

/** A stand-in OpenAI-compatible server: answers scripted Chat Completions, records every request. */
function standIn(replies: object[]) {
  const seen: { headers: http.IncomingHttpHeaders; body: any }[] = []; // eslint-disable-line @typescript-eslint/no-explicit-any
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      seen.push({ headers: req.headers, body: JSON.parse(raw) });
      const reply = replies[seen.length - 1] ?? { error: { message: 'no more replies' } };
      res.writeHead(seen.length <= replies.length ? 200 : 400, { 'content-type': 'application/json' });
      res.end(JSON.stringify(reply));
    });
  });
  return { server, seen };
}

const completion = (message: object) => ({
  id: 'chatcmpl-1',
  object: 'chat.completion',
  model: 'gpt-test',
  choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', ...message } }],
});

let client: Client;
let connection: Connection;
let worker: RunningWorker;
let db: Db;
const stub = standIn([
  completion({
    content: null,
    tool_calls: [
      { id: 'call_1', type: 'function', function: { name: 'search_trip_policy', arguments: '{"query":"budget"}' } },
    ],
  }),
  completion({ content: 'Trips under 300,000 KRW need no approval.' }),
]);

beforeAll(async () => {
  await new Promise<void>((r) => stub.server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(stub.server.address() as AddressInfo).port}/v1`;
  db = openSqlite(path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'gate-provider-')), 'gate.db'));
  const { activities } = await createActivities({
    db,
    domains: [tripDomain],
    createModel: (spec) => createModel(spec, { OPENAI_API_KEY: 'sk-test-provider', OPENAI_BASE_URL: url }),
  });
  worker = await startTestWorker(activities);
  ({ client, connection } = await testClient());
});
afterAll(async () => {
  await worker.stop();
  await connection.close();
  await db.close();
  stub.server.close();
});

describe('agentRun with an OpenAI-compatible provider', () => {
  it("sends the system prompt, the permitted tools and each tool result, and ends on the model's answer", async () => {
    const runId = await startRun(client, worker.taskQueue, [], {
      model: { kind: 'openai', model: 'gpt-test' },
      goal: 'What needs approval?',
    });
    const v = await waitForRun(client, runId, (r) => ['completed', 'failed'].includes(r.status));
    expect(v.status).toBe('completed');
    expect(v.final_answer).toBe('Trips under 300,000 KRW need no approval.');
    expect(stub.seen).toHaveLength(2);
    expect(stub.seen[0]!.headers.authorization).toBe('Bearer sk-test-provider');
    const first = stub.seen[0]!.body;
    expect(first.messages[0].role).toBe('system');
    expect(first.tools.map((t: { function: { name: string } }) => t.function.name)).toEqual(
      expect.arrayContaining(['search_trip_policy', 'draft_trip_request', 'ask_user']),
    );
    const second = stub.seen[1]!.body.messages;
    expect(second.slice(1).map((m: { role: string }) => m.role)).toEqual(['user', 'assistant', 'tool']);
    expect(second[3]).toMatchObject({ role: 'tool', tool_call_id: 'call_1' });
    expect(second[3].content).toMatch(/Budget tiers/);
  });
});

describe('agentRun with a provider that misbehaves', () => {
  it('fails the run before running anything when one reply repeats a tool call id', async () => {
    const bad = standIn([
      completion({
        content: null,
        tool_calls: [0, 1].map(() => ({
          id: 'call_0',
          type: 'function',
          function: { name: 'draft_trip_request', arguments: '{"destination":"Busan","days":2,"budget":800000}' },
        })),
      }),
    ]);
    await new Promise<void>((r) => bad.server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(bad.server.address() as AddressInfo).port}/v1`;
    const badDb = openSqlite(path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'gate-provider-bad-')), 'gate.db'));
    const { activities } = await createActivities({
      db: badDb,
      domains: [tripDomain],
      createModel: (spec) => createModel(spec, { OPENAI_API_KEY: 'k', OPENAI_BASE_URL: url }),
    });
    const w = await startTestWorker(activities);
    try {
      const runId = await startRun(client, w.taskQueue, [], { model: { kind: 'openai', model: 'gpt-test' } });
      const v = await waitForRun(client, runId, (r) => ['completed', 'failed'].includes(r.status));
      expect(v.status).toBe('failed');
      expect(v.error).toMatch(/appears twice/);
      expect(await badDb.query('SELECT draft_id FROM trip_drafts')).toEqual([]);
    } finally {
      await w.stop();
      await badDb.close();
      bad.server.close();
    }
  });
});
