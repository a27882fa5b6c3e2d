import type { ModelMessage } from 'ai';
import { pendingApprovals } from '../../src/adapters/ai-sdk/pending-approvals';
import { argsObject, callEvidence, gateKey, toolInput } from '../../src/adapters/common/call-evidence';
import { decisionOf } from '../../src/adapters/common/tool-gates';
import type { GateStatusView } from '../../src/adapters/common/transport';
import { CreateApprovalBody } from '../../src/common/evidence';

const call = { toolName: 'refund', callId: 'call_1', args: { charge: 'ch_1', amount: 5 } };

describe('adapter evidence', () => {
  it('keys a gate by framework, scope, tool name and call id, and by nothing else', () => {
    const k = gateKey('ai-sdk', call, 'conv_1');
    expect(gateKey('ai-sdk', { ...call, args: { other: true } }, 'conv_1')).toBe(k);
    expect(gateKey('ai-sdk', call, 'conv_2')).not.toBe(k);
    expect(gateKey('langchain', call, 'conv_1')).not.toBe(k);
    expect(gateKey('ai-sdk', { ...call, toolName: 'lookup' }, 'conv_1')).not.toBe(k);
    expect(gateKey('ai-sdk', { ...call, callId: 'call_2' }, 'conv_1')).not.toBe(k);
    expect(k).toMatch(/^[\x21-\x7e]{1,256}$/);
  });

  it('builds a create body the API schema accepts, whatever the tool is called', () => {
    for (const toolName of ['refund', 'Send-Email', '3d.print', 'ünïcode']) {
      const body = callEvidence('ai-sdk', 'agent-1', { ...call, toolName }, { scope: 'conv_1' });
      expect(CreateApprovalBody.safeParse(body).success).toBe(true);
    }
    const body = callEvidence('openai-agents', 'agent-1', call, {});
    expect(body).toMatchObject({
      agent_id: 'agent-1',
      trigger_event_id: 'call_1',
      correlation_id: 'call_1',
      action: 'tool.refund',
      args: call.args,
      preconditions: { framework: 'openai-agents', tool_name: 'refund', tool_call_id: 'call_1' },
    });
  });

  it('keeps the summary displayable: no controls or bidi overrides, at most 120 characters', () => {
    const args = { note: 'a\u202ebc\u0007'.repeat(50) };
    const body = callEvidence('ai-sdk', 'agent-1', { ...call, args }, {});
    const summary = body.summary as string;
    expect(summary.length).toBeLessThanOrEqual(120);
    expect(summary).not.toMatch(/[\u0000-\u001f\u202a-\u202e]/);
    expect(CreateApprovalBody.safeParse(body).success).toBe(true);
  });

  it('carries a non-object tool input under `input` and hands it back unwrapped', () => {
    expect(argsObject('text')).toEqual({ input: 'text' });
    expect(toolInput('text', { input: 'edited' })).toBe('edited');
    expect(toolInput({ a: 1 }, { a: 2 })).toEqual({ a: 2 });
  });
});

describe('gate decisions as the adapters read them', () => {
  const view = (over: Partial<GateStatusView> & { status: string }): GateStatusView => ({
    request_id: 'appr_1',
    payload_sha256: 'x',
    ...over,
  });

  it('waits on requested, runs approved args (modified when a reviewer changed them)', () => {
    expect(decisionOf(call, view({ status: 'requested' }))).toBeUndefined();
    expect(
      decisionOf(call, view({ status: 'approved', final_args: { charge: 'ch_1', amount: 3 }, modified_by: 'rev-1' })),
    ).toEqual({
      outcome: 'approved',
      requestId: 'appr_1',
      input: { charge: 'ch_1', amount: 3 },
      modified: true,
    });
  });

  it('names the reviewer and the reason of a denial, and says so for expiry and a used approval', () => {
    const denied = decisionOf(
      call,
      view({ status: 'denied', decision: { decision: 'reject', reviewer_id: 'rev-1', reason: 'no' } }),
    );
    expect(denied).toMatchObject({ outcome: 'denied', reason: expect.stringMatching(/rev-1 rejected.*: no$/) });
    expect(decisionOf(call, view({ status: 'expired' }))).toMatchObject({ reason: expect.stringContaining('expired') });
    expect(decisionOf(call, view({ status: 'consumed' }))).toMatchObject({
      outcome: 'consumed',
      reason: expect.stringContaining('already used'),
    });
  });
});

describe('AI SDK pending approvals', () => {
  it('lists approval requests that have neither a response nor a result, in call order', () => {
    const messages: ModelMessage[] = [
      { role: 'user', content: 'go' },
      {
        role: 'assistant',
        content: [
          { type: 'tool-call', toolCallId: 'c1', toolName: 'refund', input: { a: 1 } },
          { type: 'tool-call', toolCallId: 'c2', toolName: 'refund', input: { a: 2 } },
          { type: 'tool-call', toolCallId: 'c3', toolName: 'refund', input: { a: 3 } },
          { type: 'tool-approval-request', approvalId: 'ap1', toolCallId: 'c1' },
          { type: 'tool-approval-request', approvalId: 'ap2', toolCallId: 'c2' },
          { type: 'tool-approval-request', approvalId: 'ap3', toolCallId: 'c3' },
        ],
      },
      { role: 'tool', content: [{ type: 'tool-approval-response', approvalId: 'ap1', approved: false }] },
      {
        role: 'tool',
        content: [{ type: 'tool-result', toolCallId: 'c2', toolName: 'refund', output: { type: 'text', value: 'x' } }],
      },
    ];
    expect(pendingApprovals(messages)).toEqual([
      { approvalId: 'ap3', toolName: 'refund', callId: 'c3', args: { a: 3 } },
    ]);
  });
});
