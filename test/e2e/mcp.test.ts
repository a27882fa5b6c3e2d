import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Db } from '../../src/store/db';
import { KeyStore } from '../../src/store/key-store';
import { startApiStack, type ApiStack } from '../support/api-stack';

// `gate mcp` as a real child process, spoken to by the MCP SDK's own client.

const ROOT = path.resolve(__dirname, '../..');

let db: Db;
let api: { url: string; close(): Promise<void> };
let stack: ApiStack;
let reviewerKey: string;
let client: Client;

type Structured = Record<string, unknown>;

async function call(
  name: string,
  args: Record<string, unknown>,
): Promise<{ isError?: boolean; data: Structured; text: string }> {
  const r = (await client.callTool({ name, arguments: args })) as {
    isError?: boolean;
    structuredContent?: Structured;
    content: { type: string; text?: string }[];
  };
  return { isError: r.isError, data: r.structuredContent ?? {}, text: r.content.map((c) => c.text ?? '').join('\n') };
}

async function approveOverHttp(id: string): Promise<void> {
  const auth = { authorization: `Bearer ${reviewerKey}`, 'content-type': 'application/json' };
  const request = (await (await fetch(`${api.url}/v1/approvals/${id}`, { headers: auth })).json()) as {
    payload_sha256: string;
  };
  const res = await fetch(`${api.url}/v1/approvals/${id}/decision`, {
    method: 'POST',
    headers: auth,
    body: JSON.stringify({ decision: 'approve', payload_sha256: request.payload_sha256, note: 'fine' }),
  });
  expect(res.status).toBe(200);
}

beforeAll(async () => {
  stack = await startApiStack('mcp-e2e');
  ({ db, api } = stack);
  const keys = new KeyStore(db);
  await keys.migrate();
  const agentKey = (await keys.create('agent', 'mcp-agent')).key;
  reviewerKey = (await keys.create('reviewer', 'ann')).key;

  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [path.join(ROOT, 'bin', 'gate.js'), 'mcp'],
    cwd: ROOT,
    env: { ...getDefaultEnvironment(), GATE_API_URL: api.url, GATE_API_KEY: agentKey, GATE_CLI_FROM_SOURCE: '1' },
    stderr: 'ignore',
  });
  client = new Client({ name: 'mcp-e2e', version: '0.0.0' });
  await client.connect(transport);
});

afterAll(async () => {
  await client?.close();
  await stack?.stop();
});

describe('gate mcp over stdio', () => {
  it('lists the two gate tools', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['check_approval_status', 'request_action_approval']);
    expect(tools.find((t) => t.name === 'check_approval_status')?.annotations?.readOnlyHint).toBe(true);
  });

  it('requests an approval, reports it requested, then approved after a reviewer approves, without consuming it', async () => {
    const requested = await call('request_action_approval', {
      action: 'db.migrate',
      target: 'postgres://orders',
      summary: 'Add index on orders.created_at',
      args: { migration: '2030_01_add_index' },
      blast_radius: { tables: 1 },
    });
    expect(requested.isError).toBeFalsy();
    const id = requested.data.approval_id as string;
    expect(id).toMatch(/\S/);
    expect(requested.data).toMatchObject({ status: 'requested' });
    expect(requested.data.payload_sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(requested.data.expires_at).toEqual(expect.any(String));

    expect((await call('check_approval_status', { approval_id: id })).data).toMatchObject({
      status: 'requested',
      executor_should_consume: false,
    });

    await approveOverHttp(id);
    const approved = await call('check_approval_status', { approval_id: id });
    expect(approved.data).toMatchObject({ status: 'approved', executor_should_consume: true });
    expect(approved.data.next_step).toMatch(/consume/);
    // Polling again is safe: the check never consumes.
    expect((await call('check_approval_status', { approval_id: id })).data.status).toBe('approved');
  });

  it("returns the server's refusal as a tool error, not a crash", async () => {
    const missing = await call('check_approval_status', { approval_id: 'appr_doesnotexist' });
    expect(missing.isError).toBe(true);
    expect(missing.text).toMatch(/^error: /);
    const secret = await call('request_action_approval', {
      action: 'deploy.run',
      target: 'svc/api',
      summary: 'Deploy',
      args: { password: 'hunter2' },
    });
    expect(secret.isError).toBe(true);
    expect(secret.text).toMatch(/secret/i);
    // The server is still there.
    expect((await client.listTools()).tools).toHaveLength(2);
  });
});
