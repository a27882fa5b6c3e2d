import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import { startApiServer, type RunningApi } from '../../src/api/server';
import { loadConfig } from '../../src/config';
import { openDb } from '../../src/store/db';
import { KeyStore } from '../../src/store/key-store';
import { installWorkerRuntime } from '../../src/worker/runtime';
import { createGateWorker, type GateWorker } from '../../src/worker/create-gate-worker';
import type { AuditEvent } from '../../src/common/audit';
import { freePort } from '../support/ports';
import { refundBody } from '../support/gate-fixtures';
import { waitFor } from '../support/wait';
import { startSlackStandin, type SlackStandin } from '../support/slack-standin';
import { startSmtpStandin, type SmtpStandin } from '../support/smtp-standin';

// Escalation chains end to end: the real gate worker and API, with Slack and SMTP stand-ins
// that speak the real protocols (test/support/*-standin.ts). Times are seconds apart and
// checked with margins a loaded machine keeps.

const MARGIN_MS = 3000;
let slack: SlackStandin;
let smtp: SmtpStandin;
let worker: GateWorker;
let running: Promise<void>;
let api: RunningApi;
let agentKey = '';
const reviewer: Record<string, string> = {};

beforeAll(async () => {
  installWorkerRuntime({ logLevel: 'error' });
  slack = await startSlackStandin();
  smtp = await startSmtpStandin();
  const dataDir = fs.mkdtempSync(path.join(process.env.GATE_TEST_TMP ?? os.tmpdir(), 'gate-escalation-'));
  const policyFile = path.join(dataDir, 'rules.json');
  fs.writeFileSync(
    policyFile,
    JSON.stringify({ version: 1, rules: [{ action: 'refund.*', roles: ['finance', 'cfo'] }] }),
  );
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    GATE_DATA_DIR: dataDir,
    GATE_PORT: String(port),
    GATE_TASK_QUEUE: `escalation-${randomBytes(6).toString('hex')}`,
    GATE_LOG_LEVEL: 'silent',
    GATE_WEBHOOK_URLS: '',
    GATE_POLICY_FILE: policyFile,
    GATE_PUBLIC_URL: `http://127.0.0.1:${port}`,
    GATE_SLACK_BOT_TOKEN: slack.token,
    GATE_SLACK_API_URL: slack.url,
    GATE_SMTP_URL: smtp.url,
    GATE_EMAIL_FROM: 'gate@example.test',
    ...(process.env.GATE_TEST_WORKFLOW_BUNDLE ? { GATE_WORKFLOW_BUNDLE: process.env.GATE_TEST_WORKFLOW_BUNDLE } : {}),
  };
  const db = openDb({ sqliteFile: path.join(dataDir, 'gate.db') });
  const keys = new KeyStore(db);
  await keys.migrate();
  agentKey = (await keys.create('agent', 'agent_billing')).key;
  for (const [id, roles] of [
    ['fin-1', ['finance']],
    ['fin-2', ['finance']],
    ['cfo-1', ['cfo']],
  ] as const)
    reviewer[id] = (await keys.create('reviewer', id, { roles: [...roles] })).key;
  await db.close();
  worker = await createGateWorker({ ...loadConfig(env), domains: [] });
  running = worker.run();
  api = await startApiServer(loadConfig(env), { domains: [] });
}, 120_000);

afterAll(async () => {
  await api?.close();
  await worker?.shutdown();
  await running;
  await slack?.close();
  await smtp?.close();
});

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

async function call(method: string, route: string, key: string, body?: unknown): Promise<Answer> {
  const res = await fetch(`${api.url}${route}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function create(
  over: Record<string, unknown>,
): Promise<{ id: string; sha: string; createdMs: number; expiresMs: number }> {
  const r = await call('POST', '/v1/approvals', agentKey, refundBody(`corr-${randomUUID()}`, over));
  expect(r).toMatchObject({ status: 201 });
  const id = r.body.request_id as string;
  const state = await call('GET', `/v1/approvals/${id}`, agentKey);
  return {
    id,
    sha: r.body.payload_sha256 as string,
    createdMs: Date.parse(state.body.created_at as string),
    expiresMs: Date.parse(r.body.expires_at as string),
  };
}

const vote = (id: string, sha: string, who: string) =>
  call('POST', `/v1/approvals/${id}/decision`, reviewer[who]!, {
    decision: 'approve',
    payload_sha256: sha,
    decision_id: `d-${randomUUID()}`,
  });

const audit = async (id: string): Promise<AuditEvent[]> =>
  (await call('GET', `/v1/approvals/${id}/audit`, agentKey)).body.events as AuditEvent[];

const eventsOf = async (id: string, type: string): Promise<AuditEvent[]> =>
  (await audit(id)).filter((e) => e.event_type === type);

/** Every http(s) link in a text (Slack blocks, a mail's text and HTML). */
function links(text: string): string[] {
  return [...text.matchAll(/https?:\/\/[^\s"'<>)\]|]+/g)].map((m) => m[0].replace(/[.,;]+$/, ''));
}

const slackTo = (name: string) => slack.messages.filter((m) => m.posted_to === name);
const mailTo = (addr: string) => smtp.mails.filter((m) => m.envelope.to.includes(addr));

it('escalates twice on time, adds the level roles, tells each target once per level, then expires at its TTL and brings every message up to date', async () => {
  const { id, sha, createdMs, expiresMs } = await create({
    ttl_seconds: 14,
    approvals_required: 2,
    reviewer_roles: ['finance'],
    notify: ['slack:#refunds-a'],
    escalation: {
      levels: [
        { after: '4s', notify: ['email:lead-a@example.test'], roles: ['cfo'] },
        { after: 8, notify: ['slack:#escalations-a', 'email:cfo-a@example.test'] },
      ],
    },
  });
  // Before level 1 the cfo role may not decide.
  const early = await vote(id, sha, 'cfo-1');
  expect(early.status).toBe(403);
  expect(await eventsOf(id, 'approval.escalated')).toEqual([]);

  const first = await waitFor('level 1', async () => (await eventsOf(id, 'approval.escalated'))[0], 15_000);
  expect(first.data).toEqual(
    expect.objectContaining({ level: 1, loop: 0, targets: ['email:lead-a@example.test'], roles_added: ['cfo'] }),
  );
  expect(Date.parse(first.timestamp) - createdMs).toBeGreaterThanOrEqual(4000);
  expect(Date.parse(first.timestamp) - createdMs).toBeLessThan(4000 + MARGIN_MS);
  // From level 1 on, the cfo's vote counts (one of the two needed).
  const late = await vote(id, sha, 'cfo-1');
  expect(late.status).toBe(200);
  expect((await call('GET', `/v1/approvals/${id}`, agentKey)).body).toMatchObject({
    roles_added: ['cfo'],
    escalation: { level: 1, loop: 0 },
  });

  const expired = await waitFor('expiry', async () => (await eventsOf(id, 'approval.expired'))[0], 20_000);
  const escalated = await eventsOf(id, 'approval.escalated');
  expect(escalated.map((e) => [e.data.level, e.data.loop])).toEqual([
    [1, 0],
    [2, 0],
  ]);
  expect(Date.parse(escalated[1]!.timestamp) - createdMs).toBeGreaterThanOrEqual(8000);
  expect(Date.parse(escalated[1]!.timestamp) - createdMs).toBeLessThan(8000 + MARGIN_MS);
  expect(Date.parse(expired.timestamp)).toBeGreaterThanOrEqual(expiresMs);
  expect(Date.parse(expired.timestamp) - expiresMs).toBeLessThan(MARGIN_MS);

  // Once per level and target, and every message brought up to date when the gate ended.
  await waitFor(
    'every Slack message edited and every mail answered',
    async () =>
      [...slackTo('#refunds-a'), ...slackTo('#escalations-a')].every((m) => m.edits > 0) &&
      mailTo('lead-a@example.test').length === 2 &&
      mailTo('cfo-a@example.test').length === 2,
    90_000,
  );
  expect(slackTo('#refunds-a')).toHaveLength(1);
  expect(slackTo('#escalations-a')).toHaveLength(1);
  for (const addr of ['lead-a@example.test', 'cfo-a@example.test']) {
    const [sent, reply] = mailTo(addr);
    // The ended mail answers in the thread of the one sent (the gate's thread root or that mail itself).
    expect(reply!.inReplyTo).toBeDefined();
    expect([sent!.messageId, sent!.inReplyTo]).toContain(reply!.inReplyTo);
  }
  expect(await eventsOf(id, 'notification.failed')).toEqual([]);
}, 150_000);

it('stops the chain at a decision, counting a vote given before a level toward the quorum after it', async () => {
  const { id, sha } = await create({
    ttl_seconds: 60,
    approvals_required: 2,
    notify: [],
    escalation: {
      levels: [
        { after: 3, notify: ['slack:#escalations-b'] },
        { after: 7, notify: ['email:cfo-b@example.test'] },
      ],
    },
  });
  expect((await vote(id, sha, 'fin-1')).status).toBe(200); // before level 1
  await waitFor('level 1', async () => (await eventsOf(id, 'approval.escalated'))[0], 15_000);
  const second = await vote(id, sha, 'fin-2'); // after level 1: completes the quorum
  expect(second.body).toMatchObject({ status: 'approved', approvals: 2 });
  // Past level 2's time: no event and no message for it.
  await new Promise((r) => setTimeout(r, 7000 + MARGIN_MS));
  expect((await eventsOf(id, 'approval.escalated')).map((e) => e.data.level)).toEqual([1]);
  expect(mailTo('cfo-b@example.test')).toEqual([]);
  expect(slackTo('#escalations-b')).toHaveLength(1);
}, 60_000);

it('keeps the outcome and its timing when a channel refuses every call, and records notification.failed', async () => {
  slack.refuse('http_500');
  try {
    const { id, createdMs, expiresMs } = await create({
      ttl_seconds: 8,
      notify: ['slack:#refunds-c'],
      escalation: { levels: [{ after: 3, notify: ['slack:#escalations-c'] }] },
    });
    const expired = await waitFor('expiry', async () => (await eventsOf(id, 'approval.expired'))[0], 20_000);
    expect(Date.parse(expired.timestamp)).toBeGreaterThanOrEqual(expiresMs);
    expect(Date.parse(expired.timestamp) - expiresMs).toBeLessThan(MARGIN_MS);
    const escalated = await eventsOf(id, 'approval.escalated');
    expect(Date.parse(escalated[0]!.timestamp) - createdMs).toBeLessThan(3000 + MARGIN_MS);
    // Each delivery gives up within its 60 seconds of retries.
    const failed = await waitFor(
      'both deliveries to fail',
      async () => {
        const f = await eventsOf(id, 'notification.failed');
        return f.length >= 2 ? f : undefined;
      },
      100_000,
    );
    expect(failed.map((e) => [e.data.target, e.data.kind, e.data.level])).toEqual([
      ['slack:#refunds-c', 'requested', 0],
      ['slack:#escalations-c', 'escalated', 1],
    ]);
    expect(slackTo('#refunds-c')).toEqual([]);
  } finally {
    slack.refuse(false);
  }
}, 150_000);

it('links every message to the reviewer page only, and a GET of that link changes nothing', async () => {
  const { id } = await create({ ttl_seconds: 60, notify: ['slack:#refunds-d', 'email:lead-d@example.test'] });
  await waitFor('both messages', async () => slackTo('#refunds-d').length + mailTo('lead-d@example.test').length === 2);
  const page = `${api.url}/#/approvals/${id}`;
  const texts = [
    ...slackTo('#refunds-d').map((m) => JSON.stringify(m.versions)),
    ...mailTo('lead-d@example.test').map((m) => `${m.text ?? ''} ${typeof m.html === 'string' ? m.html : ''}`),
  ];
  const found = texts.flatMap(links);
  expect(found.length).toBeGreaterThanOrEqual(2);
  expect(new Set(found)).toEqual(new Set([page]));
  const read = async () => {
    const { server_time: _clock, ...state } = (await call('GET', `/v1/approvals/${id}`, agentKey)).body;
    return [state, await audit(id)];
  };
  const before = await read();
  const res = await fetch(page);
  expect(res.status).toBe(200);
  await res.text();
  expect(await read()).toEqual(before);
}, 60_000);

describe('creates that cannot be kept', () => {
  it('refuses with 422 a level at or after the TTL, naming the level', async () => {
    const r = await call(
      'POST',
      '/v1/approvals',
      agentKey,
      refundBody('corr-late', { ttl_seconds: 60, escalation: { levels: [{ after: 30 }, { after: '1m' }] } }),
    );
    expect(r.status).toBe(422);
    expect(JSON.stringify(r.body)).toMatch(/level 2 fires 60 s after creation/);
  });

  it('refuses with 422 a target whose channel is not configured, naming the setting', async () => {
    const r = await call(
      'POST',
      '/v1/approvals',
      agentKey,
      refundBody('corr-teams', { ttl_seconds: 60, notify: ['teams:finance'] }),
    );
    expect(r.status).toBe(422);
    expect(JSON.stringify(r.body)).toMatch(/GATE_TEAMS_WEBHOOKS/);
  });
});
