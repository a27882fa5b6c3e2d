import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { Worker, type NativeConnection } from '@temporalio/worker';
import { GATE_TENANT, getGateQuery } from '../../../src/workflow/gate/messages';
import { save, voteAsFinance, waitUntilRunning } from './common';

// User workflows (test/fixtures/library) that open gates with the workflow API, under a rule file and in a tenant.

/** The fixture's rule file: two finance approvals for refunds. */
const REFUND_RULES = 'rules:\n  - action: refund.*\n    roles: [finance]\n    min_approvals: 2\n';

interface WorkflowPath {
  /** The fixture workflow's type (frozen: it is in the file name and the history). */
  type: string;
  args: Record<string, unknown>;
  /** The parent's own GateTenant, which its gates inherit when the call names no tenant. */
  tenant?: string;
}

export const WORKFLOW_PATHS: Record<string, WorkflowPath> = {
  /** requireApproval with `tenant: 'acme'` under the refund rule: an ineligible vote, two finance approvals. */
  'require-approval': { type: 'refundWorkflow', args: { order_id: 'R1', cents: 5000, tenant: 'acme' } },
  /** withApproval in a workflow started with GateTenant=acme: the gate inherits it; recheck, then the activity. */
  'with-approval': { type: 'gatedRefundWorkflow', args: { order_id: 'R2', cents: 7000 }, tenant: 'acme' },
};

/** Records every workflow path into `dir`, on a worker hosting the fixture workflows with the gate's plugin. */
export async function recordWorkflowPaths(connection: NativeConnection, client: Client, dir: string): Promise<void> {
  const { openSqlite } = await import('../../../src/store/db');
  const { approvalGatePlugin } = await import('../../../src/worker');
  const libraryActivities = await import('../../fixtures/library/activities');
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'gate-replay-record-wf-'));
  const db = openSqlite(path.join(tmp, 'gate.db'));
  const policyFile = path.join(tmp, 'rules.yaml');
  fs.writeFileSync(policyFile, REFUND_RULES);
  try {
    const taskQueue = `replay-record-wf-${randomUUID()}`;
    const worker = await Worker.create({
      connection,
      taskQueue,
      workflowsPath: require.resolve('../../fixtures/library/workflows'),
      activities: { ...libraryActivities },
      plugins: [approvalGatePlugin({ db, webhookUrls: [], policyFile })],
    });
    await worker.runUntil(async () => {
      for (const [name, p] of Object.entries(WORKFLOW_PATHS)) {
        const parent = await client.workflow.start(p.type, {
          workflowId: `replay-${name}-${randomUUID()}`,
          taskQueue,
          args: [p.args],
          ...(p.tenant ? { typedSearchAttributes: [{ key: GATE_TENANT, value: p.tenant }] } : {}),
        });
        const gate = client.workflow.getHandle(`${parent.workflowId}-approval-1`);
        await waitUntilRunning(gate);
        await voteAsFinance(gate, 'rev-support');
        const result = (await parent.result()) as { status?: string; outcome?: { status: string } };
        const status = result.outcome?.status ?? result.status ?? 'unknown';
        if (status !== 'approved' && status !== 'executed')
          throw new Error(`${name}: the workflow ended ${status}; expected approved or executed`);
        if ((await gate.describe()).typedSearchAttributes.get(GATE_TENANT) !== 'acme')
          throw new Error(`${name}: the gate is not in tenant acme`);
        save(dir, name, await parent.fetchHistory(), status);
        save(dir, name, await gate.fetchHistory(), (await gate.query(getGateQuery)).status);
      }
    });
  } finally {
    await db.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}
