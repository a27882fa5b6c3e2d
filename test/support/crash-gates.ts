import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import { prepareCreate } from '../../src/client/create-request';
import { notifyEnv, notifySettingsFrom } from '../../src/notify/config';
import { approvalGateWorkflow } from '../../src/workflow/gate/approval-gate';
import { refundBody } from './gate-fixtures';
import { killLeftoverWorkers, uniqueTaskQueue } from './processes';
import { slackEnv, startSlackStandin, type SlackStandin } from './slack-standin';

// What the crash tests of gates that tell reviewers share: a client on the suite's server, a
// Slack stand-in, a worker data directory and task queue per test, all torn down after the file.

export interface CrashGates {
  client: Client;
  slack: SlackStandin;
  /** A data directory, a task queue and the worker environment that points at the stand-in. */
  workerSetup(prefix: string): { dataDir: string; taskQueue: string; env: Record<string, string> };
  /** Starts a gate as the API would, for a refund with `over` in its create body. */
  startGate(taskQueue: string, env: Record<string, string>, over: Record<string, unknown>): Promise<WorkflowHandle>;
}

export function useCrashGates(): CrashGates {
  let connection: Connection | undefined;
  let client: Client | undefined;
  let slack: SlackStandin | undefined;
  const dirs: string[] = [];
  const set = <T>(v: T | undefined, what: string): T => {
    if (v === undefined) throw new Error(`${what} is set up in beforeAll`);
    return v;
  };
  const ctx: CrashGates = {
    get client() {
      return set(client, 'the client');
    },
    get slack() {
      return set(slack, 'the Slack stand-in');
    },
    workerSetup(prefix: string) {
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `gate-${prefix}-`));
      dirs.push(dataDir);
      return { dataDir, taskQueue: uniqueTaskQueue(prefix), env: slackEnv(ctx.slack) };
    },
    async startGate(taskQueue: string, env: Record<string, string>, over: Record<string, unknown>) {
      const { input, requestId } = prepareCreate(
        refundBody(`corr-${randomUUID()}`, over),
        { agentId: 'agent_billing' },
        { notify: { settings: notifyEnv(notifySettingsFrom(env)), defaults: [] } },
      );
      return ctx.client.workflow.start(approvalGateWorkflow, { workflowId: requestId, taskQueue, args: [input] });
    },
  };
  beforeAll(async () => {
    connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
    client = new Client({ connection });
    slack = await startSlackStandin();
  });
  afterAll(async () => {
    await killLeftoverWorkers();
    await connection?.close();
    await slack?.close();
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });
  return ctx;
}
