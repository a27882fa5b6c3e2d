import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { ActivityFailure, ApplicationFailure, ChildWorkflowFailure, RetryState } from '@temporalio/common';
import { createGateActivities } from '../../src/worker/activities/gate';
import { DomainToolError, isDomainToolError } from '../../src/domain/errors';
import { createDomainRegistry } from '../../src/domain/registry';
import type { DomainAdapter } from '../../src/domain/types';
import type { AuditStore } from '../../src/store/audit-store';
import { failureMessageOf, failureTypeOf, isToolFailed } from '../../src/workflow/internal/failures';

/** A one-tool domain whose execute throws what the test gives it. */
function activitiesThrowing(err: unknown) {
  const domain: DomainAdapter = {
    name: 'd',
    tools: [],
    permittedTools: async () => [],
    plan: async () => ({ policy: 'block', reason: 'n/a' }),
    recheck: async () => ({ ok: true }),
    revise: async () => ({ ok: false, issues: [] }),
    execute: async () => {
      throw err;
    },
  };
  return createGateActivities({
    audit: {} as AuditStore,
    domains: createDomainRegistry([domain]),
    deliverWebhooks: async () => ({ delivered: [] }),
    webhookReceivers: 0,
  });
}

const call = { domain: 'd', session_id: 's', tool: 't', input: {}, idempotency_key: 'k' };
const run = (err: unknown) =>
  new MockActivityEnvironment(undefined, { logger: new DefaultLogger('ERROR') })
    .run(activitiesThrowing(err).executeTool, call)
    .catch((e: unknown) => e);

describe('executeTool error classes', () => {
  it("reports a tool's own refusal (DomainToolError) as a final ToolFailed with its message", async () => {
    const err = await run(new DomainToolError('Draft 7 does not exist in this session.'));
    expect(err).toBeInstanceOf(ApplicationFailure);
    expect(err).toMatchObject({
      type: 'ToolFailed',
      nonRetryable: true,
      message: 'Draft 7 does not exist in this session.',
    });
  });

  it('leaves a store error as it is, for Temporal to retry (the tool is idempotent by key)', async () => {
    const store = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    expect(await run(store)).toBe(store);
  });

  it('leaves a bug (a TypeError) to be retried too: it is not the tool declaring failure', async () => {
    const bug = new TypeError("Cannot read properties of undefined (reading 'draft_id')");
    expect(await run(bug)).toBe(bug);
  });

  it('recognises a DomainToolError subclass and one from another copy of the package by its brand', () => {
    class DraftMissing extends DomainToolError {}
    expect(isDomainToolError(new DraftMissing('x'))).toBe(true);
    expect(new DraftMissing('x').name).toBe('DraftMissing');
    expect(isDomainToolError({ [Symbol.for('approval-gate.DomainToolError')]: true })).toBe(true);
    expect(isDomainToolError(Object.assign(new Error('x'), { name: 'DomainToolError' }))).toBe(false);
  });
});

describe('failure naming', () => {
  const activityFailure = (cause: Error) =>
    new ActivityFailure(
      'Activity task failed',
      'callModel',
      '1',
      RetryState.MAXIMUM_ATTEMPTS_REACHED,
      undefined,
      cause,
    );

  it("names the cause's own type through activity and child workflow failures", () => {
    const unavailable = ApplicationFailure.create({ type: 'ModelUnavailable', message: 'HTTP 503' });
    expect(failureTypeOf(activityFailure(unavailable))).toBe('ModelUnavailable');
    const child = new ChildWorkflowFailure(
      'default',
      { workflowId: 'g', runId: 'r' },
      'approvalGateWorkflow',
      RetryState.NON_RETRYABLE_FAILURE,
      activityFailure(ApplicationFailure.create({ type: 'StoreSchemaMissing', message: 'no such table' })),
    );
    expect(failureTypeOf(child)).toBe('StoreSchemaMissing');
    expect(failureMessageOf(child)).toBe('no such table');
  });

  it('tells the tool declaring failure apart from every other activity failure', () => {
    expect(isToolFailed(activityFailure(ApplicationFailure.create({ type: 'ToolFailed', message: 'x' })))).toBe(true);
    expect(isToolFailed(activityFailure(ApplicationFailure.create({ type: 'Error', message: 'x' })))).toBe(false);
  });
});
