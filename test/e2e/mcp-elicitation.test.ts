import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ElicitRequestSchema, LATEST_PROTOCOL_VERSION, type ElicitRequest } from '@modelcontextprotocol/sdk/types.js';
import { GateHttpClient } from '../../src/cli/http';
import { createMcpServer } from '../../src/mcp/server';
import { KeyStore } from '../../src/store/key-store';
import { startApiStack, type ApiStack } from '../support/api-stack';

// The review link: `request_action_approval` answers with `review_url`, and a client that
// declares URL-mode elicitation (protocol 2025-11-25) is asked to open it. The client's
// answer is never a decision: the gate stays requested and its audit trail unchanged.

const ROOT = path.resolve(__dirname, '../..');
const PUBLIC_URL = 'https://gate.example.test';

let stack: ApiStack;
let agentKey: string;
let reviewerKey: string;

type Structured = Record<string, unknown>;

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<Structured> {
  const r = (await client.callTool({ name, arguments: args })) as { isError?: boolean; structuredContent?: Structured };
  expect(r.isError).toBeFalsy();
  return r.structuredContent ?? {};
}

async function auditOf(id: string): Promise<{ verified: boolean; events: { event_type: string }[] }> {
  const res = await fetch(`${stack.api.url}/v1/approvals/${id}/audit`, {
    headers: { authorization: `Bearer ${reviewerKey}` },
  });
  expect(res.status).toBe(200);
  return (await res.json()) as { verified: boolean; events: { event_type: string }[] };
}

const refund = (n: string) => ({
  action: 'refund.create',
  target: `ch_mcp_${n}`,
  summary: `Refund order ${n}`,
  args: { charge: `ch_mcp_${n}`, amount_cents: 4200 },
  blast_radius: { amount_cents: 4200 },
});

beforeAll(async () => {
  stack = await startApiStack('mcp-elicit');
  const keys = new KeyStore(stack.db);
  await keys.migrate();
  agentKey = (await keys.create('agent', 'mcp-agent')).key;
  reviewerKey = (await keys.create('reviewer', 'ann')).key;
});

afterAll(async () => {
  await stack?.stop();
});

describe('gate mcp and a client that declares URL-mode elicitation', () => {
  let client: Client;
  const asked: ElicitRequest['params'][] = [];

  beforeAll(async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [path.join(ROOT, 'bin', 'gate.js'), 'mcp'],
      cwd: ROOT,
      env: {
        ...getDefaultEnvironment(),
        GATE_API_URL: stack.api.url,
        GATE_API_KEY: agentKey,
        GATE_PUBLIC_URL: PUBLIC_URL,
        GATE_CLI_FROM_SOURCE: '1',
      },
      stderr: 'ignore',
    });
    client = new Client(
      { name: 'url-elicitation-client', version: '0.0.0' },
      { capabilities: { elicitation: { url: {} } } },
    );
    // The user "opens" every link it is offered: the most a client can say.
    client.setRequestHandler(ElicitRequestSchema, async (req) => {
      asked.push(req.params);
      return { action: 'accept' };
    });
    await client.connect(transport);
  });

  afterAll(() => client?.close());

  it('speaks the protocol version that has URL-mode elicitation', () => {
    expect(LATEST_PROTOCOL_VERSION).toBe('2025-11-25');
    expect(client.getServerVersion()?.name).toBe('approval-gate');
  });

  it('returns review_url and asks the client to open it; the accept decides nothing', async () => {
    const created = await call(client, 'request_action_approval', refund('accept'));
    const id = created.approval_id as string;
    const url = `${PUBLIC_URL}/#/approvals/${encodeURIComponent(id)}`;
    expect(created).toMatchObject({
      status: 'requested',
      review_url: url,
      review_prompt: { asked: true, answer: 'accept' },
    });

    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({ mode: 'url', url, elicitationId: expect.any(String) });
    expect((asked[0] as { message: string }).message).toMatch(/only a signed-in reviewer's decision there counts/);

    // The gate, read by the tool and over HTTP: still waiting for a person, nothing recorded but the request.
    const status = await call(client, 'check_approval_status', { approval_id: id });
    expect(status).toMatchObject({ status: 'requested', executor_should_consume: false, approvals: '0/1' });
    const res = await fetch(`${stack.api.url}/v1/approvals/${id}`, {
      headers: { authorization: `Bearer ${reviewerKey}` },
    });
    const gate = (await res.json()) as { status: string; votes: unknown[]; decision?: unknown };
    expect(gate).toMatchObject({ status: 'requested', votes: [] });
    expect(gate.decision).toBeUndefined();
    const trail = await auditOf(id);
    expect(trail.verified).toBe(true);
    expect(trail.events.map((e) => e.event_type)).toEqual(['approval.requested']);
  });
});

describe('the review link with clients that cannot open it or decline', () => {
  async function inProcess(capabilities: Record<string, unknown>, answer?: 'decline' | 'cancel') {
    const server = createMcpServer(() => new GateHttpClient({ baseUrl: stack.api.url, key: agentKey }), {
      env: { GATE_API_URL: stack.api.url },
    });
    const client = new Client({ name: 'plain-client', version: '0.0.0' }, { capabilities });
    const asked: unknown[] = [];
    if (answer)
      client.setRequestHandler(ElicitRequestSchema, async (req) => {
        asked.push(req.params);
        return { action: answer };
      });
    const [a, b] = InMemoryTransport.createLinkedPair();
    await Promise.all([server.connect(a), client.connect(b)]);
    return { client, server, asked };
  }

  it('still returns review_url (the API URL without GATE_PUBLIC_URL) to a client without URL elicitation, and asks nothing', async () => {
    const { client, server } = await inProcess({ elicitation: { form: {} } });
    const created = await call(client, 'request_action_approval', refund('plain'));
    expect(created.review_url).toBe(
      `${stack.api.url}/#/approvals/${encodeURIComponent(created.approval_id as string)}`,
    );
    expect(created.review_prompt).toEqual({ asked: false, why: 'the client does not declare URL-mode elicitation' });
    await client.close();
    await server.close();
  });

  it('reports a decline, and the gate stays requested', async () => {
    const { client, server, asked } = await inProcess({ elicitation: { url: {} } }, 'decline');
    const created = await call(client, 'request_action_approval', refund('decline'));
    expect(asked).toHaveLength(1);
    expect(created.review_prompt).toEqual({ asked: true, answer: 'decline' });
    const status = await call(client, 'check_approval_status', { approval_id: created.approval_id });
    expect(status.status).toBe('requested');
    expect((await auditOf(created.approval_id as string)).events.map((e) => e.event_type)).toEqual([
      'approval.requested',
    ]);
    await client.close();
    await server.close();
  });
});
