import type { ScriptedTurn } from '../../../src/common/model-spec';
import { submit, type RunPath } from './run-kit';

// Agent runs under a version 2 rule file (docs/policy.md), recorded from 0.2.0 on.

/**
 * The worker's rule file: every trip step is allowed unless a Tokyo trip (a person decides)
 * or a budget over the ceiling (blocked); an audit rule would block trips over three days.
 * The domain's own tier (a person for 300,000 KRW or more) may only make a call stricter.
 */
const JUDGED_RUN_RULES = `version: 2
defaults: { effect: require }
rules:
  - id: trip-ceiling
    action: trip.submit
    when: args.budget > 2500000
    effect: block
    reason: over the company's trip ceiling
  - id: trip-abroad
    action: trip.submit
    when: args.destination == "Tokyo"
    effect: require
  - id: trip-steps
    action: trip.*
    effect: allow
  - id: trial-long-trips
    action: trip.submit
    when: blast_radius.days > 3
    effect: block
    mode: audit
`;

/** The patch of calls judged by a version 2 file (src/workflow/agent-run/tool-call.ts). */
const JUDGED = 'run-call-judged';

/** Draft 5 days to `destination` at `budget` KRW, validate, submit (c3), then the model's last word. */
function trip(destination: string, budget: number): ScriptedTurn[] {
  return [
    {
      content: '',
      tool_calls: [{ id: 'c1', name: 'draft_trip_request', args: { destination, days: 5, budget } }],
    },
    { content: '', tool_calls: [{ id: 'c2', name: 'validate_trip_request', args: {} }] },
    submit('c3'),
    { content: 'Done: {{result:c3}}' },
  ];
}

export const JUDGED_RUN_PATHS: Record<string, RunPath> = {
  /** `allow` by trip-steps (and by the domain, under its threshold): submit runs without a gate, the rule in the run's trail. */
  'judged-allow': {
    rules: JUDGED_RUN_RULES,
    turns: trip('Busan', 50000),
    drive: (h, client, runId) => h.waitForRun(client, runId, (r) => r.status === 'completed'),
    expect: { run: 'completed' },
    result: { call: 'c3', outcome: 'success' },
    patches: { run: [JUDGED] },
  },
  /** `block` by trip-ceiling: submit gets the result `blocked` with the rule's reason, no gate. */
  'judged-block': {
    rules: JUDGED_RUN_RULES,
    turns: trip('Busan', 3000000),
    drive: (h, client, runId) => h.waitForRun(client, runId, (r) => r.status === 'completed'),
    expect: { run: 'completed' },
    result: { call: 'c3', outcome: 'blocked' },
    patches: { run: [JUDGED] },
  },
  /**
   * `require` by trip-abroad over the domain's allow: a tool gate with the rule in its evidence
   * and the audit rule's shadow verdict in its trail, approved; the tool runs.
   */
  'judged-require': {
    rules: JUDGED_RUN_RULES,
    turns: trip('Tokyo', 50000),
    drive: (h, client, runId) => h.decidePending(client, runId, { decision: 'approve' }),
    expect: { run: 'completed', gate: 'consumed' },
    result: { call: 'c3', outcome: 'success' },
    patches: { run: [JUDGED], gate: ['policy-at-creation'] },
  },
};
