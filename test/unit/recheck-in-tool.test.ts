import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { createGateActivities, RECHECK_ATTEMPTS } from '../../src/worker/activities/gate';
import type { RecheckAndExecuteInput } from '../../src/worker/activities/contracts';
import type { Snapshot } from '../../src/common/evidence';
import { createDomainRegistry } from '../../src/domain/registry';
import type { DomainAdapter, RecheckResult } from '../../src/domain/types';
import type { AuditStore } from '../../src/store/audit-store';

/**
 * `recheckAndExecuteTool`: the snapshot re-check right before the effect, in the same
 * activity attempt. A retry whose key already ran must not see its own effect as drift.
 */

interface Calls {
  rechecks: number;
  executes: number;
}

interface Opts {
  ran?: boolean[];
  recheck?: RecheckResult;
  /** The re-check throws this (a store that is down). */
  recheckError?: Error;
  attempt?: number;
}

/** A domain whose store answers `executed` from `ran` (a list of answers, one per call) and re-checks with `recheck`. */
function activities(opts: Opts, calls: Calls) {
  const answers = [...(opts.ran ?? [])];
  const domain: DomainAdapter = {
    name: 'd',
    tools: [],
    permittedTools: async () => [],
    plan: async () => ({ policy: 'block', reason: 'n/a' }),
    recheck: async () => {
      calls.rechecks++;
      if (opts.recheckError) throw opts.recheckError;
      return opts.recheck ?? { ok: true };
    },
    revise: async () => ({ ok: false, issues: [] }),
    execute: async () => (calls.executes++, { content: 'submitted' }),
    ...(opts.ran ? { executed: async () => answers.shift() ?? false } : {}),
  };
  return createGateActivities({
    audit: {} as AuditStore,
    domains: createDomainRegistry([domain]),
    deliverWebhooks: async () => ({ delivered: [] }),
    webhookReceivers: 0,
  });
}

const call: RecheckAndExecuteInput = {
  domain: 'd',
  session_id: 's',
  tool: 't',
  input: {},
  idempotency_key: 'k',
  snapshot: {} as Snapshot,
};
const drift: RecheckResult = { ok: false, reason: 'the draft changed', mismatches: ['result_version'] };

async function run(opts: Opts) {
  const calls: Calls = { rechecks: 0, executes: 0 };
  const info = opts.attempt ? { attempt: opts.attempt } : undefined;
  const env = new MockActivityEnvironment(info, { logger: new DefaultLogger('ERROR') });
  const result = await env.run(activities(opts, calls).recheckAndExecuteTool, call);
  return { result, calls };
}

describe('recheckAndExecuteTool', () => {
  it('re-checks, then runs the tool, when the key has not run', async () => {
    const { result, calls } = await run({ ran: [false] });
    expect(result).toEqual({ ran: true, output: { content: 'submitted' } });
    expect(calls).toEqual({ rechecks: 1, executes: 1 });
  });

  it('does not run the tool when the re-check finds drift', async () => {
    const { result, calls } = await run({ ran: [false, false], recheck: drift });
    expect(result).toEqual({ ran: false, recheck: drift });
    expect(calls).toEqual({ rechecks: 1, executes: 0 });
  });

  it('skips the re-check on a retry whose key already ran, and returns the stored output', async () => {
    const { result, calls } = await run({ ran: [true], recheck: drift });
    expect(result).toEqual({ ran: true, output: { content: 'submitted' } });
    expect(calls).toEqual({ rechecks: 0, executes: 1 });
  });

  it('asks again after drift: an attempt given up for dead may have committed the effect meanwhile', async () => {
    const { result, calls } = await run({ ran: [false, true], recheck: drift });
    expect(result).toEqual({ ran: true, output: { content: 'submitted' } });
    expect(calls).toEqual({ rechecks: 1, executes: 1 });
  });

  it('leaves a store error of the re-check to be retried, and fails closed once its attempts are spent', async () => {
    const down = new Error('connect ECONNREFUSED 127.0.0.1:5432');
    await expect(run({ ran: [false, false], recheckError: down })).rejects.toBe(down);
    const { result, calls } = await run({ ran: [false, false], recheckError: down, attempt: RECHECK_ATTEMPTS });
    expect(result).toEqual({
      ran: false,
      recheck: {
        ok: false,
        reason: `could not verify the approved snapshot: ${down.message}`,
        mismatches: ['recheck unavailable'],
      },
    });
    expect(calls.executes).toBe(0);
  });

  it('does nothing for a domain that cannot tell whether a key ran: the gate re-checks in two steps', async () => {
    const { result, calls } = await run({});
    expect(result).toEqual({ unsupported: true });
    expect(calls).toEqual({ rechecks: 0, executes: 0 });
  });
});
