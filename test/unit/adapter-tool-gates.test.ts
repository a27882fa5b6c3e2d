import { gateRequestId } from '../../src/adapters/common/call-evidence';
import { GateRequestError } from '../../src/adapters/common/errors';
import { ToolGates } from '../../src/adapters/common/tool-gates';
import type { GateTransport } from '../../src/adapters/common/transport';

/** A gate server that keeps every gate pending and refuses to open the one for `refuse`. */
function pendingServer(refuse: string) {
  const reads: string[] = [];
  const gate: GateTransport = {
    agentId: 'agent-1',
    create: async (body) => {
      if (body.trigger_event_id === refuse) throw new GateRequestError(422, 'secret_in_payload', 'carries a secret');
      return {
        request_id: gateRequestId(gate, 'test', {
          toolName: 'refund',
          callId: String(body.trigger_event_id),
          args: {},
        }),
        status: 'requested',
        expires_at: '',
        payload_sha256: 'x',
      };
    },
    get: async (id) => {
      reads.push(id);
      return { request_id: id, status: 'requested', payload_sha256: 'x' };
    },
    consume: async () => {
      throw new GateRequestError(409, 'illegal_transition', 'not approved');
    },
  };
  return { gate, reads };
}

describe('ToolGates', () => {
  it('stops waiting on the other gates of a batch when one cannot be opened', async () => {
    const server = pendingServer('c2');
    const gates = new ToolGates('test', { gate: server.gate, pollIntervalMs: 10 });
    const calls = ['c1', 'c2'].map((callId) => ({ toolName: 'refund', callId, args: {} }));
    await expect(gates.decide(calls)).rejects.toThrow('carries a secret');
    const readsThen = server.reads.length;
    await new Promise((r) => setTimeout(r, 100));
    expect(server.reads.length).toBe(readsThen);
  });

  it('derives the gate id as the server does, with the tenant outside the default tenant', () => {
    const call = { toolName: 'refund', callId: 'c1', args: {} };
    const plain = gateRequestId({ agentId: 'agent-1' }, 'test', call);
    expect(gateRequestId({ agentId: 'agent-1', tenant: 'default' }, 'test', call)).toBe(plain);
    expect(gateRequestId({ agentId: 'agent-1', tenant: 'acme' }, 'test', call)).not.toBe(plain);
  });

  it('refuses to take an approval the gate has not given, before anything runs', async () => {
    const gates = new ToolGates('test', { gate: pendingServer('none').gate });
    await expect(gates.take({ toolName: 'refund', callId: 'c1', args: {} })).rejects.toMatchObject({
      name: 'NotApprovedError',
      status: 'requested',
    });
  });
});
