import type { Client } from '@temporalio/client';
import type { GateState } from '../../../src/common/gate-state';
import type { ScriptedTurn } from '../../../src/common/model-spec';
import type { RunInput, RunStatus } from '../../../src/workflow/agent-run/messages';
import type * as Harness from '../../support/run-harness';

// What the run paths (run-paths.ts, judged-run-paths.ts) share.

export interface RunPath {
  turns: ScriptedTurn[];
  /** Moves the started run to its end: a decision, an answer or a cancellation. */
  drive(h: typeof Harness, client: Client, runId: string): Promise<unknown>;
  /** Where the run and its child gate must end; a recording that went elsewhere is refused. */
  expect: { run: RunStatus; gate?: GateState['status']; executions?: number };
  /** The worker's rule file (GATE_POLICY_FILE) while this path is recorded; none when absent. */
  rules?: string;
  /** The worker's GATE_NOTIFY while this path is recorded (delivered to a local Slack); none when absent. */
  notify?: string;
  /** More of the run's input (its continue-as-new limits). */
  input?: Partial<RunInput>;
  /** The result one call must get (`call` id, `outcome`), e.g. a call the rule file blocked. */
  result?: { call: string; outcome: string };
  /** The patch markers the run's and its gate's histories must hold (see docs/upgrading.md, patch schedule). */
  patches?: { run?: string[]; gate?: string[] };
}

/** Draft 2 days in Busan at 800,000 KRW (above the approval threshold), then validate. */
export const DRAFT: ScriptedTurn[] = [
  {
    content: '',
    tool_calls: [{ id: 'c1', name: 'draft_trip_request', args: { destination: 'Busan', days: 2, budget: 800000 } }],
  },
  { content: '', tool_calls: [{ id: 'c2', name: 'validate_trip_request', args: {} }] },
];
export const submit = (id: string): ScriptedTurn => ({
  content: '',
  tool_calls: [{ id, name: 'submit_trip_request', args: {} }],
});
