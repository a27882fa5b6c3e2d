import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { Worker, type NativeConnection } from '@temporalio/worker';
import type { Db } from '../../../src/store/db';
import type { NotifySettings } from '../../../src/notify/config';
import { slackDefaults, startSlackStandin, type SlackStandin } from '../../support/slack-standin';
import { GATE_TENANT, getGateQuery } from '../../../src/workflow/gate/messages';
import { expectPatches, save, voteAsFinance, waitUntilRunning } from './common';
import { JUDGED_WORKFLOW_PATHS, JUDGED_WORKFLOW_RULES } from './judged-workflow-paths';
import type { WorkflowPath } from './workflow-kit';

// User workflows (test/fixtures/library) that open gates with the workflow API, under a rule file and in a tenant.

/** The fixture's rule file: two finance approvals for refunds. */
const REFUND_RULES = 'rules:\n  - action: refund.*\n    roles: [finance]\n    min_approvals: 2\n';

export const WORKFLOW_PATHS: Record<string, WorkflowPath> = {
  /** requireApproval with `tenant: 'acme'` under the refund rule: an ineligible vote, two finance approvals. */
  'require-approval': {
    type: 'refundWorkflow',
    args: { order_id: 'R1', cents: 5000, tenant: 'acme' },
    expect: 'approved',
  },
  /** withApproval in a workflow started with GateTenant=acme: the gate inherits it; recheck, then the activity. */
  'with-approval': {
    type: 'gatedRefundWorkflow',
    args: { order_id: 'R2', cents: 7000 },
    tenant: 'acme',
    expect: 'executed',
  },
};

/**
 * Recorded on a worker whose GATE_NOTIFY names a Slack channel (from 0.3.0): a request that
 * names no targets, under a rule that names none, is told there, as the API's creates are.
 */
export const NOTIFY_WORKFLOW_PATHS: Record<string, WorkflowPath> = {
  'require-approval-notify-default': {
    type: 'refundWorkflow',
    args: { order_id: 'R3', cents: 5000, tenant: 'acme' },
    expect: 'approved',
    patches: { parent: ['workflow-gate-notify-defaults'], gate: ['gate-notices'] },
    told: ['#refund-approvals'],
  },
};
/** The GATE_NOTIFY of the worker that records NOTIFY_WORKFLOW_PATHS. */
const NOTIFY_DEFAULT = 'slack:#refund-approvals';

/** What a fixture workflow returns: requireApproval's outcome, or withApproval's gated outcome. */
interface Ended {
  status?: string;
  decided_by?: string;
  outcome?: { status: string; decided_by?: string };
}

/** Runs one path to its end, checks it, and saves the parent's history and its gate's. */
async function recordWorkflowPath(
  client: Client,
  taskQueue: string,
  dir: string,
  name: string,
  p: WorkflowPath,
  slack: SlackStandin,
) {
  const parent = await client.workflow.start(p.type, {
    workflowId: `replay-${name}-${randomUUID()}`,
    taskQueue,
    args: [p.args],
    ...(p.tenant ? { typedSearchAttributes: [{ key: GATE_TENANT, value: p.tenant }] } : {}),
  });
  const gate = client.workflow.getHandle(`${parent.workflowId}-approval-1`);
  await waitUntilRunning(gate);
  if (!p.decidedBy) await voteAsFinance(gate, 'rev-support');
  const result = (await parent.result()) as Ended;
  const status = result.outcome?.status ?? result.status ?? 'unknown';
  if (status !== p.expect) throw new Error(`${name}: the workflow ended ${status}; expected ${p.expect}`);
  const decidedBy = result.outcome?.decided_by ?? result.decided_by;
  if (decidedBy !== (p.decidedBy ?? 'rev-fin-2'))
    throw new Error(`${name}: decided by ${decidedBy ?? 'nobody'}; expected ${p.decidedBy ?? 'rev-fin-2'}`);
  if ((await gate.describe()).typedSearchAttributes.get(GATE_TENANT) !== 'acme')
    throw new Error(`${name}: the gate is not in tenant acme`);
  for (const channel of p.told ?? [])
    if (!slack.messages.some((m) => m.posted_to === channel && m.text?.includes(gate.workflowId)))
      throw new Error(`${name}: the gate was not told in ${channel}`);
  await expectPatches(client, name, parent.workflowId, p.patches?.parent ?? []);
  await expectPatches(client, name, gate.workflowId, p.patches?.gate ?? []);
  save(dir, name, await parent.fetchHistory(), status);
  save(dir, name, await gate.fetchHistory(), (await gate.query(getGateQuery)).status);
}

/**
 * Records every workflow path (0.1.0's, then those added since) into `dir`, on a worker per
 * rule file that hosts the fixture workflows with the gate's plugin.
 */
export async function recordWorkflowPaths(connection: NativeConnection, client: Client, dir: string): Promise<void> {
  const { openSqlite } = await import('../../../src/store/db');
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'gate-replay-record-wf-'));
  const db = openSqlite(path.join(tmp, 'gate.db'));
  const slack = await startSlackStandin();
  try {
    const sets: [string, Record<string, WorkflowPath>, string?][] = [
      [REFUND_RULES, WORKFLOW_PATHS],
      [JUDGED_WORKFLOW_RULES, JUDGED_WORKFLOW_PATHS],
      [REFUND_RULES, NOTIFY_WORKFLOW_PATHS, NOTIFY_DEFAULT],
    ];
    for (const [i, [rules, paths, notify]] of sets.entries()) {
      const policyFile = path.join(tmp, `rules-${i}.yaml`);
      fs.writeFileSync(policyFile, rules);
      const settings = notify ? slackDefaults(slack, notify) : undefined;
      await withFixtureWorker(connection, db, policyFile, settings, async (taskQueue) => {
        for (const [name, p] of Object.entries(paths)) await recordWorkflowPath(client, taskQueue, dir, name, p, slack);
      });
    }
  } finally {
    await slack.close();
    await db.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

/** A worker hosting the fixture workflows with the gate's plugin under `policyFile` (and `notify`), while `run` runs. */
async function withFixtureWorker(
  connection: NativeConnection,
  db: Db,
  policyFile: string,
  notify: NotifySettings | undefined,
  run: (taskQueue: string) => Promise<void>,
): Promise<void> {
  const { approvalGatePlugin } = await import('../../../src/worker');
  const libraryActivities = await import('../../fixtures/library/activities');
  const taskQueue = `replay-record-wf-${randomUUID()}`;
  const worker = await Worker.create({
    connection,
    taskQueue,
    workflowsPath: require.resolve('../../fixtures/library/workflows'),
    activities: { ...libraryActivities },
    plugins: [approvalGatePlugin({ db, webhookUrls: [], policyFile, ...(notify ? { notify } : {}) })],
  });
  await worker.runUntil(() => run(taskQueue));
}
