import type { GrantRequest } from '../../../src/common/decision';
import { DEFAULT_TENANT } from '../../../src/common/tenant';
import { GATE_STORES_GRANT_PATCH } from '../../../src/workflow/gate/grant-issue';
import { decideSignal, getAuditQuery, getGateQuery } from '../../../src/workflow/gate/messages';
import { roleVote } from './common';
import { AGENT, create, ended, vote, type Clients, type GatePath } from './gate-kit';

// Gates created under a version 2 rule file (docs/policy.md), recorded from 0.2.0 on.

/** The patch these gates ask for: decided at creation, or shadow verdicts recorded (src/workflow/gate/policy-at-creation.ts). */
const AT_CREATION = 'policy-at-creation';

/**
 * The `judged` client's rule file. Small refunds are allowed, a frozen customer's are
 * blocked, large ones need two finance approvals and may give standing grants; two shadow
 * rules (audit, warn) are judged and never enforced.
 */
export const JUDGED_GATE_RULES = `version: 2
defaults: { effect: require }
rules:
  - id: small-refunds
    action: stripe.refund.*
    when: args.amount <= 5000
    effect: allow
  - id: frozen-customer
    action: stripe.refund.*
    when: has(args.customer) && args.customer == "cus_frozen"
    effect: block
    reason: the customer's account is frozen
  - id: trusted-refunds
    action: stripe.refund.*
    when: args.amount > 20000
    roles: [finance]
    min_approvals: 2
    grants: { max_for: 4h, max_uses: 5 }
  - id: trial-large
    action: "*"
    when: args.amount > 10000
    effect: block
    mode: audit
  - id: fraud-next-week
    action: stripe.refund.*
    when: has(args.reason) && args.reason == "fraud"
    effect: block
    mode: warn
    reason: fraud refunds will be blocked from next week
`;

/** The refund's args with `over` merged in. */
const args = (over: Record<string, unknown>) => ({
  args: { charge: 'ch_3MvICBLkdIwHu7ix0Yx87a11', amount: 14500, reason: 'requested_by_customer', ...over },
});

/** The charge the standing grant covers (grants match agent, action and target). */
const GRANT_TARGET = 'ch_3MvICBLkdIwHu7ix0YxGRANT';
const GRANT: GrantRequest = { for: '1h', max_uses: 2 };
/** The charge of the `grant-by-signal` path: a grant given there must not answer grant-use's create. */
const SIGNAL_GRANT_TARGET = 'ch_3MvICBLkdIwHu7ix0YxSIGNL';

/** Refuses unless the gate was decided at creation by `by`. */
async function expectDecidedBy(c: Clients, id: string, by: string): Promise<void> {
  const state = await c.client.workflow.getHandle(id).query(getGateQuery);
  if (state.decision?.reviewer_id !== by)
    throw new Error(`${id}: decided by ${state.decision?.reviewer_id ?? 'nobody'}; expected ${by}`);
}

/** Refuses unless the gate's trail holds the shadow verdicts of `rules`, in order. */
async function expectShadow(c: Clients, id: string, rules: string[]): Promise<void> {
  const events = await c.client.workflow.getHandle(id).query(getAuditQuery);
  const seen = events.filter((e) => e.event_type === 'policy.shadow').map((e) => e.data?.rule_id);
  if (JSON.stringify(seen) !== JSON.stringify(rules))
    throw new Error(`${id}: shadow verdicts ${JSON.stringify(seen)}; expected ${JSON.stringify(rules)}`);
}

export const JUDGED_GATE_PATHS: Record<string, GatePath> = {
  /** `allow`: the gate starts approved by `policy:small-refunds`, and the agent consumes it. */
  'policy-allow': {
    drive: async (c) => {
      const r = await create(c.judged, args({ amount: 4000 }));
      if (r.status !== 'approved') throw new Error(`policy-allow: created ${r.status}; expected approved`);
      await expectDecidedBy(c, r.request_id, 'policy:small-refunds');
      await c.judged.consume(r.request_id, AGENT);
      return ended(c, r.request_id);
    },
    expect: 'consumed',
    patches: [AT_CREATION],
  },
  /** `block` (winning over the audit rule): the gate starts denied by `policy:frozen-customer`, with its reason. */
  'policy-block': {
    drive: async (c) => {
      const r = await create(c.judged, args({ customer: 'cus_frozen' }));
      if (r.status !== 'denied') throw new Error(`policy-block: created ${r.status}; expected denied`);
      await expectDecidedBy(c, r.request_id, 'policy:frozen-customer');
      return ended(c, r.request_id);
    },
    expect: 'denied',
    patches: [AT_CREATION],
  },
  /**
   * `require` by the defaults, with an audit and a warn rule that would block: two
   * `policy.shadow` events and a warning, then one approval and the consume.
   */
  'policy-shadow': {
    drive: async (c) => {
      const r = await create(c.judged, args({ reason: 'fraud' }));
      if (r.status !== 'requested' || r.warnings?.[0]?.rule_id !== 'fraud-next-week')
        throw new Error(`policy-shadow: created ${r.status} with warnings ${JSON.stringify(r.warnings ?? [])}`);
      await expectShadow(c, r.request_id, ['trial-large', 'fraud-next-week']);
      await c.judged.decide(r.request_id, vote(r.payload_sha256, { note: 'not fraud: a damaged shipment' }));
      await c.judged.consume(r.request_id, AGENT);
      return ended(c, r.request_id);
    },
    expect: 'consumed',
    patches: [AT_CREATION],
  },
  /** Two finance approvals under `trusted-refunds`, each naming the same standing grant: the quorum gives it. */
  'grant-issue': {
    drive: async (c) => {
      const r = await create(c.judged, { target: GRANT_TARGET, ...args({ amount: 30000 }) });
      if (r.status !== 'requested') throw new Error(`grant-issue: created ${r.status}; expected requested`);
      const state = await c.client.workflow.getHandle(r.request_id).query(getGateQuery);
      const finance = (reviewer: string) => ({
        ...roleVote(state.payload_sha256, state.final_args_sha256, reviewer, ['finance']),
        grant: GRANT,
      });
      await c.judged.decide(r.request_id, finance('rev-fin-1'));
      const d = await c.judged.decide(r.request_id, finance('rev-fin-2'));
      const grant = 'grant' in d ? d.grant?.grant_id : undefined;
      if (!grant) throw new Error('grant-issue: the quorum gave no standing grant');
      c.issuedGrant = grant;
      await c.judged.consume(r.request_id, AGENT);
      return ended(c, r.request_id);
    },
    expect: 'consumed',
    patches: [AT_CREATION, GATE_STORES_GRANT_PATCH], // trial-large's shadow verdict; the gate stores the grant too
  },
  /** The next request on the same charge (after `grant-issue`): approved at creation by `grant:<id>`, then consumed. */
  'grant-use': {
    drive: async (c) => {
      if (!c.issuedGrant) throw new Error('grant-use: runs after grant-issue, which gives its grant');
      const r = await create(c.judged, { target: GRANT_TARGET, ...args({ amount: 30000 }) });
      if (r.status !== 'approved') throw new Error(`grant-use: created ${r.status}; expected approved`);
      await expectDecidedBy(c, r.request_id, `grant:${c.issuedGrant}`);
      const events = await c.client.workflow.getHandle(r.request_id).query(getAuditQuery);
      if (!events.some((e) => e.event_type === 'grant.used')) throw new Error('grant-use: no grant.used on the gate');
      await c.judged.consume(r.request_id, AGENT);
      return ended(c, r.request_id);
    },
    expect: 'consumed',
    patches: [AT_CREATION],
  },
  /**
   * Two finance votes by signal (as another service sends them), each naming the same
   * standing grant: no caller sees the quorum, so the gate stores the grant itself (from 0.3.0).
   */
  'grant-by-signal': {
    drive: async (c) => {
      const r = await create(c.judged, { target: SIGNAL_GRANT_TARGET, ...args({ amount: 30000 }) });
      if (r.status !== 'requested') throw new Error(`grant-by-signal: created ${r.status}; expected requested`);
      const gate = c.client.workflow.getHandle(r.request_id);
      const state = await gate.query(getGateQuery);
      for (const reviewer of ['rev-fin-1', 'rev-fin-2'])
        await gate.signal(decideSignal, {
          ...roleVote(state.payload_sha256, state.final_args_sha256, reviewer, ['finance']),
          grant: GRANT,
        });
      for (let i = 0; !(await c.grants.list(DEFAULT_TENANT)).some((g) => g.request_id === r.request_id); i++) {
        if (i === 300) throw new Error('grant-by-signal: the gate stored no standing grant within 30 s');
        await new Promise((res) => setTimeout(res, 100));
      }
      await c.judged.consume(r.request_id, AGENT);
      return ended(c, r.request_id);
    },
    expect: 'consumed',
    patches: [AT_CREATION, GATE_STORES_GRANT_PATCH],
  },
};
